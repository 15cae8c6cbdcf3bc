"""A Universal Dependencies treebank as its folder holds it: the files
`<code>_<name>-ud-{train,dev,test}.conllu` of `UD_<Language>-<Name>` (and the
folder's LICENSE.txt; a split in parts, or no dev split, as ud_splits derives
them), the language code their names start with, and the
language spaCy builds for it: its own class where it has one, `xx` (spaCy's
multi-language class) where it has none, as for Uyghur, Coptic, Wolof or
Classical Chinese, or where its class builds a component of spaCy's with a
factory of its own taking other settings (Japanese's morphologizer) or
initialises its tokenizer with settings of its own (Chinese's pkuseg)."""
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterator, List, Tuple, Union

from .ud_names import UD_FILE, split_file_name
from .ud_splits import SPLITS, SplitsError, three_splits

REQUIRED = ("train", "test")  # a missing dev split is held out from train
MULTI_LANGUAGE = "xx"
LICENSE_FILES = ("LICENSE.txt", "LICENSE")


class TreebankFolderError(ValueError):
    """A folder that is not a UD treebank with a train and a test split."""


@dataclass(frozen=True)
class UDTreebank:
    folder: Path
    stem: str  # "ug_udt": the files' common start
    code: str  # "ug": the language code of the file names
    files: Dict[str, Path]  # split -> CoNLL-U file, all three in one folder
    derived: Tuple[str, ...] = ()  # how the files were made where the folder lacks them

    @property
    def name(self) -> str:
        """The folder's name, `UD_Uyghur-UDT`."""
        return self.folder.name

    @property
    def lang(self) -> str:
        """The language spaCy builds: the code where spaCy has a class for it, else xx."""
        return spacy_language(self.code)

    @property
    def license(self) -> Path:
        """The treebank's licence text."""
        for name in LICENSE_FILES:
            if (self.folder / name).is_file():
                return self.folder / name
        raise TreebankFolderError(f"{self.folder}: no licence file ({' or '.join(LICENSE_FILES)}): "
                                  "a pipeline trained on it is shipped with its licence.")

    @property
    def conllu_pattern(self) -> str:
        """The path of every split's file, with `{split}` for its name."""
        return str(self.files["train"].parent / split_file_name(self.stem, "{split}"))

    def has_lemmas(self) -> bool:
        """Whether any word of the training split has a lemma (Maltese-MUDT's have none)."""
        return _has_lemmas(self.files["train"])

    def package_stem(self) -> str:
        """The package's name after spaCy's language prefix: the treebank's
        name (`ewt` of `en_ewt`), and the language code where spaCy's prefix
        is not it (`ug_udt` under `xx`)."""
        return self.stem[len(self.code) + 1:] if self.lang == self.code else self.stem


