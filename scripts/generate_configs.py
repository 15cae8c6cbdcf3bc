"""Write the configs of every family in configs/ from a base and one block file per member.

    python scripts/generate_configs.py          # (re)write the generated configs
    python scripts/generate_configs.py --check  # exit 1 if any differs from the sources

A family (FAMILIES below) is a base, configs/src/<base>.cfg, and members, one
source each in a folder of configs/src/ (encoders/, paper/, labeller/): each
member's config is the base with its slots filled from the member's source.

- A base holds slots: a line that is only ``{{ slot }}`` takes a block of lines,
  ``{{ slot }}`` inside a line takes one line's text; ``{{ name }}`` is the
  member's name. A base whose lines name ``{{ name }}`` has a header of its own;
  otherwise the member's header comment opens the config.
- A member source is a header comment, then its blocks: the first fills the
  base's first slot, and a line ``{{ slot }}`` starts the block of that slot.
  Trailing blank lines of a block are dropped.
- Lines starting with "##" are notes on the sources and are not copied, nor are
  the blank lines before a source's first copied line.
- The encoder blocks (slot ``encode``) may set the
  [components.tok2vec.model.encode] section and its subsections only, and no
  base may set them, so the configs made from one base differ in their encoder only.

A variant (VARIANTS below) is one generated config with a few sections changed:
its source, configs/src/variants/<output>.cfg or the one it names (a change made to
several bases, whose header says {base} for the base's name, and a line
``# {base header}`` for the base's own header comment up to its "# Generated from"
line), is a header comment, then sections as in any config. A section the base
lacks is added after the last section of its parent (of the parent's parent for the sections under a "*",
which has no header of its own); a section the base has is merged into it key by key,
and a key the parent sets (``augmenter = null``) gives way to a section of
that name (``[corpora.train.augmenter]``); unless the two name different
registered functions (``@architectures``,
``@layers``...), when the source's section and subsections replace the base's:
the merge of spaCy's partial configs (``Config.merge``), which each variant is
checked against, written in the base's order with the base's comments. A
section that names nothing but another function of the same arguments (a
drop-in: ``spacy-elstm.SentenceTok2Vec.v1`` for ``spacy.Tok2Vec.v2``) keeps the
base's arguments and subsections.

A source in a blocks folder that no family names, or in variants/ that no
variant names, is refused, and so, by
--check, is a config in a family or variant folder that nothing makes
(HANDWRITTEN ones aside).
"""
import argparse
import re
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "configs" / "src"
OUT = ROOT / "configs"
NAME = "name"
SLOT = re.compile(r"\{\{ (\w+) \}\}")
ENCODE = "[components.tok2vec.model.encode"  # the section and its subsections
# The slot whose blocks may set these sections only (and no base may set them)
SECTION_OF_SLOT = {"encode": ENCODE}
# A variant's header line that stands for its base's header comment, which ends
# before its GENERATED line
BASE_HEADER = "# {base header}"
GENERATED = "# Generated from"

# The recommended pipelines, at the top of configs/; the other encoders are study variants
RECOMMENDED = ("best_elstm", "shared_elstm", "shared_dbrnn", "shared_lstm", "shared_gru",
               "cnn", "elstm_brnn")
STUDY_ENCODERS = ("elstm2_brnn", "dbrnn_elstm", "lstm_brnn", "gru_brnn", "elstm_brnn_v2",
                  "shared_elstm2")
PAPER = ("pos_rnn", "pos_brnn", "pos_dbrnn", "pos_seq2seq", "pos_seq2seq_att",
         "dep_rnn", "dep_brnn", "dep_dbrnn", "dep_seq2seq", "dep_seq2seq_att")
MACRO_TAGGERS = ("brnn_tagger", "dbrnn_tagger", "seq2seq_attention_tagger",
                 "label_recurrent_tagger")
TUNED_TAGGERS = ("tuned_brnn_tagger", "tuned_dbrnn_tagger")


