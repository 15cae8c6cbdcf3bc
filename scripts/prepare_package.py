"""Copy a trained pipeline and add the data licence before `spacy package`.

The pipeline's weights are derived from its treebank, so the packaged pipeline
carries the treebank's licence: UD English-EWT's CC BY-SA 4.0 (the default), or
with `--treebank ptb-sample` / `--treebank ptb` the Penn Treebank's terms
(non-commercial for NLTK's sample, the LDC's user agreement for the full WSJ).
The text is copied in as LICENSE (which `spacy package` places at the package
root) and meta.json names the licence and the treebank as a source. The trained pipeline
itself is left untouched so that the project's `train` outputs stay as they were.

Usage:
    python scripts/prepare_package.py training/elstm_brnn/model-best \
        training/elstm_brnn/model-package assets/ud-ewt-sample/LICENSE.txt
"""
import argparse
import json
import shutil
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path, help="trained pipeline directory (read only)")
    parser.add_argument("output", type=Path, help="directory to write, replaced if it exists")
    parser.add_argument("license", type=Path, help="licence text of the training data")
    parser.add_argument("--treebank", choices=sorted(SOURCES), default="ud-ewt",
                        help="the training data, named as a source in meta.json")
    parser.add_argument("--license-name", default=None,
                        help="the licence named in meta.json (default: the treebank's)")
    args = parser.parse_args(argv)
    source = SOURCES[args.treebank]
    license_name = args.license_name or LICENSE_NAMES[args.treebank]

    if args.output.exists():
        shutil.rmtree(args.output)
    shutil.copytree(args.pipeline, args.output)
    shutil.copyfile(args.license, args.output / "LICENSE")

    meta_path = args.output / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf8"))
    meta["license"] = license_name
    sources = [s for s in meta.get("sources") or [] if s.get("name") != source["name"]]
    meta["sources"] = [*sources, source]
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf8")
    print(f"{args.output}: pipeline copied, LICENSE and meta.json licence/sources set")


if __name__ == "__main__":
    main()
