#!/usr/bin/env bash
# The activity classifier's real data as long-format CSV: seglearn's smartwatch recordings (the
# seglearn 1.2.5 wheel ships them as seglearn/data/watch_dataset.npy; BSD-3): 140 recordings of a
# 6-axis IMU at 50 Hz, 7 shoulder exercises, 10 subjects. Writes OUT_DIR/watch-train.csv and
# OUT_DIR/watch-test.csv, split by subject (subjects 8, 9 and 10 are the test set), and prints a
# summary (Scripts/watch_to_csv.py says what the columns are).
#
#   Scripts/make-watch-csv.sh [OUT_DIR]
#
# OUT_DIR defaults to .build/activity. The wheel is downloaded once, without its dependencies, into
# .build/wheels and read with numpy from a venv at .build/venv-activity (made once). Nothing goes
# into git; running it again rewrites the same files.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-.build/activity}
venv=.build/venv-activity
wheels=.build/wheels
wheel=$wheels/seglearn-1.2.5-py3-none-any.whl

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import numpy' 2> /dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check numpy
fi
if [ ! -f "$wheel" ]; then
  mkdir -p "$wheels"
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps seglearn==1.2.5 -d "$wheels"
fi
mkdir -p "$out"
"$venv/bin/python" Scripts/watch_to_csv.py "$wheel" "$out"
