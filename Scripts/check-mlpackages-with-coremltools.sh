#!/usr/bin/env bash
# Writes .mlpackage folders with OpenCoreML and checks them with coremltools: every ML Program
# fixture (Tests/Fixtures/mlprogram) converted package → package, and package → .mlmodel →
# package (its weights copied into the program, then moved back to a weight file). coremltools must
# open each one and read the same program and values (its own weight file reader included).
# Needs Python 3; creates .venv-coremltools/ with coremltools 9.0 the first time.
set -euo pipefail
cd "$(dirname "$0")/.."

. Scripts/coremltools-venv.sh

swift build --product opencoreml
bin="$(swift build --show-bin-path)/opencoreml"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
mkdir -p "$out/package" "$out/mlmodel" "$out/repackaged"
for package in Tests/Fixtures/mlprogram/*.mlpackage; do
  name="$(basename "$package" .mlpackage)"
  "$bin" convert "$package" "$out/package/$name.mlpackage" > /dev/null
  "$bin" convert "$package" "$out/mlmodel/$name.mlmodel" > /dev/null
  "$bin" convert "$out/mlmodel/$name.mlmodel" "$out/repackaged/$name.mlpackage" > /dev/null
done
"$venv/bin/python" Tests/Fixtures/mlprogram/check_mlpackages.py Tests/Fixtures/mlprogram "$out/package" "$out/repackaged"
