#!/usr/bin/env bash
# The activity classifier's real data: seglearn's smartwatch set (seglearn 1.2.5 ships it in its
# wheel as seglearn/data/watch_dataset.npy; BSD-3): 140 recordings of a 6-axis IMU at 50 Hz, 7
# shoulder exercises, 10 subjects. Writes it as the long-format CSV `opencoreml activity-classifier`
# reads, split by subject (subjects 9 and 10 are the test set), into OUT_DIR (default
# .build/watch-data): watch-train.csv and watch-test.csv. Nothing is committed: the wheel is
# downloaded (without its dependencies) into .build/watch-data/wheel and read with numpy.
#
#   Scripts/make-watch-data.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/watch-data}
venv=.build/venv-watch
mkdir -p "$out/wheel"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check numpy
fi
if ! ls "$out"/wheel/seglearn-1.2.5-*.whl > /dev/null 2>&1; then
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps seglearn==1.2.5 -d "$out/wheel"
fi
"$venv/bin/python" Scripts/watch_dataset_to_csv.py "$out"/wheel/seglearn-1.2.5-*.whl "$out"