class Family(NamedTuple):
    folder: str  # below configs/, "" for the top level
    base: str  # below configs/src/
    blocks: str  # the folder of the member sources, below configs/src/
    members: Tuple[str, ...]


FAMILIES = (
    # the UD pipelines (tagger, morphologizer, parser on a shared tok2vec), by encoder;
    # best_elstm adds a character-level recurrent embedding beside the word features
    Family("", "charrnn.cfg", "encoders", ("best_elstm",)),
    Family("", "base.cfg", "encoders", tuple(n for n in RECOMMENDED if n != "best_elstm")),
    Family("experiments/encoders", "base.cfg", "encoders", STUDY_ENCODERS),
    # character-level input (spaCy's CharacterEmbed) for the best ELSTM and the CNN
    Family("experiments/chars", "chars.cfg", "encoders", ("best_elstm", "cnn")),
    # the other parsers, on the same pipelines
    Family("biaffine", "biaffine_charrnn.cfg", "encoders", ("best_elstm",)),
    Family("biaffine", "biaffine.cfg", "encoders", ("shared_elstm", "cnn")),
    Family("seqparse", "seqparse.cfg", "encoders", ("best_elstm", "cnn")),
    # the Penn Treebank (tagger and parser); no character embedding, so no shared_elstm
    Family("ptb", "ptb.cfg", "encoders",
           tuple(sorted(n for n in RECOMMENDED + STUDY_ENCODERS if n != "shared_elstm"))),
    # Su & Kuo's settings (gold lemmas in, AdaGrad, 11 epochs), by task and model
    Family("paper", "paper.cfg", "paper", PAPER),
    # the tagger macro-models with their own embedding, at a modest budget and tuned
    Family("labeller", "labeller.cfg", "labeller", MACRO_TAGGERS),
    Family("labeller", "labeller_tuned.cfg", "labeller", TUNED_TAGGERS),
)


class Variant(NamedTuple):
    output: str  # below configs/, without .cfg
    base: str  # a generated or HANDWRITTEN config, below configs/ without .cfg
    # its source below configs/src/variants/, without .cfg: the output's own path
    # unless named (one change made to several bases, as raw text's)
    source: str = ""

    @property
    def source_name(self) -> str:
        return self.source or self.output


VARIANTS = (
    # the biaffine pipeline's parser reading the listener directly (the dev search's reference)
    Variant("experiments/biaffine/best_elstm_listener", "biaffine/best_elstm"),
    # best_elstm as it was before issue 43, its hashed word features as wide as the encoder
    Variant("experiments/speed/best_elstm_wide_words", "best_elstm"),
    # a UPOS tagger of its own after the morphologizer, on each parser (issue 33, item 2)
    Variant("experiments/biaffine/best_elstm_upos", "biaffine/best_elstm"),
    Variant("experiments/upos/best_elstm_upos", "experiments/speed/best_elstm_wide_words"),
    # the biaffine pipeline's pretraining (issue 33, item 4)
    Variant("pretrain/biaffine_best_elstm_next_word", "biaffine/best_elstm"),
    # raw text in (issue 41): documents, the treebank's tokens, lemmas; raw/best_elstm and
    # raw/cnn as they were before their tagger and parser learned lower case and text
    # without punctuation (issue 55), and as they are
    Variant("experiments/raw/best_elstm_as_written", "best_elstm", "raw/raw_text"),
    Variant("experiments/raw/cnn_as_written", "cnn", "raw/raw_text"),
    Variant("raw/best_elstm", "experiments/raw/best_elstm_as_written", "raw/text_variants"),
    Variant("raw/cnn", "experiments/raw/cnn_as_written", "raw/text_variants"),
    # raw/best_elstm with a UPOS tagger of its own (Uyghur-UDT's UPOS, issue 71)
    Variant("experiments/raw/best_elstm_upos", "raw/best_elstm"),
    # the quick start's pipeline for raw text (issue 55: the sample splits sentences)
    Variant("raw/elstm_brnn", "elstm_brnn", "raw/raw_text"),
    # raw/best_elstm as it was before issue 43 (the word features of best_elstm_wide_words)
    Variant("experiments/raw/best_elstm_wide_words", "experiments/raw/best_elstm_as_written"),
    # the raw-text pipelines trained on documents (issue 41: documents against sentences)
    Variant("experiments/raw/best_elstm_documents", "experiments/raw/best_elstm_wide_words"),
    Variant("experiments/raw/cnn_documents", "experiments/raw/cnn_as_written"),
    # Su & Kuo's Table 8 convseq2seq (Gehring et al.'s model) in their parsing setting (issue 44)
    Variant("paper/dep_convseq2seq", "paper/dep_seq2seq_att"),
    # Table 8's TDP stand-in as first trained (one maxout piece, which spaCy's parser
    # trains with a ReLU and predicts without), and that with spaCy's default optimizer
    Variant("experiments/paper/dep_tdp_maxout1", "paper/dep_tdp"),
    Variant("experiments/paper/dep_tdp_adam", "experiments/paper/dep_tdp_maxout1"),
    # training on a GPU (issue 45): the accurate pipeline, and spaCy's BiLSTM for reference
    Variant("gpu/best_elstm", "biaffine/best_elstm"),
    Variant("gpu/spacy_bilstm", "cnn"),
)
# Configs in a family folder written by hand: the sequence-labelling parser with
# a tagger before it on a shared tok2vec, a family of one
HANDWRITTEN = ("labeller/seq_parser", "pretrain/elstm_next_word", "paper/dep_tdp")


