#!/usr/bin/env bash
# The activity classifier against its peer, in one run (BENCHMARKS.md, "Activity classifier"):
# `opencoreml activity-classifier train` and Scripts/bench_activity_peer.py (Keras, TensorFlow 2.21
# CPU) train Turi Create's network on seglearn's smartwatch data (Scripts/make-watch-data.sh: 8
# subjects for training, 2 for the test), same prediction window, epochs, batch size and threads,
# no validation, for each seed; then each model's test accuracy per row. Prints one table row per
# seed and the medians, with the ratio of seconds per epoch (median of epochs 2…N).
#
#   PYTHON=/path/to/venv-with-tensorflow/bin/python Scripts/bench-activity.sh [SEEDS…]
#
# Needs `swift build -c release --product opencoreml` first ($OPENCOREML overrides the binary) and a
# Python with tensorflow-cpu==2.21.0 ($PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${OPENCOREML:-.build/release/opencoreml}
python=${PYTHON:-python3}
window=${WINDOW:-50}
epochs=${EPOCHS:-10}
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(0 1 2)
data=.build/watch-data
[ -f "$data/watch-train.csv" ] || Scripts/make-watch-data.sh "$data" > /dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
columns=(--label-column exercise --session-column session --time-column time)

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '| seed | OpenCoreML s/epoch | Keras s/epoch | ratio | OpenCoreML test accuracy per row | Keras test accuracy per row |\n|---|---|---|---|---|---|\n'
for seed in "${seeds[@]}"; do
  OMP_NUM_THREADS=2 "$bin" activity-classifier train "$data/watch-train.csv" --features ax,ay,az,wx,wy,wz "${columns[@]}" \
    --prediction-window "$window" --max-iterations "$epochs" --batch-size 32 --seed "$seed" --no-validation \
    --log "$work/log.jsonl" --output "$work/watch.mlmodel" > /dev/null 2>&1
  ours_seconds=$(tail -n +2 "$work/log.jsonl" | sed 's/.*"seconds":\([0-9.e-]*\).*/\1/' | median)
  ours_accuracy=$("$bin" activity-classifier evaluate "$work/watch.mlmodel" "$data/watch-test.csv" "${columns[@]}" --json \
    | "$python" -c 'import json, sys; print(json.load(sys.stdin)["perRow"]["accuracy"])')
  peer=$("$python" Scripts/bench_activity_peer.py --train "$data/watch-train.csv" --test "$data/watch-test.csv" \
    --features ax,ay,az,wx,wy,wz "${columns[@]}" --prediction-window "$window" --epochs "$epochs" --batch-size 32 --threads 2 \
    --seed "$seed" --json 2>/dev/null | tail -1)
  peer_seconds=$(echo "$peer" | "$python" -c 'import json, sys; print(json.load(sys.stdin)["seconds_per_epoch"])')
  peer_accuracy=$(echo "$peer" | "$python" -c 'import json, sys; print(json.load(sys.stdin)["test_accuracy_per_row"])')
  echo "$seed $ours_seconds $peer_seconds $ours_accuracy $peer_accuracy" >> "$work/rows"
  awk -v s="$seed" -v a="$ours_seconds" -v b="$peer_seconds" -v c="$ours_accuracy" -v d="$peer_accuracy" \
    'BEGIN { printf "| %s | %.3f | %.3f | %.2f× | %.2f %% | %.2f %% |\n", s, a, b, a / b, 100 * c, 100 * d }'
done
m() { awk -v k="$1" '{ print $k }' "$work/rows" | median; }
awk -v a="$(m 2)" -v b="$(m 3)" -v c="$(m 4)" -v d="$(m 5)" \
  'BEGIN { printf "| **median** | **%.3f** | **%.3f** | **%.2f×** | **%.2f %%** | **%.2f %%** |\n", a, b, a / b, 100 * c, 100 * d }'
