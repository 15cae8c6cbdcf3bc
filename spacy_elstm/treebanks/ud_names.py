"""What UD's file names say: `lzh_kyoto-ud-test.conllu` is treebank `kyoto` of
language `lzh` (an ISO 639 code of two or three letters), split `test`; a split
in parts names each after it (`cs_pdt-ud-train-ca.conllu`, `de_hdt-ud-train-a-1.conllu`)."""
import re
from pathlib import Path
from typing import Union

DEFAULT_LANGUAGE = "en"  # for files not named as UD names them (the project began with English)
# a treebank's files: `<code>_<name>-ud-<split>[-<part>].conllu`, the code and name lower case
UD_NAME = re.compile(r"(?P<stem>(?P<code>[a-z]{2,3})_(?P<name>[a-z0-9]+))-ud-")
UD_FILE = re.compile(UD_NAME.pattern
                     + r"(?P<split>train|dev|test)(?:-(?P<part>[a-z0-9]+(?:-[a-z0-9]+)*))?\.conllu")


def split_file_name(stem: str, split: str) -> str:
    """The file name UD gives split `split` (or `{split}`) of treebank `stem` (`lzh_kyoto`)."""
    return f"{stem}-ud-{split}.conllu"


def language_code(path: Union[str, Path]) -> str:
    """The language code of a treebank file named as UD names them (the part of
    the name before its first `_`); DEFAULT_LANGUAGE for any other name."""
    named = UD_NAME.match(Path(path).name)
    return named["code"] if named else DEFAULT_LANGUAGE