class SourceError(ValueError):
    pass


def _lines(path: Path) -> List[str]:
    """The lines of a source that are copied, each with its line ending."""
    if not path.is_file():
        raise SourceError(f"{path}: no such source.")
    lines = [ln for ln in path.read_bytes().decode("utf-8").splitlines(keepends=True)
             if not ln.startswith("##")]
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return lines


def _marker(line: str) -> Optional[str]:
    """The slot a line that is only ``{{ slot }}`` names, else None."""
    match = SLOT.fullmatch(line.strip())
    return match.group(1) if match else None


class Base(NamedTuple):
    lines: List[str]
    slots: List[str]  # in order of first use
    own_header: bool


def read_base(path: Path) -> Base:
    lines = _lines(path)
    slots: List[str] = []
    for line in lines:
        for slot in SLOT.findall(line):
            if slot != NAME and slot not in slots:
                slots.append(slot)
    if not slots:
        raise SourceError(f"{path}: needs a slot line such as {{{{ encode }}}}, found none.")
    for slot, section in SECTION_OF_SLOT.items():
        if slot in slots and any(ln.startswith(section) for ln in lines):
            raise SourceError(f"{path}: the {section}] section belongs in the {slot} blocks.")
    return Base(lines, slots, any("{{ name }}" in ln for ln in lines))


def read_member(path: Path, base: Base) -> Tuple[List[str], Dict[str, List[str]]]:
    """(header, {slot: block}) of a member source for ``base``."""
    lines = _lines(path)
    start = next((i for i, ln in enumerate(lines) if ln.startswith("[") or _marker(ln)),
                 len(lines))
    header, body = lines[:start], lines[start:]
    if not any(ln.startswith("#") for ln in header):
        raise SourceError(f"{path}: no header comment before its blocks.")
    if any(ln.strip() and not ln.startswith("#") for ln in header):
        raise SourceError(f"{path}: only a comment may come before its blocks.")
    blocks: Dict[str, List[str]] = {}
    slot = base.slots[0]
    for line in body:
        marked = _marker(line)
        if marked is not None:
            slot = marked
            if slot in blocks:
                raise SourceError(f"{path}: the block {{{{ {slot} }}}} twice.")
            blocks[slot] = []
        else:
            blocks.setdefault(slot, []).append(line)
    for slot, block in blocks.items():
        while block and not block[-1].strip():
            block.pop()
        if slot not in base.slots:
            raise SourceError(f"{path}: a block {{{{ {slot} }}}} the base has no slot for.")
        section = SECTION_OF_SLOT.get(slot)
        if section is not None:
            if not block or block[0].rstrip() != section + "]":
                raise SourceError(f"{path}: no {section}] section.")
            other = [ln.rstrip() for ln in block if ln.startswith("[") and not ln.startswith(section)]
            if other:
                raise SourceError(f"{path}: an encoder may only set the encode section, not {other[0]}.")
    missing = [slot for slot in base.slots if slot not in blocks]
    if missing:
        raise SourceError(f"{path}: no block for the slot {{{{ {missing[0]} }}}}.")
    return header, blocks


