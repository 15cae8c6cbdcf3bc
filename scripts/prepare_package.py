"""Copy a trained pipeline and add the data licence before `spacy package`.

The pipeline's weights are derived from UD English-EWT, which is distributed
under CC BY-SA 4.0, so the packaged pipeline carries that licence: the text is
copied in as LICENSE (which `spacy package` places at the package root) and
meta.json names the licence and the treebank as a source. The trained pipeline
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path, help="trained pipeline directory (read only)")
    parser.add_argument("output", type=Path, help="directory to write, replaced if it exists")
    parser.add_argument("license", type=Path, help="licence text of the training data")
    parser.add_argument("--license-name", default="CC BY-SA 4.0")
    args = parser.parse_args(argv)

    if args.output.exists():
        shutil.rmtree(args.output)
    shutil.copytree(args.pipeline, args.output)
    shutil.copyfile(args.license, args.output / "LICENSE")

    meta_path = args.output / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf8"))
    meta["license"] = args.license_name
    sources = [s for s in meta.get("sources") or [] if s.get("name") != TREEBANK_SOURCE["name"]]
    meta["sources"] = [*sources, TREEBANK_SOURCE]
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf8")
    print(f"{args.output}: pipeline copied, LICENSE and meta.json licence/sources set")


if __name__ == "__main__":
    main()
