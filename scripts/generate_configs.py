"""Write configs/<name>.cfg from configs/src: one shared base, one encoder each.

    python scripts/generate_configs.py          # (re)write configs/*.cfg, configs/{ptb,chars,biaffine,seqparse}/*.cfg
    python scripts/generate_configs.py --check  # exit 1 if any differs from the sources

configs/<name>.cfg is the header comment of configs/src/encoders/<name>.cfg,
then configs/src/base.cfg with its line ``{{ encode }}`` replaced by that
encoder's [components.tok2vec.model.encode] block; for the names in TOP_BASE,
another base in place of base.cfg (configs/best_elstm.cfg: configs/src/charrnn.cfg,
the UD pipeline with a character-level recurrent embedding beside the hashed
word features). configs/ptb/<name>.cfg is
made the same way from configs/src/ptb.cfg (a tagger and a parser for the Penn
Treebank), except that the header is the base's own comment, with
``{{ name }}`` replaced by the encoder's name; configs/chars/<name>.cfg, the
same from configs/src/chars.cfg (character-level input), and
configs/biaffine/<name>.cfg from configs/src/biaffine.cfg (the biaffine parser
in place of spaCy's) and configs/seqparse/<name>.cfg from configs/src/seqparse.cfg
(parsing as sequence labelling), for the encoders ONLY names (and every
encoder but those EXCEPT names for the other bases). Lines starting with "##"
are notes on the sources and are not copied, nor are the blank lines before a
source's first copied line. An encoder file may hold nothing but its header
comment and the encode section (with its subsections, if any), and the base
none of that section, so the configs can differ in their encoder only.
"""
import argparse
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "configs" / "src"
OUT = ROOT / "configs"
PLACEHOLDER = "{{ encode }}"
NAME = "{{ name }}"
# Output subfolder of configs/ -> the base it is made from.
BASES = {"": "base.cfg", "ptb": "ptb.cfg", "chars": "chars.cfg", "biaffine": "biaffine.cfg",
         "seqparse": "seqparse.cfg"}
# configs/<name>.cfg made from another base than base.cfg (a base without a
# header of its own: the encoder's header describes the whole pipeline)
TOP_BASE = {"best_elstm": "charrnn.cfg"}
# The encoders a base is made for, where not every one: character-level input
# for the best ELSTM and spaCy's CNN (the comparison it is measured in), and the
# biaffine parser and the sequence-labelling parser for the same two
ONLY = {"chars": ("best_elstm", "cnn"), "biaffine": ("best_elstm", "cnn"),
        "seqparse": ("best_elstm", "cnn")}
# The encoders a base is not made for: the PTB configs have no character-level
# embedding, so shared_elstm's would be best_elstm's over again
EXCEPT = {"ptb": ("shared_elstm",)}
ENCODE = "[components.tok2vec.model.encode"  # the section and its subsections


class SourceError(ValueError):
    pass


def _lines(path: Path) -> List[str]:
    """The lines of a source that are copied, each with its line ending."""
    lines = [ln for ln in path.read_bytes().decode("utf-8").splitlines(keepends=True)
             if not ln.startswith("##")]
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines


def _split_encoder(path: Path):
    """(header, block) of an encoder source: the comment and blank lines before
    the encode section, and the section itself without trailing blank lines."""
    lines = _lines(path)
    start = next((i for i, ln in enumerate(lines) if ln.startswith("[")), None)
    if start is None or lines[start].rstrip() != ENCODE + "]":
        raise SourceError(f"{path}: no [components.tok2vec.model.encode] section.")
    header, block = lines[:start], lines[start:]
    if not any(ln.startswith("#") for ln in header):
        raise SourceError(f"{path}: no header comment before the encode section.")
    if any(ln.strip() and not ln.startswith("#") for ln in header):
        raise SourceError(f"{path}: only a comment may come before the encode section.")
    other = [ln.rstrip() for ln in block if ln.startswith("[") and not ln.startswith(ENCODE)]
    if other:
        raise SourceError(f"{path}: an encoder may only set the encode section, not {other[0]}.")
    while block and not block[-1].strip():
        block.pop()
    if not block[-1].endswith("\n"):
        block[-1] += "\n"
    return header, block


def generate(src: Path = SRC) -> Dict[str, str]:
    """The text of every config, by its path below configs/ without ".cfg"
    (``elstm_brnn``, ``ptb/elstm_brnn``), from the sources in ``src``."""
    encoders = sorted((src / "encoders").glob("*.cfg"))
    if not encoders:
        raise SourceError(f"{src / 'encoders'}: no encoder sources.")
    blocks = {path.stem: _split_encoder(path) for path in encoders}
    bases = {name: _read_base(src / name) for name in {*BASES.values(), *TOP_BASE.values()}}
    configs = {}
    for folder, base_name in BASES.items():
        for name, (header, block) in blocks.items():
            if (folder in ONLY and name not in ONLY[folder]) or name in EXCEPT.get(folder, ()):
                continue
            base = bases[base_name if folder else TOP_BASE.get(name, base_name)]
            configs[f"{folder}/{name}" if folder else name] = _fill(base, name, header, block)
    return configs


def _read_base(path: Path) -> Tuple[List[str], int, bool]:
    """A base's copied lines, the index of its ``{{ encode }}`` line, and
    whether it has a header of its own (a line with ``{{ name }}``)."""
    base = _lines(path)
    slots = [i for i, ln in enumerate(base) if ln.strip() == PLACEHOLDER]
    if len(slots) != 1:
        raise SourceError(f"{path}: needs the line {PLACEHOLDER} once, "
                          f"found it {len(slots)} times.")
    if any(ln.startswith(ENCODE) for ln in base):
        raise SourceError(f"{path}: the encode section belongs in encoders/.")
    return base, slots[0], any(NAME in ln for ln in base)


def _fill(base: Tuple[List[str], int, bool], name: str, header: List[str],
          block: List[str]) -> str:
    """The config of encoder ``name`` (its ``header`` and encode ``block``) on
    ``base`` (as _read_base gives it)."""
    lines, i, own_header = base
    text = "".join(([] if own_header else header) + lines[:i] + block + lines[i + 1:])
    return text.replace(NAME, name)


def _outputs(out: Path) -> List[Path]:
    return [p for folder in BASES for p in sorted((out / folder).glob("*.cfg"))]


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
        if path.relative_to(out).with_suffix("").as_posix() not in configs:
            problems.append(f"{path} has no source {src / 'encoders' / path.name}")
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
