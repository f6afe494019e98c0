#!/usr/bin/env bash
# Builds a fuzz target with libFuzzer and AddressSanitizer and fuzzes it for a while, or replays
# inputs through it.
#
#   Fuzz/run.sh FuzzModel|FuzzData|FuzzTabular|FuzzCInput SECONDS [LIBFUZZER-FLAG ...]   fuzz for SECONDS (one process, one core)
#   Fuzz/run.sh FuzzModel|FuzzData|FuzzTabular|FuzzCInput replay FILE|DIR ...            run the target once on each input
#   Fuzz/run.sh FuzzModel|FuzzData|FuzzTabular|FuzzCInput minimize FILE OUT              shrink a reproducer that still fails
#   Fuzz/run.sh build                                             only build
#
# Fuzzing starts from the committed seeds (Fuzz/corpus/model, data, tabular or cinput) and writes new
# inputs only to a scratch corpus, Fuzz/.fuzz-work/TARGET/corpus (kept between runs; FUZZ_FRESH=1
# empties it first), so the committed corpus stays as it is. A finding (trap, sanitizer report,
# timeout over 10 s, more than 2 GB resident or a 1 GB allocation) makes the script exit 1 and
# print the reproducer's path and its base64. The last line, `fuzz-summary: ...`, gives the
# executions, corpus and coverage of the run (what FUZZING.md records).
#
# Environment: FUZZ_NO_BUILD=1 skips the build; FUZZ_CONFIGURATION=debug builds without
# optimization (slower, better stacks); FUZZ_KEEP_GOING=1 fuzzes on after findings (libFuzzer's
# fork mode with one job: still one core), collecting every reproducer, for long runs while known
# findings are unfixed.
set -euo pipefail
cd "$(dirname "$0")/.."

configuration="${FUZZ_CONFIGURATION:-release}"
scratch_build="Fuzz/.build-fuzz"
build() {
    # -sanitize=fuzzer instruments the Swift code (and links libFuzzer), -fsanitize=fuzzer-no-link
    # the C code (kernels, codecs); lld because gold trips over libFuzzer's `main` next to
    # SwiftPM's `--defsym main=<Target>_main`; that `main` runs and calls LLVMFuzzerRunDriver.
    swift build -c "$configuration" --package-path Fuzz --scratch-path "$scratch_build" \
        -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address \
        -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld "$@"
}

usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
if [ "$1" = build ]; then build; exit 0; fi
[ $# -ge 2 ] || usage
target="$1"; shift
case "$target" in
    FuzzModel) seeds=Fuzz/corpus/model; dict=(-dict=Fuzz/model.dict); max_len=65536 ;;
    FuzzData) seeds=Fuzz/corpus/data; dict=(); max_len=16384 ;;
    FuzzTabular) seeds=Fuzz/corpus/tabular; dict=(); max_len=8192 ;;
    FuzzCInput) seeds=Fuzz/corpus/cinput; dict=(); max_len=4096 ;;
    *) usage ;;
esac

[ "${FUZZ_NO_BUILD:-0}" = 1 ] || build
binary="$scratch_build/$configuration/$target"

# The engine's thread pool on one thread (one core for the whole run); hashing seeded the same
# in every process, so that a replay takes the same paths; no Swift backtracer, whose crash
# handler would read the process's memory after libFuzzer and AddressSanitizer have taken over.
export OPENCOREML_NUM_THREADS=1 SWIFT_DETERMINISTIC_HASHING=1 SWIFT_BACKTRACE=enable=no
# A small quarantine, and freed memory handed back to the system: after a long run libFuzzer's
# resident size is otherwise mostly what AddressSanitizer keeps (about 2 GB from a 5,000-unit model
# corpus, of which no single input takes more than 110 MB).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=0:handle_abort=1:handle_sigill=1:handle_sigtrap=1:quarantine_size_mb=16:allocator_release_to_os_interval_ms=500}"
limits=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024)

if [ "$1" = replay ]; then
    shift
    exec "$binary" "${limits[@]}" -runs=1 "$@"
fi

if [ "$1" = minimize ]; then
    [ $# -eq 3 ] || usage
    exec "$binary" "${limits[@]}" -minimize_crash=1 -runs="${FUZZ_MINIMIZE_RUNS:-20000}" \
        -exact_artifact_path="$3" "$2"
fi

seconds="$1"; shift
work="Fuzz/.fuzz-work/$target"
[ "${FUZZ_FRESH:-0}" = 1 ] && rm -rf "$work"
# Artifacts are per run: what an earlier run found was reported then (and belongs in Fuzz/findings/).
rm -rf "$work/artifacts"
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/fuzz.log"

mode=()
[ "${FUZZ_KEEP_GOING:-0}" = 1 ] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
status=0
timeout --kill-after=30 "$((seconds + 300))" \
    "$binary" "${limits[@]}" -max_len="$max_len" "${dict[@]}" -max_total_time="$seconds" \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" "${mode[@]}" "$@" \
    "$work/corpus" "$seeds" >"$log" 2>&1 || status=$?
# FuzzData's and FuzzTabular's scratch folders of processes that died on a finding.
rm -rf /dev/shm/opencoreml-fuzzdata-* /dev/shm/opencoreml-fuzztabular-* 2>/dev/null || true
# In fork mode libFuzzer exits 0 after ignored findings; what it wrote is what counts. A
# `slow-unit-*` file is libFuzzer's note of an input that took as long as the timeout without
# exceeding it: kept for a look, not a finding (a hang is a `timeout-*`).
if [ "$status" -eq 0 ] && [ -n "$(find "$work/artifacts" -type f ! -name 'slow-unit-*')" ]; then status=1; fi

# The final statistics: the last status line has cov/ft/corp (`#RUNS: cov: ...` in fork mode),
# print_final_stats the executions.
last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
[ -n "$runs" ] || runs="$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")"
cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
corp="$(sed -n 's/.* corp: \([0-9]*\(\/[0-9a-zA-Z]*\)\{0,1\}\).*/\1/p' <<<"$last")"
files="$(find "$work/corpus" "$seeds" -type f | wc -l)"
bytes="$(cat "$work/corpus"/* "$seeds"/* 2>/dev/null | wc -c)"

if [ "$status" -ne 0 ]; then
    echo "=== $target: libFuzzer exited with $status; the end of its log ($log):"
    if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then tail -n 20 "$log"; else tail -n 120 "$log"; fi
    found=0
    for artifact in "$work"/artifacts/*; do
        [ -f "$artifact" ] || continue
        case "$artifact" in */slow-unit-*) continue ;; esac
        found=1
        echo "=== reproducer: $artifact ($(wc -c <"$artifact") bytes); replay with: Fuzz/run.sh $target replay $artifact"
        echo "base64: $(base64 -w 0 "$artifact")"
    done
    [ "$found" = 1 ] || echo "=== no reproducer was written"
    echo "fuzz-summary: $target FAILED after ${runs:-?} executions in ${seconds} s; cov ${cov:-?} ft ${ft:-?} corp ${corp:-?}"
    exit 1
fi
echo "fuzz-summary: $target ok: ${runs:-?} executions in ${seconds} s, cov ${cov:-?} ft ${ft:-?}, corp ${corp:-?} (libFuzzer's); $files files, $bytes bytes in the scratch and seed corpora"