def find_treebank(folder: Union[str, Path]) -> UDTreebank:
    """The treebank in `folder`; an error naming the folder and what is missing."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TreebankFolderError(f"{folder}: no such folder (a UD treebank's folder, with its "
                                  "<code>_<name>-ud-{train,dev,test}.conllu files).")
    found: Dict[str, List[Path]] = {}
    stems = set()
    for path in sorted(folder.glob("*.conllu")):
        match = UD_FILE.fullmatch(path.name)
        if match:
            found.setdefault(match["split"], []).append(path)
            stems.add((match["stem"], match["code"]))
    if len(stems) > 1:
        raise TreebankFolderError(f"{folder}: the CoNLL-U files name more than one treebank "
                                  f"({', '.join(sorted(s for s, _ in stems))}).")
    missing = [split for split in REQUIRED if split not in found]
    if missing:
        present = ", ".join(p.name for p in sorted(folder.glob("*.conllu"))) or "none"
        only_test = (" (UD ships some treebanks with a test split alone, for evaluation: a "
                     "pipeline for the language is trained on another of its treebanks)"
                     if missing == ["train"] and "test" in found else "")
        raise TreebankFolderError(
            f"{folder}: no {' and no '.join(missing)} split{only_test} (looked for "
            f"<code>_<name>-ud-{{{','.join(SPLITS)}}}.conllu, a split in parts as "
            f"<code>_<name>-ud-train-<part>.conllu; CoNLL-U files there: {present}).")
    for path in (path for split in SPLITS for path in found.get(split, ())):
        text = _text_of(path)
        if text != "forms":
            raise TreebankFolderError(f"{path}: {TEXT_PROBLEMS[text]}")
    stem, code = stems.pop()
    try:
        files, derived = three_splits(folder.name, stem, found)
    except SplitsError as err:
        raise TreebankFolderError(str(err)) from None
    return UDTreebank(folder, stem, code, files, derived)


TEXT_PROBLEMS = {
    "no words": "no words (no line of a word's ten columns); a split the pipeline learns "
                "from or is scored on needs its sentences.",
    "no forms": "every word's form is `_`: the treebank is distributed without its text "
                "(UD ships a few so, their README saying where the text comes from and how "
                "to merge it in); merge it in before training, as no tokenizer or tagger "
                "can learn from `_`.",
}


def _word_fields(path: Path) -> Iterator[List[str]]:
    """The ten columns of each word line of a CoNLL-U file, in order (a byte
    that is not UTF-8 replaced: it is convert's error to report, with its line)."""
    with path.open(encoding="utf-8-sig", errors="replace") as lines:
        for line in lines:
            fields = line.split("\t")
            if len(fields) == 10 and fields[0].isdigit():
                yield fields


@lru_cache(maxsize=None)
def _text_of(path: Path) -> str:
    """"forms" where some word of the CoNLL-U file has a form other than `_`,
    else "no forms", or "no words" where it has no word at all (read up to the
    first form: the first word, in a treebank with its text)."""
    words = False
    for fields in _word_fields(path):
        if fields[1] != "_":
            return "forms"
        words = True
    return "no forms" if words else "no words"


@lru_cache(maxsize=None)
def _has_lemmas(path: Path) -> bool:
    """Whether any word of the CoNLL-U file has a lemma (read once per file:
    `convert`'s note and train_and_score.py's overrides both ask)."""
    return any(fields[2] != "_" for fields in _word_fields(path))


@lru_cache(maxsize=None)
def spacy_language(code: str) -> str:
    """`code` where spaCy has a language class for it that builds spaCy's
    components as spaCy's own factories do, else `xx`."""
    from spacy.util import get_lang_class

    try:
        get_lang_class(code)
    except (ImportError, KeyError):  # E048: no such module in spacy.lang
        return MULTI_LANGUAGE
    return MULTI_LANGUAGE if own_components(code) or own_tokenizer_settings(code) else code


@lru_cache(maxsize=None)
def own_tokenizer_settings(code: str) -> Tuple[str, ...]:
    """The settings spaCy's class for `code` gives `[initialize.tokenizer]`
    (Chinese's pkuseg_model and pkuseg_user_dict): the configs' tokenizer, the
    treebank's, takes none of them, so a pipeline cannot be initialised in that class."""
    from spacy.util import get_lang_class

    settings = get_lang_class(code).default_config.get("initialize", {}).get("tokenizer", {})
    return tuple(sorted(settings))


@lru_cache(maxsize=None)
def own_components(code: str) -> Tuple[str, ...]:
    """The components that spaCy's class for `code` builds with a factory of
    its own taking other settings than spaCy's factory of the name (Japanese's
    morphologizer has no label_smoothing): a config that sets them cannot be
    built in that class."""
    from spacy.language import Language
    from spacy.util import get_lang_class, registry

    _register_factories()
    lang_class = get_lang_class(code)
    prefix = f"{lang_class.lang}."
    found = []
    for internal in sorted(registry.factories.get_all()):
        name = internal[len(prefix):]
        if not internal.startswith(prefix) or not Language.has_factory(name):
            continue
        generic = Language.get_factory_meta(name).default_config
        if set(lang_class.get_factory_meta(name).default_config) != set(generic):
            found.append(name)
    return tuple(found)


def sets_lemmas(factory: str) -> bool:
    """Whether the component a factory (spaCy's or this package's) makes sets lemmas."""
    from spacy.language import Language

    _register_factories()
    return "token.lemma" in Language.get_factory_meta(factory).assigns


@lru_cache(maxsize=None)
def _register_factories() -> None:
    """spaCy's factories and this package's, registered (spaCy registers its own
    on first use)."""
    import spacy

    from .. import components  # noqa: F401

    spacy.blank(MULTI_LANGUAGE)


def language_note(treebank: UDTreebank) -> str:
    """One line on the language the pipeline is built for."""
    if treebank.lang == treebank.code:
        return f"{treebank.name}: language {treebank.code!r} (spaCy's class for it)"
    learns = (f"the pipeline is built as {MULTI_LANGUAGE!r} (multi-language), which learns the "
              "treebank's tokens, sentences and tags the same way")
    try:
        own, settings = own_components(treebank.code), own_tokenizer_settings(treebank.code)
    except (ImportError, KeyError):
        return f"{treebank.name}: spaCy has no language class for {treebank.code!r}; {learns}"
    reasons = ([f"builds its own {', '.join(own)}, which takes other settings than spaCy's "
                "(the configs set them)"] if own else []) + (
               [f"initialises its own tokenizer with {', '.join(settings)}, which the "
                "treebank's tokenizer does not take"] if settings else [])
    return f"{treebank.name}: spaCy's class for {treebank.code!r} {' and '.join(reasons)}; {learns}"


def treebank_notes(treebank: UDTreebank) -> List[str]:
    """What `convert` and train_and_score.py say of the treebank: the language
    its pipeline is built in, how its splits were made where its folder lacks
    them, and where its words have no lemmas, what training does about it."""
    notes = [language_note(treebank), *treebank.derived]
    if not treebank.has_lemmas():
        notes.append(f"{treebank.name}: its training words have no lemmas (`_`); the pipeline "
                     "is trained without the components that set lemmas (train_and_score.py "
                     "and the project leave them out of nlp.pipeline; do so with spacy train) "
                     "and writes `_`")
    return notes