def fill(base: Base, name: str, header: List[str], blocks: Dict[str, List[str]]) -> str:
    """The config of member ``name`` on ``base``."""
    def word(match) -> str:  # a slot inside a line
        slot = match.group(1)
        if slot == NAME:
            return name
        if len(blocks[slot]) != 1:
            raise SourceError(f"{name}: the slot {{{{ {slot} }}}} is inside a line, so its "
                              f"block must be one line, not {len(blocks[slot])}.")
        return blocks[slot][0].strip()

    out = [] if base.own_header else list(header)
    for line in base.lines:
        slot = _marker(line)
        if slot is not None and slot != NAME:
            out.extend(blocks[slot])
        else:
            out.append(SLOT.sub(word, line))
    return "".join(out)


def generate(src: Path = SRC) -> Dict[str, str]:
    """The text of every generated config, by its path below configs/ without
    ".cfg" (``elstm_brnn``, ``ptb/elstm_brnn``), from the sources in ``src``."""
    configs = {}
    for folder in sorted({family.blocks for family in FAMILIES}):
        members = {name for family in FAMILIES if family.blocks == folder for name in family.members}
        for path in sorted((src / folder).glob("*.cfg")):
            if path.stem not in members:
                raise SourceError(f"{path}: no family makes a config of it; name it in FAMILIES.")
    for family in FAMILIES:
        base = read_base(src / family.base)
        for name in family.members:
            header, blocks = read_member(src / family.blocks / f"{name}.cfg", base)
            path = f"{family.folder}/{name}" if family.folder else name
            configs[path] = fill(base, name, header, blocks)
    sources = {variant.source_name for variant in VARIANTS}
    for path in sorted((src / "variants").rglob("*.cfg")):
        if path.relative_to(src / "variants").with_suffix("").as_posix() not in sources:
            raise SourceError(f"{path}: no variant makes a config of it; name it in VARIANTS.")
    for variant in VARIANTS:
        if variant.base in configs:
            base_text = configs[variant.base]
        elif variant.base in HANDWRITTEN:
            base_text = (src.parent / f"{variant.base}.cfg").read_text(encoding="utf-8")
        else:
            raise SourceError(f"variant {variant.output}: no generated or handwritten config "
                              f"{variant.base}.")
        configs[variant.output] = apply_variant(
            base_text, src / "variants" / f"{variant.source_name}.cfg", variant.base)
    return configs


SECTION = re.compile(r"\[([^\]]+)\]\s*$")
KEY = re.compile(r"([^\s=#][^=]*?)\s*=")


def _sections(lines: List[str]) -> Tuple[List[str], List[Tuple[str, List[str]]]]:
    """(the lines before the first section, [(section name, its lines)])."""
    head: List[str] = []
    sections: List[Tuple[str, List[str]]] = []
    for line in lines:
        match = SECTION.match(line)
        if match:
            sections.append((match.group(1), [line]))
        elif sections:
            sections[-1][1].append(line)
        else:
            head.append(line)
    return head, sections


def _body(lines: List[str]) -> List[str]:
    """A section's lines without its trailing blank lines."""
    end = len(lines)
    while end > 1 and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def _keys(lines: List[str]) -> Dict[str, int]:
    """The keys a section's lines set, by the index of their line."""
    return {match.group(1): i for i, line in enumerate(lines)
            if (match := KEY.match(line)) is not None}


