#!/usr/bin/env bash
# Federated LeNet on Fashion-MNIST (BENCHMARKS.md "Federated training"): 3 OpenCoreML clients with
# equal IID shards (20,000 training examples each), then with Dirichlet(0.5) shards, FedAvg, 1 local
# epoch per round, 10 rounds; against centralized training of the same model for the same number of
# epochs, in the same run. Prints a table: accuracy, and the mean round split into local training
# and Flower overhead (everything else: pulling, unpacking, packing, pushing, aggregating, polling).
#
# Usage: Scripts/bench-federated.sh [ROUNDS] (default 10)
# Needs: /usr/share/datasets/fashion-mnist (apt-get install dataset-fashion-mnist) and a venv with
# flwr 1.41.0 and coremltools 9.0 (FLOWER_VENV, default .venv-flower).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-10}"
data="${FASHION_MNIST:-/usr/share/datasets/fashion-mnist}"
rate=0.001
out="$ROOT/.build/bench-federated"
venv="${FLOWER_VENV:-$ROOT/.venv-flower}"
[[ -d "$data" ]] || { echo "error: no Fashion-MNIST at $data (apt-get install dataset-fashion-mnist)" >&2; exit 1; }

(cd "$ROOT" && swift build -c release --product opencoreml >&2)
export OPENCOREML="$(cd "$ROOT" && swift build -c release --show-bin-path)/opencoreml"
export FLOWER_VENV="$venv"
rm -rf "$out" && mkdir -p "$out"

# Centralized: the same LeNet, the same learning rate, as many epochs as rounds.
"$OPENCOREML" demo --model-only --output "$out/central" > /dev/null
start=$(date +%s.%N)
"$OPENCOREML" train "$out/central/LeNet.mlmodel" --data "$data" --epochs "$rounds" --learning-rate "$rate" \
    --output "$out/central/trained.mlmodel" > "$out/central/train.log" 2>&1
end=$(date +%s.%N)
"$OPENCOREML" evaluate "$out/central/trained.mlmodel" --data "$data" --split test --json > "$out/central/evaluation.json"
echo "$start $end" > "$out/central/seconds"

for mode in iid dirichlet; do
    extra=()
    [[ "$mode" == dirichlet ]] && extra=(--dirichlet 0.5)
    "$ROOT/Federated/run-local.sh" --data "$data" --clients 3 --rounds "$rounds" --local-epochs 1 \
        --learning-rate "$rate" --out "$out/$mode" "${extra[@]}" > "$out/$mode.log" 2>&1 || {
        echo "error: the $mode federation failed; see $out/$mode.log" >&2; tail -n 20 "$out/$mode.log" >&2; exit 1; }
done

"$venv/bin/python" - "$out" "$rounds" <<'EOF'
import json, re, sys, statistics
out, rounds = sys.argv[1], int(sys.argv[2])
central = json.load(open(f"{out}/central/evaluation.json"))
accuracy = central.get("accuracy")
start, end = map(float, open(f"{out}/central/seconds").read().split())
print(f"| setting | test accuracy | round (s) | local training (s) | Flower overhead (s) | overhead share |")
print(f"|---|---:|---:|---:|---:|---:|")
print(f"| centralized, {rounds} epochs on 60,000 | {100 * accuracy:.2f} % | {(end - start) / rounds:.1f} per epoch | | | |")
for mode in ("iid", "dirichlet"):
    history = json.load(open(f"{out}/{mode}/history.json"))["rounds"]
    training = {}
    for client in (1, 2, 3):
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
    label = "3 clients IID" if mode == "iid" else "3 clients Dirichlet α=0.5"
    final = history[-1]["accuracy"]
    mean_round, mean_local, mean_over = statistics.mean(per_round), statistics.mean(local), statistics.mean(overhead)
    print(f"| {label}, {rounds} rounds × 1 epoch | {100 * final:.2f} % | {mean_round:.1f} | {mean_local:.1f} | {mean_over:.2f} | {100 * mean_over / mean_round:.1f} % |")
EOF
