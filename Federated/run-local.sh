#!/usr/bin/env bash
# A whole federation on this machine: a Flower SuperLink on loopback, the Flower app in
# Federated/flower-app (FedAvg) and N OpenCoreML clients (`opencoreml federated join`), each
# training on its share of the data; then the per-round table (and a chart) of the federated
# evaluation.
#
# Usage: Federated/run-local.sh [options]
#   --clients N          clients (default 3)
#   --rounds R           server rounds (default 3)
#   --model FILE         the initial updatable .mlmodel (default: the seeds' LeNet, written by
#                        `opencoreml demo --model-only`)
#   --data DATASET       as for `opencoreml train --data` (default generated-digits:6000; e.g.
#                        /usr/share/datasets/fashion-mnist)
#   --limit N            use the first N training examples of DATASET
#   --dirichlet ALPHA    non-IID shares (default IID)
#   --local-epochs E     epochs per round on each client (default 1)
#   --learning-rate LR   (default 0.001)
#   --batch-size B       (default: the model's)
#   --min-nodes M        FedAvg's minimum nodes per round (default: N)
#   --out DIR            where the history, the final model, the chart and the logs go
#                        (default federated-run)
#   --kill-client-after S  stop client 1 abruptly S seconds after it joined (robustness check)
#   --poll-interval S    how often the clients ask for instructions (default 0.1 s)
#   --app-poll-interval S  how often the app asks for the clients' replies (default 0.05 s: one
#                        request for all of them; 0: Flower's own grid, every 3 s)
#   --unpacked           send the arrays one per weight blob (run config packed=false), not
#                        packed into one
#   --profile            write timestamped phases: DIR/server-profile.jsonl (the ServerApp) and
#                        DIR/client-I-profile.jsonl (each client's `--profile`)
#   --server-nice N      run the SuperLink (and the ServerApp it starts) at niceness N (e.g. -5, as
#                        root: ahead of the clients and of other work, as a SuperLink on its own
#                        machine would be; default: as this script)
#
# Needs: a venv with flwr 1.41.0 and coremltools 9.0 (FLOWER_VENV, default .venv-flower):
#   python3 -m venv .venv-flower && .venv-flower/bin/pip install flwr==1.41.0 coremltools==9.0
# and the opencoreml tool (OPENCOREML, default: built here with `swift build -c release`).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

clients=3 rounds=3 model="" data="generated-digits:6000" limit="" dirichlet="" epochs=1 rate=0.001 batch=0
min_nodes="" out="federated-run" kill_after="" poll=0.1 app_poll=0.05 profile="" packed=true server_nice=""
while (( $# )); do
    case "$1" in
        --clients) clients="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        --model) model="$2"; shift 2 ;;
        --data) data="$2"; shift 2 ;;
        --limit) limit="$2"; shift 2 ;;
        --dirichlet) dirichlet="$2"; shift 2 ;;
        --local-epochs) epochs="$2"; shift 2 ;;
        --learning-rate) rate="$2"; shift 2 ;;
        --batch-size) batch="$2"; shift 2 ;;
        --min-nodes) min_nodes="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --kill-client-after) kill_after="$2"; shift 2 ;;
        --poll-interval) poll="$2"; shift 2 ;;
        --app-poll-interval) app_poll="$2"; shift 2 ;;
        --profile) profile=1; shift ;;
        --unpacked) packed=false; shift ;;
        --server-nice) server_nice="$2"; shift 2 ;;
        -h|--help) sed -n 2,36p "$0"; exit 0 ;;
        *) echo "error: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
min_nodes="${min_nodes:-$clients}"

venv="${FLOWER_VENV:-$ROOT/.venv-flower}"
if [[ ! -x "$venv/bin/flower-superlink" || ! -x "$venv/bin/flwr" ]]; then
    echo "error: no Flower in $venv; run: python3 -m venv $venv && $venv/bin/pip install flwr==1.41.0 coremltools==9.0" >&2
    exit 1
fi
if [[ -z "${OPENCOREML:-}" ]]; then
    (cd "$ROOT" && swift build -c release --product opencoreml >&2)
    OPENCOREML="$(cd "$ROOT" && swift build -c release --show-bin-path)/opencoreml"
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

