#!/usr/bin/env bash
# Runs every LeNet benchmark row of BENCHMARKS.md — OpenCoreML and its TensorFlow peer one after
# the other in the same session, on the same data — and prints the table (Markdown).
#
# usage: Scripts/bench-all.sh
# environment (all optional):
#   DATA=/usr/share/datasets/fashion-mnist   MNIST-format IDX folder (apt-get install dataset-fashion-mnist)
#   PYTHON=/work/tools/venv/bin/python       a Python with tensorflow-cpu 2.21
#   EPOCHS=10                                training epochs of the main row (speed, accuracy, memory)
#   SCALING_EPOCHS=3                         epochs of each 1-thread / 2-thread run
#   EXAMPLES=                                use only the first N training examples (quick runs)
#   TASKS=100                                update tasks in the memory row
#   REPEATS=1                                run the whole set this many times (medians are taken)
#   OUT=                                     folder for the JSON reports (default: a temporary one)
set -euo pipefail
cd "$(dirname "$0")/.."

DATA=${DATA:-/usr/share/datasets/fashion-mnist}
PYTHON=${PYTHON:-/work/tools/venv/bin/python}
EPOCHS=${EPOCHS:-10}
SCALING_EPOCHS=${SCALING_EPOCHS:-3}
EXAMPLES=${EXAMPLES:-}
TASKS=${TASKS:-100}
REPEATS=${REPEATS:-1}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"

swift build -c release --product opencoreml >&2
BIN=.build/release/opencoreml
ours_limit=()
tf_limit=()
if [[ -n "$EXAMPLES" ]]; then
    ours_limit=(--examples "$EXAMPLES")
    tf_limit=(--limit "$EXAMPLES")
fi

# Runs a command, its JSON report to $OUT/NAME.json.
run() {
    local name=$1
    shift
    echo "· $name: $*" >&2
    "$@" > "$OUT/$name.json"
}

export TF_CPP_MIN_LOG_LEVEL=2
for repeat in $(seq 1 "$REPEATS"); do
    r="r$repeat"
    run "$r-ours-train" "$BIN" bench lenet --data "$DATA" "${ours_limit[@]}" --epochs "$EPOCHS" --threads 2 --json
    run "$r-tf-train" "$PYTHON" Scripts/bench_lenet_tf.py --data "$DATA" "${tf_limit[@]}" --epochs "$EPOCHS" --threads 2 --json
    for threads in 1 2; do
        run "$r-ours-threads$threads" "$BIN" bench lenet --data "$DATA" "${ours_limit[@]}" --epochs "$SCALING_EPOCHS" --threads "$threads" --json
        run "$r-tf-threads$threads" "$PYTHON" Scripts/bench_lenet_tf.py --data "$DATA" "${tf_limit[@]}" --epochs "$SCALING_EPOCHS" --threads "$threads" --json
    done
    run "$r-ours-inference" "$BIN" bench lenet-inference --data "$DATA" --threads 2 --json
    run "$r-tf-inference" "$PYTHON" Scripts/bench_lenet_tf.py --data "$DATA" --inference --threads 2 --json
    run "$r-ours-tasks" "$BIN" bench update-tasks --count "$TASKS" --json
done

"$PYTHON" Scripts/bench_lenet_table.py "$OUT" --epochs "$EPOCHS" --scaling-epochs "$SCALING_EPOCHS" --tasks "$TASKS"
echo "(JSON reports in $OUT)" >&2