def _drop_in(theirs: Optional[Tuple[str, str]], ours: Tuple[str, str],
             change: List[str]) -> bool:
    """Whether a variant's section that names only another registered function
    (``change``: its lines) names one of the same arguments as the base's, in
    which case the base's arguments and subsections stay (spacy-elstm.SentenceTok2Vec.v1
    for spacy.Tok2Vec.v2)."""
    import inspect
    import json

    from spacy.util import registry

    if theirs is None or theirs[0] != ours[0] or len(_keys(change)) != 1:
        return False
    try:
        functions = [registry.get(ours[0][1:], json.loads(value)) for value in (theirs[1], ours[1])]
    except Exception:  # not registered, or not a quoted name: spaCy's merge decides
        return False
    names = [list(inspect.signature(f).parameters) for f in functions]
    return names[0] == names[1]


def _function(lines: List[str]) -> Optional[Tuple[str, str]]:
    """The registered function a section names (``@architectures = ...``), if any."""
    for key, i in _keys(lines).items():
        if key.startswith("@"):
            return key, lines[i].split("=", 1)[1].strip()
    return None


def _header_of(config_text: str) -> List[str]:
    """A config's header comment up to its "# Generated from" line."""
    header: List[str] = []
    for line in config_text.splitlines(keepends=True):
        if not line.startswith("#") or line.startswith(GENERATED):
            break
        header.append(line)
    return header


def apply_variant(base_text: str, source: Path, base: str = "") -> str:
    """The variant ``source`` (see the module) of the config ``base_text``;
    ``{base}`` in its header comment becomes ``base``, the base's name."""
    from thinc.api import Config

    lines = _lines(source)
    header, changes = _sections(lines)
    header = [ln.replace("{base}", base) for ln in header]
    header = [own for ln in header
              for own in (_header_of(base_text) if ln.rstrip() == BASE_HEADER else [ln])]
    if not any(ln.startswith("#") for ln in header) or any(
            ln.strip() and not ln.startswith("#") for ln in header):
        raise SourceError(f"{source}: needs a header comment, and only that, before its sections.")
    _, sections = _sections(base_text.splitlines(keepends=True))
    names = [name for name, _ in sections]
    drop_ins: List[str] = []
    for name, change in changes:
        change = _body(change)
        if any(KEY.match(ln) is None and ln.strip() and not ln.startswith("#")
               for ln in change[1:]):
            raise SourceError(f"{source}: [{name}] has a line that sets no key (one line each).")
        if name in names:
            at = names.index(name)
            old = _body(sections[at][1])
            theirs, ours = _function(old), _function(change)
            if ours is not None and theirs != ours and _drop_in(theirs, ours, change):
                drop_ins.append(name)  # another function of the same arguments: keep them
                named = next(ln for ln in change if _function([ln]) is not None)
                merged = [named if _function([ln]) == theirs else ln for ln in old]
                sections[at] = (name, merged + sections[at][1][len(old):])
            elif ours is not None and theirs != ours:  # another function: replace it, subsections too
                sections = [(n, ls) for n, ls in sections if not n.startswith(name + ".")]
                sections[at] = (name, change + sections[at][1][len(old):])
            else:
                merged, index = list(old), _keys(old)
                for line in change[1:]:
                    match = KEY.match(line)
                    if match is not None and match.group(1) in index:
                        merged[index[match.group(1)]] = line
                    else:
                        merged.append(line)
                sections[at] = (name, merged + sections[at][1][len(old):])
        else:
            parent = name.rpartition(".")[0]
            # a "*" section (a function's positional arguments) has no header of its own
            anchor = parent[:-2] if parent.endswith(".*") else parent
            family = [i for i, n in enumerate(names) if n == anchor or n.startswith(anchor + ".")]
            if not anchor or not family:
                raise SourceError(f"{source}: [{name}] has no parent section [{parent}] in the base.")
            # a key of the parent that the new section replaces (`augmenter = null`
            # becoming [corpora.train.augmenter]) goes
            key = name.rpartition(".")[2]
            if anchor in names:
                own = names.index(anchor)
                sections[own] = (anchor, [ln for ln in sections[own][1]
                                          if not (KEY.match(ln) and KEY.match(ln).group(1) == key)])
            at = family[-1] + 1
            if sections[at - 1][1][-1].strip():  # the base's last section: no blank line yet
                sections[at - 1] = (names[at - 1], sections[at - 1][1] + ["\n"])
            sections.insert(at, (name, change + (["\n"] if at < len(sections) else [])))
        names = [n for n, _ in sections]
    text = "".join(_body(header)) + "\n" + "".join(ln for _, ls in sections for ln in ls)
    # the text says what spaCy's own merge of the variant into the base says
    # (a drop-in's section and subsections as written, the base's arguments in them,
    # which spaCy's merge then keeps)
    def under_drop_in(name: str) -> bool:
        return any(name == d or name.startswith(d + ".") for d in drop_ins)

    overlay = "".join(ln for name, change in changes for ln in change if not under_drop_in(name))
    overlay += "".join(ln for name, lines in sections for ln in lines if under_drop_in(name))
    # ("*" sections have no header: spaCy's parser makes them as it meets their subsections)
    ancestors = {name[:i] for name, _ in changes for i, c in enumerate(name)
                 if c == "." and not name[:i].endswith(".*") and not under_drop_in(name[:i])}
    overlay = "".join(f"[{a}]\n" for a in sorted(ancestors - {n for n, _ in changes}, key=len)) + overlay
    want = Config().from_str(base_text, interpolate=False).merge(
        Config().from_str(overlay, interpolate=False))
    if Config().from_str(text, interpolate=False) != want:
        raise SourceError(f"{source}: writing it into its base in place differs from spaCy's merge.")
    return text


