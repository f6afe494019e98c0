#!/usr/bin/env bash
# The activity classifier's batchnorm statistics (BENCHMARKS.md, "Activity classifier: batchnorm
# statistics"): with the book's settings (prediction window 20, batch 32) on seglearn's smartwatch
# data, ours with each --batchnorm-statistics (recomputed: the default; bias-corrected;
# moving-average: Turi Create's recipe) and the PyTorch twin with Turi's moving averages and
# recomputed, at 10, 20 and 40 iterations: per-row test accuracy and the share of test windows
# whose top probability is above 0.9 (all, and the right ones). One table row per case and seed.
#
#   TORCH_PYTHON=/venv-with-torch/bin/python PYTHON=/venv-with-opencoreml/bin/python \
#     [ITERATIONS="10 20 40"] [TWIN=0] Scripts/bench-activity-statistics.sh [SEEDS…]
#
# Needs `swift build -c release --product opencoreml` and `--product OpenCoreMLC` first.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${OPENCOREML:-.build/release/opencoreml}
lib=${OPENCOREML_LIBRARY:-$PWD/.build/release/libOpenCoreMLC.so}
python=${PYTHON:-python3}
torch_python=${TORCH_PYTHON:-python3}
iterations=${ITERATIONS:-10 20 40}
twin=${TWIN:-1}
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(0)
data=.build/watch-data
[ -f "$data/watch-train.csv" ] || Scripts/make-watch-data.sh "$data" > /dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
columns=(--label-column exercise --session-column session)
echo "| iterations | seed | trainer | statistics | accuracy per row | windows > 0.9 | right windows > 0.9 |"
echo "|---|---|---|---|---|---|---|"
for n in $iterations; do
  for seed in "${seeds[@]}"; do
    for statistics in recomputed bias-corrected moving-average; do
      OMP_NUM_THREADS=2 "$bin" activity-classifier train "$data/watch-train.csv" --features ax,ay,az,wx,wy,wz "${columns[@]}" \
        --time-column time --prediction-window 20 --max-iterations "$n" --batch-size 32 --seed "$seed" --no-validation \
        --batchnorm-statistics "$statistics" --output "$work/m.mlmodel" > /dev/null 2>&1
      OPENCOREML_LIBRARY=$lib "$python" Scripts/activity_confidence.py "$work/m.mlmodel" "$data/watch-test.csv" "${columns[@]}" \
        | "$python" -c 'import json, sys; r = json.load(sys.stdin); print("| %s | %s | OpenCoreML | %s | %.2f %% | %.1f %% | %.1f %% |" % (sys.argv[1], sys.argv[2], sys.argv[3], 100 * r["test_accuracy_per_row"], 100 * r["test_windows_above_0_9"], 100 * r["test_correct_windows_above_0_9"]))' "$n" "$seed" "$statistics"
    done
    if [ "$twin" = 1 ]; then
      for statistics in recomputed moving-average; do
        "$torch_python" Scripts/activity_twin.py --train "$data/watch-train.csv" --test "$data/watch-test.csv" --features ax,ay,az,wx,wy,wz \
          "${columns[@]}" --time-column time --prediction-window 20 --epochs "$n" --batch-size 32 --threads 2 --seed "$seed" \
          --batchnorm-statistics "$statistics" --json | tail -1 \
          | "$python" -c 'import json, sys; r = json.load(sys.stdin); print("| %s | %s | twin | %s | %.2f %% | %.1f %% | %.1f %% |" % (sys.argv[1], sys.argv[2], sys.argv[3], 100 * r["test_accuracy_per_row"], 100 * r["test_windows_above_0_9"], 100 * r["test_correct_windows_above_0_9"]))' "$n" "$seed" "$statistics"
      done
    fi
  done
done
