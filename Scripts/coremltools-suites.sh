#!/usr/bin/env bash
# coremltools 9.0's own test suites (shipped in its wheel), predicting through OpenCoreML on Linux,
# and COMPATIBILITY.md from their results.
#
#   Scripts/coremltools-suites.sh [--sample N] [--sample SUITE=N ...] [--jobs N] [--resume] [--report FILE] [SUITE...]
#
# SUITE: mil-ops (the MIL operation tests, iOS14–iOS18), sklearn (scikit-learn 1.5.1 converters),
# xgboost (the XGBoost and tree converters), pipeline (scikit-learn and updatable pipelines),
# neural-network (the NeuralNetworkBuilder tests), torch (the PyTorch frontend, torch 2.13.0+cpu);
# default: all six. Each runs under `pytest -p opencoreml.pytest_plugin`, one JSON line per test in
# .build/coremltools-suites/SUITE.jsonl; then Scripts/coremltools_suites_report.py writes the report
# (default COMPATIBILITY.md). --sample N runs a fixed 1/N of every suite (the tests whose node id's
# CRC-32 is divisible by N); --sample SUITE=N of one suite. The torch suite's default is 1/16: its
# 24,000 tests would take most of a day on two cores. --jobs N runs N pytest processes side by side,
# each on a disjoint part of the tests; --resume keeps the results already in .build/coremltools-suites
# and runs only the tests they lack (after an interruption). Extra arguments for the report (such as
# `--require mil-ops=0.8`) go in REPORT_ARGS.
#
# The venv is Scripts/python-venv.sh's: coremltools 9.0 and what its suites need, and the opencoreml
# package from Python/ (which builds libOpenCoreMLC.so, or takes OPENCOREML_LIBRARY=/path/...so).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
arguments="$*"

declare -A sample=([mil-ops]=1 [sklearn]=1 [xgboost]=1 [pipeline]=1 [neural-network]=1 [torch]=16)
report="COMPATIBILITY.md"
jobs=1
resume=""
suites=()
while [ $# -gt 0 ]; do
    case "$1" in
        --sample)
            case "$2" in
                *=*) sample[${2%%=*}]="${2#*=}" ;;
                *) for suite in "${!sample[@]}"; do sample[$suite]="$2"; done ;;
            esac
            shift 2 ;;
        --report) report="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --resume) resume="--opencoreml-resume"; shift ;;
        mil-ops|sklearn|xgboost|pipeline|neural-network|torch) suites+=("$1"); shift ;;
        *) echo "coremltools-suites: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ ${#suites[@]} -gt 0 ] || suites=(mil-ops sklearn xgboost pipeline neural-network torch)

venv="$(Scripts/python-venv.sh)"

site="$("$venv/bin/python" -c 'import coremltools, os; print(os.path.dirname(coremltools.__file__))')"
out="$root/.build/coremltools-suites"
mkdir -p "$out"
# The tests write converted models to the working folder; keep them in a scratch folder.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for suite in "${suites[@]}"; do
    case "$suite" in
        mil-ops) path="$site/converters/mil/mil/ops/tests" ;;
        sklearn) path="$site/test/sklearn_tests" ;;
        xgboost) path="$site/test/xgboost_tests" ;;
        pipeline) path="$site/test/pipeline" ;;
        neural-network) path="$site/test/neural_network" ;;
        torch) path="$site/converters/mil/frontend/torch/test" ;;
    esac
    every="${sample[$suite]}"
    [ -n "$resume" ] || rm -f "$out/$suite.jsonl" "$out/$suite.log"
    echo "coremltools-suites: $suite (1/$every of $path, $jobs process(es))"
    started=$(date +%s)
    # pytest's exit status is the tests' (failures are the report's business); a crash of the
    # interpreter leaves no session line, which the report notices.
    for (( part = 0; part < jobs; part++ )); do
        mkdir -p "$work/$part"
        (cd "$work/$part" && "$venv/bin/python" -m pytest -q -p opencoreml.pytest_plugin \
            --opencoreml-report="$out/$suite.jsonl.part$part" --opencoreml-sample="$every" \
            --opencoreml-shard="$part/$jobs" $resume \
            -p no:cacheprovider --timeout=300 -o addopts="" -W ignore --continue-on-collection-errors \
            --rootdir="$site" "$path" > "$out/$suite.log.part$part" 2>&1) &
    done
    wait || true
    for (( part = 0; part < jobs; part++ )); do
        cat "$out/$suite.jsonl.part$part" >> "$out/$suite.jsonl" 2>/dev/null || true
        cat "$out/$suite.log.part$part" >> "$out/$suite.log"
        rm -f "$out/$suite.jsonl.part$part" "$out/$suite.log.part$part"
    done
    echo "coremltools-suites: $suite done in $(( $(date +%s) - started )) s; $(grep -E '(passed|failed)' "$out/$suite.log" | tail -n "$jobs" | tr '\n' ' ')"
done

# shellcheck disable=SC2086
"$venv/bin/python" Scripts/coremltools_suites_report.py --results "$out" --output "$report" \
    --command "Scripts/coremltools-suites.sh${arguments:+ $arguments}" \
    --library "$(git rev-parse --short HEAD 2>/dev/null || echo "(not a git checkout)")" ${REPORT_ARGS:-}
echo "coremltools-suites: wrote $report"
