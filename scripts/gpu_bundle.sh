#!/usr/bin/env bash
# Pack what a bare GPU machine lacks for scripts/gpu_check.sh into .gpu/ (ignored
# by git, carried to the machine): the CPython 3.12 manylinux wheels of spaCy,
# thinc and their dependencies that its image does not hold (docs/gpu.md, "The
# prepared device check"), and a wheel of this package, installed into one folder
# with their shared libraries stripped of debug symbols (spaCy's 35 MB wheel
# unpacks to 122 MB, 20 MB stripped), then tarred: .gpu/site.tar.gz. Also copies
# the converted corpus of the treebank (TREEBANK, UD_English-EWT by default, as the
# project's --vars.treebank) and the dev CoNLL-U file the check reads into .gpu/, with
# .gpu/corpus/treebank.env naming its files' stem and its language for the check.
#
#   bash scripts/gpu_bundle.sh        # needs PyPI (pip download) and corpus/<TREEBANK>/
#   TREEBANK=UD_Uyghur-UDT bash scripts/gpu_bundle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=3.12
TREEBANK=${TREEBANK:-UD_English-EWT}
# the treebank's files' stem (en_ewt), spaCy's language for it (xx where it has none) and
# its dev split (held out from train where the treebank has none: ud_splits)
read -r STEM NLP_LANG DEV < <(python -c "from spacy_elstm.treebanks.ud_folder import find_treebank as f
t = f('assets/$TREEBANK'); print(t.stem, t.lang, t.files['dev'])")
PLATFORMS=(manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_24_x86_64
           manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64)
# the versions of this machine's environment, for the packages the GPU image lacks
PACKAGES=(spacy thinc blis catalogue confection cymem murmurhash preshed srsly wasabi
          weasel cloudpathlib pydantic pydantic_core annotated-types typing-inspection
          spacy-legacy spacy-loggers conllu smart-open)
pins=()
for name in "${PACKAGES[@]}"; do
    version=$(python -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p')
    [ -n "$version" ] || { echo "gpu_bundle: $name is not installed here; install the project first." >&2; exit 1; }
    pins+=("$name==$version")
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
platform_args=()
for p in "${PLATFORMS[@]}"; do platform_args+=(--platform "$p"); done
python -m pip download --quiet --no-deps --only-binary=:all: --python-version "$PY" \
    --implementation cp "${platform_args[@]}" -d "$work/wheels" "${pins[@]}"
python -m pip wheel --quiet --no-deps -w "$work/wheels" .
python -m pip install --quiet --no-deps --no-compile --only-binary=:all: --python-version "$PY" \
    --implementation cp "${platform_args[@]}" --target "$work/site" "$work"/wheels/*.whl
find "$work/site" -name "*.so" -exec strip --strip-unneeded {} +
mkdir -p .gpu/corpus
tar -czf .gpu/site.tar.gz -C "$work/site" .
cp "corpus/$TREEBANK/$STEM-ud-train.spacy" "corpus/$TREEBANK/$STEM-ud-dev.spacy" .gpu/corpus/
cp "$DEV" assets/conll2018-eval/conll18_ud_eval.py .gpu/corpus/
printf 'STEM=%s\nNLP_LANG=%s\n' "$STEM" "$NLP_LANG" > .gpu/corpus/treebank.env
du -sh .gpu
