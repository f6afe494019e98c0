#!/usr/bin/env bash
# Writes models with OpenCoreML (every fixture converted to .mlmodel and .mlmodelc, plus the demo's
# LeNet) and checks that coremltools reads them back equal to the originals.
# Needs Python 3; creates .venv-coremltools/ with coremltools 9.0 the first time.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-coremltools
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check coremltools==9.0 numpy
fi

swift build --product opencoreml
bin="$(swift build --show-bin-path)/opencoreml"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/mlmodel" "$out/mlmodelc" "$out/demo"
for model in Tests/Fixtures/models/*.mlmodel; do
  name="$(basename "$model" .mlmodel)"
  "$bin" convert "$model" "$out/mlmodelc/$name.mlmodelc" > /dev/null
  "$bin" convert "$out/mlmodelc/$name.mlmodelc" "$out/mlmodel/$name.mlmodel" > /dev/null
done
"$bin" demo --output "$out/demo" --epochs 1 --examples 256 --test-examples 64 > /dev/null 2>&1

"$venv/bin/python" Tests/Fixtures/check_coremltools.py --compare Tests/Fixtures/models "$out/mlmodel" "$out/mlmodelc"
"$venv/bin/python" Tests/Fixtures/check_coremltools.py "$out/demo"
