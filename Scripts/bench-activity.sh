#!/usr/bin/env bash
# The activity classifier against its peers, in one run (BENCHMARKS.md, "Activity classifier vs
# Keras and a PyTorch twin"): `opencoreml activity-classifier train`, Scripts/activity_twin.py (the
# PyTorch twin of Turi Create 6's network and training) and Scripts/bench_activity_peer.py (the
# same network in Keras, TensorFlow 2.21 CPU) train on seglearn's smartwatch data
# (Scripts/make-watch-data.sh: 8 subjects for training, 2 for the test), same prediction window,
# epochs, batch size and threads, no validation, for each seed; then each model's test accuracy per
# row. Prints one table row per seed (seconds per epoch: the median of epochs 2…N), then the medians
# and the means. With $BASELINE (an older opencoreml binary) its
# seconds per epoch and accuracy come first, in the same run.
#
#   PYTHON=/venv-with-tensorflow/bin/python TORCH_PYTHON=/venv-with-torch/bin/python \
#     [BASELINE=/path/to/old/opencoreml] [EPOCHS=40] [TWIN_THREADS=2] Scripts/bench-activity.sh [SEEDS…]
#
# TWIN_THREADS: the twin's torch threads (2, as ours and Keras; 1 where a loaded machine makes
# torch's two threads spin against each other — a seed's accuracy is the same either way).
#
# Needs `swift build -c release --product opencoreml` first ($OPENCOREML overrides the binary), a
# Python with tensorflow-cpu==2.21.0 ($PYTHON) and one with torch and numpy ($TORCH_PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${OPENCOREML:-.build/release/opencoreml}
python=${PYTHON:-python3}
torch_python=${TORCH_PYTHON:-python3}
baseline=${BASELINE:-}
window=${WINDOW:-50}
epochs=${EPOCHS:-40}
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(0 1 2 3 4)
data=.build/watch-data
[ -f "$data/watch-train.csv" ] || Scripts/make-watch-data.sh "$data" > /dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
columns=(--label-column exercise --session-column session --time-column time)
peer_args=(--train "$data/watch-train.csv" --test "$data/watch-test.csv" --features ax,ay,az,wx,wy,wz "${columns[@]}"
  --prediction-window "$window" --epochs "$epochs" --batch-size 32 --json)

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mean() { awk '{ s += $1 } END { print s / NR }'; }
field() { "$python" -c 'import json, sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])[sys.argv[1]])' "$1"; }

# ours BINARY SEED → "seconds accuracy"
ours() {
  OMP_NUM_THREADS=2 "$1" activity-classifier train "$data/watch-train.csv" --features ax,ay,az,wx,wy,wz "${columns[@]}" \
    --prediction-window "$window" --max-iterations "$epochs" --batch-size 32 --seed "$2" --no-validation \
    --log "$work/log.jsonl" --output "$work/watch.mlmodel" > /dev/null 2>&1
  local seconds accuracy
  seconds=$(tail -n +2 "$work/log.jsonl" | sed 's/.*"seconds":\([0-9.e-]*\).*/\1/' | median)
  accuracy=$("$1" activity-classifier evaluate "$work/watch.mlmodel" "$data/watch-test.csv" "${columns[@]}" --json \
    | "$python" -c 'import json, sys; print(json.load(sys.stdin)["perRow"]["accuracy"])')
  echo "$seconds $accuracy"
}

head='| seed |'; rule='|---|'
[ -n "$baseline" ] && { head+=' before s/epoch | before accuracy |'; rule+='---|---|'; }
head+=' OpenCoreML s/epoch | twin s/epoch | Keras s/epoch | OpenCoreML accuracy | twin accuracy | Keras accuracy |'
rule+='---|---|---|---|---|---|'
printf '%s\n%s\n' "$head" "$rule"
for seed in "${seeds[@]}"; do
  before="- -"
  [ -n "$baseline" ] && before=$(ours "$baseline" "$seed")
  now=$(ours "$bin" "$seed")
  twin=$("$torch_python" Scripts/activity_twin.py "${peer_args[@]}" --threads "${TWIN_THREADS:-2}" --seed "$seed" 2>/dev/null | tail -1)
  keras=$("$python" Scripts/bench_activity_peer.py "${peer_args[@]}" --threads 2 --seed "$seed" 2>/dev/null | tail -1)
  row="$seed $before $now $(echo "$twin" | field seconds_per_epoch) $(echo "$keras" | field seconds_per_epoch)"
  row+=" $(echo "$twin" | field test_accuracy_per_row) $(echo "$keras" | field test_accuracy_per_row)"
  echo "$row" >> "$work/rows"
  # columns: 1 seed, 2–3 before, 4 ours s, 5 ours acc, 6 twin s, 7 keras s, 8 twin acc, 9 keras acc
  echo "$row" | awk -v b="$baseline" '{ printf "| %s |", $1; if (b != "") printf " %.3f | %.2f %% |", $2, 100 * $3
    printf " %.3f | %.3f | %.3f | %.2f %% | %.2f %% | %.2f %% |\n", $4, $6, $7, 100 * $5, 100 * $8, 100 * $9 }'
done
for stat in median mean; do
  vals=()
  for k in 2 3 4 6 7 5 8 9; do vals+=("$(awk -v k=$k '{ print $k }' "$work/rows" | $stat)"); done
  printf '%s\n' "${vals[@]}" | awk -v b="$baseline" -v s="$stat" '{ v[NR] = $1 } END {
    printf "| **%s** |", s; if (b != "") printf " %.3f | %.2f %% |", v[1], 100 * v[2]
    printf " %.3f | %.3f | %.3f | %.2f %% | %.2f %% | %.2f %% |\n", v[3], v[4], v[5], 100 * v[6], 100 * v[7], 100 * v[8] }'
done
