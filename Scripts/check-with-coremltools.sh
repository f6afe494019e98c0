#!/usr/bin/env bash
# Writes models with OpenCoreML (every fixture converted to .mlmodel and .mlmodelc, the demo's LeNet
# declared with the OpenCoreMLTools DSL, the DSL tests' models, the model-editing commands' output, and
# OpenCreateML's built-in feature extractor with image classifiers exported on it, and an activity
# classifier, OpenCreateML's tabular tree and linear models, every ML Program fixture written back as an .mlpackage)
# and checks them with coremltools: conversions must read back equal to the originals.
# Needs Python 3; creates .venv-coremltools/ with coremltools 9.0 the first time.
set -euo pipefail
cd "$(dirname "$0")/.."

. Scripts/coremltools-venv.sh

swift build --product opencoreml
bin="$(swift build --show-bin-path)/opencoreml"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/mlmodel" "$out/mlmodelc" "$out/demo" "$out/knn" "$out/tools"
for model in Tests/Fixtures/models/*.mlmodel; do
  name="$(basename "$model" .mlmodel)"
  "$bin" convert "$model" "$out/mlmodelc/$name.mlmodelc" > /dev/null
  "$bin" convert "$out/mlmodelc/$name.mlmodelc" "$out/mlmodel/$name.mlmodel" > /dev/null
done
"$bin" demo --output "$out/demo" --epochs 1 --examples 256 --test-examples 64 > /dev/null 2>&1

# The seeds' personalization pipeline (frozen extractor + empty k-NN) trained on three gestures, and
# k-NN samples removed again: what coremltools must read back.
"$venv/bin/python" - "$out/knn/gestures.csv" <<'PY'
import sys
import numpy as np
rng = np.random.RandomState(5)
rows = []
for i in range(12):
    label = i % 3
    image = rng.uniform(0, 40, size=(28, 28))
    image[2 + 10 * label:12 + 10 * label, 4:14] += 200
    rows.append(",".join([str(label)] + [str(int(v)) for v in image.ravel()]))
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
"$bin" train Tests/Fixtures/models/pipeline_knn.mlmodel --data "$out/knn/gestures.csv" \
  --class-names "✊,✋,✌️" --output "$out/knn/personal.mlmodel" > /dev/null 2>&1
"$bin" knn remove "$out/knn/personal.mlmodel" --label "✋" --index 0 --output "$out/knn/fewer.mlmodel" > /dev/null
"$bin" knn remove Tests/Fixtures/models/knn_kdtree_int64.mlmodel --label 300 --output "$out/knn/kdtree_fewer.mlmodel" > /dev/null

# OpenCreateML: the built-in feature extractor (float16 weights) and an image classifier exported on it,
# trained on small generated pictures.
mkdir -p "$out/createml"
cp Sources/OpenCreateML/Resources/EfficientNetLite0Features.mlmodel "$out/createml/"
"$venv/bin/python" - "$out/createml/pictures" <<'PY'
import os, struct, sys, zlib
import numpy as np
rng = np.random.RandomState(7)
for label, colour in (("red", (200, 40, 40)), ("blue", (40, 60, 210))):
    os.makedirs(os.path.join(sys.argv[1], label))
    for i in range(3):
        pixels = np.clip(np.array(colour) + rng.randint(-30, 30, size=(32, 32, 3)), 0, 255).astype(np.uint8)
        raw = b"".join(b"\x00" + row.tobytes() for row in pixels)
        chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        with open(os.path.join(sys.argv[1], label, f"{i}.png"), "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 32, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
PY
"$bin" image-classifier train "$out/createml/pictures" --cache "$out/createml/cache" --output "$out/createml/colours.mlmodel" > /dev/null 2>&1
"$bin" image-classifier train "$out/createml/pictures" --algorithm knn --cache "$out/createml/cache" \
  --output "$out/createml/colours_knn.mlmodel" > /dev/null 2>&1
rm -rf "$out/createml/pictures" "$out/createml/cache"
# The activity classifier that `activity-classifier train` wrote for the GestureIt test (Turi Create's
# interface: optional LSTM state, updatable).
cp Tests/OpenCoreMLCodeGenTests/Models/GestureClassifier.mlmodel "$out/createml/"

# OpenCoreMLTools: the models its tests declare with the DSL or make by surgery, then the editing commands.
OPENCOREML_DSL_MODELS="$out/tools" swift test --filter OpenCoreMLToolsTests > "$out/tools-tests.log" 2>&1 \
  || { tail -n 30 "$out/tools-tests.log"; echo "FAIL: OpenCoreMLToolsTests"; exit 1; }
fixtures=Tests/Fixtures/models
"$bin" strip-classifier "$fixtures/lenet_updatable.mlmodel" --output-blob relu3_out --output-name features \
  --output "$out/tools/cli_lenet_features.mlmodel" > /dev/null
"$bin" make-updatable "$out/tools/cli_lenet_features.mlmodel" --layers dense1 --loss mse --optimizer adam --epochs 5 \
  --output "$out/tools/cli_lenet_features_updatable.mlmodel" > /dev/null
"$bin" strip-classifier "$fixtures/classifier_sgd.mlmodel" --output-blob relu1_out --output "$out/tools/cli_iris_features.mlmodel" > /dev/null
"$bin" make-updatable "$fixtures/classifier_sgd.mlmodel" --layers dense2 --loss cross-entropy --optimizer sgd \
  --learning-rate 0.05 --batch-size 16 --seed 3 --output "$out/tools/cli_iris_updatable.mlmodel" > /dev/null
"$bin" pipeline "$out/tools/cli_lenet_features.mlmodel" "$out/tools/dsl_knn_500.mlmodel" --names features,knn \
  --output "$out/tools/cli_pipeline.mlmodel" > /dev/null

"$venv/bin/python" Tests/Fixtures/check_coremltools.py --compare Tests/Fixtures/models "$out/mlmodel" "$out/mlmodelc"
"$venv/bin/python" Tests/Fixtures/check_coremltools.py "$out/demo"
"$venv/bin/python" Tests/Fixtures/check_coremltools.py "$out/knn"
"$venv/bin/python" Tests/Fixtures/check_coremltools.py "$out/tools"
"$venv/bin/python" Tests/Fixtures/check_coremltools.py "$out/createml"

# OpenCreateML's tabular trainers: the tree trainer tests' models (trees, random forests, decision
# trees; classifiers and regressors; String, Int and missing values) loaded and saved again by
# coremltools, then predicted by OpenCoreML (the Python package over libOpenCoreMLC) exactly as Swift's
# predictions(from:) did.
mkdir -p "$out/tabular"
OPENCOREML_TABULAR_MODELS="$out/tabular" swift test --filter TreeTrainerTests > "$out/tabular-tests.log" 2>&1 \
  || { tail -n 30 "$out/tabular-tests.log"; echo "FAIL: TreeTrainerTests"; exit 1; }
swift build --product OpenCoreMLC
PYTHONPATH=Python OPENCOREML_LIBRARY="$(swift build --show-bin-path)/libOpenCoreMLC.so" \
  "$venv/bin/python" Scripts/check-tabular-with-coremltools.py "$out/tabular"

# OpenCreateML's linear models on tables (MLLinearRegressor, MLLogisticRegressionClassifier; GLM
# pipelines with one-hot encoders, a vectorizer and an imputer), the same round trip.
mkdir -p "$out/linear"
OPENCOREML_LINEAR_MODELS="$out/linear" swift test --filter LinearTableTests > "$out/linear-tests.log" 2>&1 \
  || { tail -n 30 "$out/linear-tests.log"; echo "FAIL: LinearTableTests"; exit 1; }
PYTHONPATH=Python OPENCOREML_LIBRARY="$(swift build --show-bin-path)/libOpenCoreMLC.so" \
  "$venv/bin/python" Scripts/check-linear-with-coremltools.py "$out/linear"

# ML Program packages written by OpenCoreML: package → package and package → .mlmodel → package.
Scripts/check-mlpackages-with-coremltools.sh