if [[ -z "$model" ]]; then
    "$OPENCOREML" demo --model-only --output "$work/lenet" > /dev/null
    model="$work/lenet/LeNet.mlmodel"
fi
model="$(cd "$(dirname "$model")" && pwd)/$(basename "$model")"

# A free port: since flwr 1.41 the SuperLink serves the Fleet, Control and runtime APIs over HTTP
# on one port.
port="$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

export PATH="$venv/bin:$PATH" FLWR_HOME="$work/flwr-home"
mkdir -p "$FLWR_HOME"
cat > "$FLWR_HOME/config.toml" <<EOF
[superlink]
default = "local-opencoreml"

[superlink.local-opencoreml]
address = "127.0.0.1:$port"
insecure = true
EOF

echo "SuperLink on 127.0.0.1:$port (log: $out/superlink.log)"
superlink=(flower-superlink --insecure --host 127.0.0.1 --port "$port" --disable-runtime-dependency-installation)
[[ -n "$server_nice" ]] && superlink=(nice -n "$server_nice" "${superlink[@]}")
(cd "$work" && exec "${superlink[@]}") \
    > "$out/superlink.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
    grep -q "Uvicorn running" "$out/superlink.log" 2>/dev/null && break
    sleep 0.5
done
grep -q "Uvicorn running" "$out/superlink.log" || { echo "error: the SuperLink did not start; see $out/superlink.log" >&2; exit 1; }

join_options=(--superlink "127.0.0.1:$port" --insecure --max-idle 600 --max-wait 30 --poll-interval "$poll")
[[ -n "$limit" ]] && join_options+=(--limit "$limit")
[[ -n "$dirichlet" ]] && join_options+=(--dirichlet "$dirichlet")
rm -f "$out"/*profile.jsonl
client_profiles=""
if [[ -n "$profile" ]] && "$OPENCOREML" federated join --help 2>/dev/null | grep -q -- "--profile"; then client_profiles=1; fi
for i in $(seq 1 "$clients"); do
    client_options=()
    [[ -n "$client_profiles" ]] && client_options=(--profile "$out/client-$i-profile.jsonl")
    "$OPENCOREML" federated join "$model" --data "$data" --partition "$i/$clients" "${join_options[@]}" "${client_options[@]}" > "$out/client-$i.log" 2>&1 &
    pids+=($!)
    echo "client $i/$clients: pid $! (log: $out/client-$i.log)"
    if [[ "$i" == 1 ]]; then client1=$!; fi
done
if [[ -n "$kill_after" ]]; then
    (sleep "$kill_after" && kill -9 "$client1" 2>/dev/null && echo "killed client 1 (kill -9) after $kill_after s") &
    pids+=($!)
fi

rm -f "$out/history.json" "$out/final.mlmodel"
config="num-server-rounds=$rounds model=\"$model\" min-nodes=$min_nodes local-epochs=$epochs learning-rate=$rate batch-size=$batch history=\"$out/history.json\" output=\"$out/final.mlmodel\" poll-interval=$app_poll packed=$packed"
[[ -n "$profile" ]] && config+=" profile=\"$out/server-profile.jsonl\""
echo "flwr run: $config"
flwr run "$ROOT/Federated/flower-app" local-opencoreml --run-config "$config" --stream > "$out/run.log" 2>&1 || {
    echo "error: flwr run failed; see $out/run.log" >&2
    tail -n 20 "$out/run.log" >&2
    exit 1
}
# CPU seconds of the Flower processes (the SuperLink, the ServerApp it started) and the clients, for the profile.
ps -eo pid,ppid,times,args | awk -v sl="${pids[0]}" 'NR == 1 || $1 == sl || $2 == sl || /federated join/' | grep -v awk > "$out/cpu.txt" || true
[[ -f "$out/history.json" ]] || { echo "error: the app wrote no history; see $out/run.log and $out/superlink.log" >&2; exit 1; }
if [[ ! -f "$out/final.mlmodel" ]]; then
    "$OPENCOREML" federated report "$out/history.json" || true
    echo "error: the app wrote no final model; see $out/run.log:" >&2
    grep -E "ERROR|Error|error" "$out/run.log" | tail -n 5 >&2
    exit 1
fi

"$OPENCOREML" federated report "$out/history.json" --chart "$out/rounds.png"
echo "Final global model: $out/final.mlmodel"
