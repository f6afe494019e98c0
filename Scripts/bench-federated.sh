#!/usr/bin/env bash
# Federated LeNet on Fashion-MNIST (BENCHMARKS.md "Federated training"): N OpenCoreML clients (3 by
# default) with equal IID shards (60,000 / N training examples each), then with Dirichlet(0.5)
# shards, FedAvg, 1 local epoch per round, 10 rounds; against centralized training of the same model
# for the same number of epochs, in the same run. Prints a table: accuracy, and the mean round split
# into local training and Flower overhead (everything else: pulling, unpacking, packing, pushing,
# aggregating, polling); then each federation's per-phase profile of a round
# (Federated/profile_rounds.py) and the CPU seconds of the processes.
#
# Usage: Scripts/bench-federated.sh [ROUNDS] [CLIENTS] (default 10 rounds, 3 clients)
# Environment: OPENCOREML (a built opencoreml to use; default: a release build of this tree),
# BENCH_OUT (the folder for logs, default .build/bench-federated), CENTRAL=0 (skip the centralized peer), MODES ("iid dirichlet"), POLL (seconds, default
# run-local.sh's), FEDERATED_EXTRA (more run-local.sh options).
# Needs: /usr/share/datasets/fashion-mnist (apt-get install dataset-fashion-mnist) and a venv with
# flwr 1.41.0 and coremltools 9.0 (FLOWER_VENV, default .venv-flower).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-10}"
clients="${2:-3}"
data="${FASHION_MNIST:-/usr/share/datasets/fashion-mnist}"
rate=0.001
out="${BENCH_OUT:-$ROOT/.build/bench-federated}"
venv="${FLOWER_VENV:-$ROOT/.venv-flower}"
[[ -d "$data" ]] || { echo "error: no Fashion-MNIST at $data (apt-get install dataset-fashion-mnist)" >&2; exit 1; }

if [[ -z "${OPENCOREML:-}" ]]; then
    (cd "$ROOT" && nice -n 15 swift build -c release --product opencoreml >&2)
    OPENCOREML="$(cd "$ROOT" && swift build -c release --show-bin-path)/opencoreml"
fi
export OPENCOREML
export FLOWER_VENV="$venv"
rm -rf "$out" && mkdir -p "$out"

# Centralized: the same LeNet, the same learning rate, as many epochs as rounds.
if [[ "${CENTRAL:-1}" != 0 ]]; then
"$OPENCOREML" demo --model-only --output "$out/central" > /dev/null
start=$(date +%s.%N)
"$OPENCOREML" train "$out/central/LeNet.mlmodel" --data "$data" --epochs "$rounds" --learning-rate "$rate" \
    --output "$out/central/trained.mlmodel" > "$out/central/train.log" 2>&1
end=$(date +%s.%N)
"$OPENCOREML" evaluate "$out/central/trained.mlmodel" --data "$data" --split test --json > "$out/central/evaluation.json"
echo "$start $end" > "$out/central/seconds"
fi

modes="${MODES:-iid dirichlet}"
for mode in $modes; do
    extra=(--profile)
    [[ "$mode" == dirichlet ]] && extra+=(--dirichlet 0.5)
    [[ -n "${POLL:-}" ]] && extra+=(--poll-interval "$POLL")
    extra+=(${FEDERATED_EXTRA:-})
    "$ROOT/Federated/run-local.sh" --data "$data" --clients "$clients" --rounds "$rounds" --local-epochs 1 \
        --learning-rate "$rate" --out "$out/$mode" "${extra[@]}" > "$out/$mode.log" 2>&1 || {
        echo "error: the $mode federation failed; see $out/$mode.log" >&2; tail -n 20 "$out/$mode.log" >&2; exit 1; }
done

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$venv/bin/python" - "$out" "$rounds" "$clients" "$modes" <<'EOF'
import json, os, re, sys, statistics
out, rounds, clients, modes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split()
print(f"| setting | test accuracy | round (s) | local training (s) | Flower overhead (s) | overhead share |")
print(f"|---|---:|---:|---:|---:|---:|")
if os.path.exists(f"{out}/central/evaluation.json"):
    central = json.load(open(f"{out}/central/evaluation.json"))
    accuracy = central.get("accuracy")
    start, end = map(float, open(f"{out}/central/seconds").read().split())
    print(f"| centralized, {rounds} epochs on 60,000 | {100 * accuracy:.2f} % | {(end - start) / rounds:.1f} per epoch | | | |")
for mode in modes:
    history = json.load(open(f"{out}/{mode}/history.json"))["rounds"]
    training = {}
    for client in range(1, clients + 1):
        for line in open(f"{out}/{mode}/client-{client}.log"):
            m = re.search(r"round (\d+): trained on ([\d,]+) examples.*?, ([\d.]+) s training \+ ([\d.]+) s Flower", line)
            if m:
                training.setdefault(int(m.group(1)), []).append(float(m.group(3)))
            m = re.search(r"round (\d+): evaluated on .*?, ([\d.]+) s \+ ([\d.]+) s Flower", line)
            if m:
                training.setdefault(-int(m.group(1)), []).append(float(m.group(2)))
    per_round, local, overhead = [], [], []
    for entry in history:
        r = entry["round"]
        seconds = entry["seconds"]
        busy = max(training.get(r, [0])) + max(training.get(-r, [0]))
        per_round.append(seconds); local.append(busy); overhead.append(seconds - busy)
    label = f"{clients} clients IID" if mode == "iid" else f"{clients} clients Dirichlet α=0.5"
    final = history[-1]["accuracy"]
    mean_round, mean_local, mean_over = statistics.mean(per_round), statistics.mean(local), statistics.mean(overhead)
    print(f"| {label}, {rounds} rounds × 1 epoch | {100 * final:.2f} % | {mean_round:.1f} | {mean_local:.1f} | {mean_over:.2f} | {100 * mean_over / mean_round:.1f} % |")
EOF
for mode in $modes; do
    echo
    echo "$mode: a round's critical path (rounds 2 and later):"
    "$venv/bin/python" "$ROOT/Federated/profile_rounds.py" "$out/$mode"
    echo "CPU seconds:"; cat "$out/$mode/cpu.txt"
done