def _outputs(out: Path) -> List[Path]:
    folders = sorted({family.folder for family in FAMILIES}
                     | {variant.output.rpartition("/")[0] for variant in VARIANTS})
    return [p for folder in folders for p in sorted((out / folder).glob("*.cfg"))]


def check(src: Path = SRC, out: Path = OUT) -> List[str]:
    """What differs between the configs in ``out`` and the sources, one line each."""
    configs = generate(src)
    problems = []
    for name, text in configs.items():
        path = out / f"{name}.cfg"
        if not path.exists():
            problems.append(f"{path} is missing")
        elif path.read_bytes() != text.encode("utf-8"):
            problems.append(f"{path} differs from its sources")
    for path in _outputs(out):
        name = path.relative_to(out).with_suffix("").as_posix()
        if name not in configs and name not in HANDWRITTEN:
            problems.append(f"{path} has no source (see FAMILIES in scripts/generate_configs.py)")
    return problems


def write(src: Path = SRC, out: Path = OUT) -> List[str]:
    """Write every config into ``out``; return the names of those that changed."""
    changed = []
    for name, text in generate(src).items():
        path = out / f"{name}.cfg"
        data = text.encode("utf-8")
        if not path.exists() or path.read_bytes() != data:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            changed.append(name)
    return changed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a config differs from its sources")
    parser.add_argument("--src", type=Path, default=SRC, help="the sources (default: configs/src)")
    parser.add_argument("--out", type=Path, default=OUT, help="where the configs go (default: configs)")
    args = parser.parse_args(argv)
    try:
        if not args.check:
            for name in write(args.src, args.out):
                print(f"wrote {args.out / name}.cfg")
        problems = check(args.src, args.out)
    except SourceError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print("Run `python scripts/generate_configs.py` (or `spacy project run configs`) "
              "and delete configs that have no source.", file=sys.stderr)
        return 1
    if args.check:
        print(f"{args.out}: all configs match {args.src}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
