#!/usr/bin/env python3
"""Times two `opencoreml` binaries on the same benchmarks in the same run, alternating, and prints a
Markdown table: the median of each side and the ratio (new / before; below 1 is faster).

    Scripts/bench_compare.py BEFORE_BINARY NEW_BINARY [--rounds 3] [--models DIR] [--only NAME ...]

BEFORE_BINARY is a release build of the commit before the change, NEW_BINARY one of the change. The
rows are `bench lenet` (seconds per epoch, 6,000 generated digits), `bench predict` on
EfficientNet-Lite0 (.build/models, made by Scripts/make-efficientnet.sh), ResNet-18 and the encoder
block (.build/bench-models, made by Scripts/bench_mlprogram_ort.py), the mobile networks of
Scripts/bench_mobile_nets.py (.build/mobile-models), and the single-op ML Programs of
Scripts/make_op_bench_models.py in --models (default .build/op-bench-models). Rows whose model is
missing are skipped with a note; a row one binary cannot run says why. Standard library only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def rows(models):
    effnet = ".build/models/EfficientNetLite0.mlmodel"
    resnet = ".build/bench-models/resnet18.mlpackage"
    encoder = ".build/bench-models/encoder.mlpackage"
    out = [("bench lenet (s/epoch)", None, ["bench", "lenet", "--json", "--epochs", "3"], "secondsPerEpochMedian")]
    for name, path in [("EfficientNet-Lite0", effnet), ("ResNet-18", resnet), ("encoder block", encoder)]:
        for batch in (1, 16):
            out.append((f"{name}, batch {batch} (ms)", path,
                        ["bench", "predict", path, "--batch", str(batch), "--threads", "2", "--json"], "latency_ms"))
    for name in ["blazeface", "blazepalm", "mobilenetv3"]:
        path = f".build/mobile-models/{name}.mlpackage"
        out.append((f"{name} (fp16 ML Program), batch 1 (ms)", path,
                    ["bench", "predict", path, "--batch", "1", "--threads", "2", "--iterations", "50", "--json"], "latency_ms"))
    for name in ["sigmoid", "prelu_pattern", "prelu_pattern_fp16", "prelu_fp16", "pad"]:
        path = os.path.join(models, f"{name}.mlpackage")
        out.append((f"ML Program `{name}`, 1 M floats (ms)", path,
                    ["bench", "predict", path, "--batch", "1", "--threads", "2", "--iterations", "50", "--json"], "latency_ms"))
    return out


def measure(binary, arguments, key):
    result = subprocess.run([binary] + arguments, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{binary} {' '.join(arguments)} failed:\n{result.stderr.strip()}")
    return float(json.loads(result.stdout)[key])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--models", default=".build/op-bench-models")
    parser.add_argument("--only", nargs="*", help="run only rows whose name contains one of these")
    options = parser.parse_args()

    print("| Benchmark | Before | After | After / before |")
    print("|---|---|---|---|")
    for name, path, arguments, key in rows(options.models):
        if options.only and not any(word in name for word in options.only):
            continue
        if path and not os.path.exists(path):
            print(f"| {name} | — | — | skipped: {path} is missing |")
            continue
        samples = {options.before: [], options.new: []}
        failed = {}
        for _ in range(options.rounds):
            for binary in (options.before, options.new):
                if binary in failed:
                    continue
                try:
                    samples[binary].append(measure(binary, arguments, key))
                except RuntimeError as error:
                    # A model one side cannot run (an operation the binary before the change lacks).
                    failed[binary] = str(error).strip().splitlines()[-1][:100]
        cells = [f"{statistics.median(samples[b]):.4g}" if b not in failed else "fails" for b in (options.before, options.new)]
        if failed:
            print(f"| {name} | {cells[0]} | {cells[1]} | {'; '.join(failed.values())} |", flush=True)
        else:
            b, a = statistics.median(samples[options.before]), statistics.median(samples[options.new])
            print(f"| {name} | {cells[0]} | {cells[1]} | {a / b:.2f}× |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
