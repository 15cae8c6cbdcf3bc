"""Copy a trained pipeline and add the data licence before `spacy package`.

The pipeline's weights are derived from its treebank, so the packaged pipeline
carries the treebank's licence: UD English-EWT's CC BY-SA 4.0 (the default), or
with `--treebank ptb-sample` / `--treebank ptb` the Penn Treebank's terms
(non-commercial for NLTK's sample, the LDC's user agreement for the full WSJ),
or with `--treebank assets/UD_<Name>` any UD treebank's own LICENSE.txt (its
licence named in meta.json as the text names it, a Creative Commons licence
by its short name). The text is copied in as LICENSE (which `spacy package`
places at the package root) and meta.json names the licence and the treebank
as a source. The trained pipeline itself is left untouched so that the
project's `train` outputs stay as they were.

With --build DIR it then runs `spacy package ... --build wheel` into DIR; a UD
treebank's package is named `<lang>_<treebank>_<suffix>` (en_ewt_elstm;
xx_ug_udt_elstm, the language code kept where spaCy builds the pipeline as xx).

Usage:
    python scripts/prepare_package.py training/elstm_brnn/model-best \
        training/elstm_brnn/model-package assets/ud-ewt-sample/LICENSE.txt
    python scripts/prepare_package.py training/UD_Uyghur-UDT/raw_best_elstm/model-best \
        training/UD_Uyghur-UDT/raw_best_elstm/model-package --treebank assets/UD_Uyghur-UDT \
        --build packages/UD_Uyghur-UDT --package-suffix elstm --version 0.1.0
"""
import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

TREEBANK_SOURCE = {
    "name": "Universal Dependencies English Web Treebank (UD_English-EWT)",
    "url": "https://github.com/UniversalDependencies/UD_English-EWT",
    "license": "CC BY-SA 4.0",
    "author": "Silveira et al. (2014); Universal Dependencies contributors",
}
SOURCES = {
    "ud-ewt": TREEBANK_SOURCE,
    "ptb-sample": {
        "name": "Penn Treebank WSJ, NLTK's 10% sample (treebank, dependency_treebank)",
        "url": "https://github.com/nltk/nltk_data",
        "license": "LDC; non-commercial use only",
        "author": "Marcus, Santorini & Marcinkiewicz (1993); University of Pennsylvania",
    },
    "ptb": {
        "name": "Penn Treebank WSJ (Treebank-3, LDC99T42)",
        "url": "https://catalog.ldc.upenn.edu/LDC99T42",
        "license": "LDC User Agreement",
        "author": "Marcus, Santorini & Marcinkiewicz (1993); University of Pennsylvania",
    },
}
LICENSE_NAMES = {"ud-ewt": "CC BY-SA 4.0", "ptb-sample": "LDC; non-commercial use only",
                 "ptb": "LDC User Agreement"}
# Creative Commons licences by the words of their full names, most specific first
CC_ELEMENTS = (("NonCommercial-ShareAlike", "BY-NC-SA"), ("NonCommercial-NoDerivs", "BY-NC-ND"),
               ("NonCommercial", "BY-NC"), ("ShareAlike", "BY-SA"), ("NoDerivs", "BY-ND"),
               ("Attribution", "BY"))


def license_name(text: str) -> str:
    """The Creative Commons licence a licence text grants (`CC BY-NC-SA 3.0`),
    or a pointer to the text where it names none."""
    flat = re.sub(r"\s+", " ", text)
    for words, short in CC_ELEMENTS:
        match = re.search(rf"Attribution[- ]{words}(?: License)?(?: (\d\.\d))?" if words != "Attribution"
                          else r"Attribution(?: License)? (\d\.\d)", flat, re.IGNORECASE)
        if match:
            return f"CC {short}" + (f" {match.group(1)}" if match.group(1) else "")
    if re.search(r"non-?commercial", flat, re.IGNORECASE):
        return "non-commercial; see LICENSE"
    return "see LICENSE"


def ud_source(treebank) -> dict:
    """meta.json's source entry for a UD treebank's folder."""
    return {"name": f"Universal Dependencies {treebank.name}",
            "url": f"https://github.com/UniversalDependencies/{treebank.name}",
            "license": license_name(treebank.license.read_text(encoding="utf8")),
            "author": "Universal Dependencies contributors (see the treebank's README)"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path, help="trained pipeline directory (read only)")
    parser.add_argument("output", type=Path, help="directory to write, replaced if it exists")
    parser.add_argument("license", type=Path, nargs="?", default=None,
                        help="licence text of the training data (a UD folder's own by default)")
    parser.add_argument("--treebank", default="ud-ewt",
                        help=f"the training data: one of {', '.join(sorted(SOURCES))}, or a UD "
                             "treebank's folder (its LICENSE.txt and name)")
    parser.add_argument("--license-name", default=None,
                        help="the licence named in meta.json (default: the treebank's)")
    parser.add_argument("--build", type=Path, default=None,
                        help="then build a wheel of it with `spacy package` into this folder")
    parser.add_argument("--package-suffix", default="elstm",
                        help="with a UD folder: the package name's last part (default: elstm)")
    parser.add_argument("--version", default="0.1.0", help="the package's version")
    args = parser.parse_args(argv)
    name = None
    if args.treebank in SOURCES:
        source = SOURCES[args.treebank]
        license_text = args.license
        license_name_ = args.license_name or LICENSE_NAMES[args.treebank]
    else:
        from spacy_elstm.treebanks.ud_folder import TreebankFolderError, find_treebank

        try:
            treebank = find_treebank(args.treebank)
            license_text = args.license or treebank.license
        except TreebankFolderError as err:
            sys.exit(f"prepare_package.py: {err}")
        source = ud_source(treebank)
        license_name_ = args.license_name or source["license"]
        name = f"{treebank.package_stem()}_{args.package_suffix}"
    if license_text is None:
        sys.exit(f"prepare_package.py: --treebank {args.treebank} needs the licence file.")

    if args.output.exists():
        shutil.rmtree(args.output)
    shutil.copytree(args.pipeline, args.output)
    shutil.copyfile(license_text, args.output / "LICENSE")

    meta_path = args.output / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf8"))
    meta["license"] = license_name_
    if name:
        meta["name"] = name
    meta["version"] = args.version
    sources = [s for s in meta.get("sources") or [] if s.get("name") != source["name"]]
    meta["sources"] = [*sources, source]
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf8")
    print(f"{args.output}: pipeline copied, LICENSE and meta.json licence/sources set")
    if args.build is not None:
        args.build.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "spacy", "package", str(args.output), str(args.build),
                        "--build", "wheel", "--force"], check=True)


if __name__ == "__main__":
    main()
