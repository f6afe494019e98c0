#!/usr/bin/env python3
"""Prints the LeNet rows of BENCHMARKS.md from the JSON reports Scripts/bench-all.sh collects.

usage: bench_lenet_table.py FOLDER [--epochs N] [--scaling-epochs N] [--tasks N]

FOLDER holds r<k>-ours-*.json and r<k>-tf-*.json for k = 1, 2, ...; each number is the median
over the repeats (each report's own figures are already medians over epochs or calls).
"""
import argparse
import glob
import json
import os
import statistics


def reports(folder, name):
    found = []
    for path in sorted(glob.glob(os.path.join(folder, f"r*-{name}.json"))):
        with open(path) as handle:
            found.append(json.load(handle))
    return found


def median_of(folder, name, key):
    values = [r[key] for r in reports(folder, name) if r.get(key) is not None]
    return statistics.median(values) if values else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("folder")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--scaling-epochs", type=int, default=3)
    parser.add_argument("--tasks", type=int, default=100)
    args = parser.parse_args()
    f = args.folder
    m = lambda name, key: median_of(f, name, key)
    rows = []

    def row(measure, ours, tf, ratio, command):
        rows.append(f"| {measure} | {ours} | {tf} | {ratio} | `{command}` |")

    def fmt(value, pattern):
        return "n/a" if value is None else pattern.format(value)

    def times(a, b, suffix="×"):
        if a is None or b is None or b == 0:
            return "n/a"
        ratio = a / b
        return f"{ratio:.2f}{suffix}" if ratio >= 0.1 else f"{ratio:.3f}{suffix} (1/{b / a:.0f})"

    ours_s, tf_s = m("ours-train", "secondsPerEpochMedian"), m("tf-train", "secondsPerEpochMedian")
    row(f"training, seconds per epoch (median of {args.epochs}, 2 threads)", fmt(ours_s, "{:.2f}"), fmt(tf_s, "{:.2f}"),
        times(ours_s, tf_s) + " TF's time", f"opencoreml bench lenet --data DIR --epochs {args.epochs} --threads 2")
    ours_n, tf_n = m("ours-train", "samplesPerSecond"), m("tf-train", "samplesPerSecond")
    row("training, samples per second", fmt(ours_n, "{:,.0f}"), fmt(tf_n, "{:,.0f}"), times(ours_n, tf_n),
        "(same runs)")
    ours_a, tf_a = m("ours-train", "testAccuracy"), m("tf-train", "testAccuracy")
    diff = "n/a" if ours_a is None or tf_a is None else f"{(ours_a - tf_a) * 100:+.2f} points"
    row(f"test accuracy after {args.epochs} epochs", fmt(ours_a, "{:.4f}"), fmt(tf_a, "{:.4f}"), diff,
        f"python Scripts/bench_lenet_tf.py --data DIR --epochs {args.epochs} --threads 2")
    ours_r, tf_r = m("ours-train", "peakRSSMegabytes"), m("tf-train", "peakRSSMegabytes")
    row("training, peak resident memory (whole process)", fmt(ours_r, "{:,.0f} MB"), fmt(tf_r, "{:,.0f} MB"),
        times(ours_r, tf_r), "(same runs)")
    for threads in (1, 2):
        o, t = m(f"ours-threads{threads}", "secondsPerEpochMedian"), m(f"tf-threads{threads}", "secondsPerEpochMedian")
        row(f"training, seconds per epoch, {threads} thread(s) (median of {args.scaling_epochs})", fmt(o, "{:.2f}"),
            fmt(t, "{:.2f}"), times(o, t) + " TF's time",
            f"opencoreml bench lenet --data DIR --epochs {args.scaling_epochs} --threads {threads}")
    o1, o2 = m("ours-threads1", "secondsPerEpochMedian"), m("ours-threads2", "secondsPerEpochMedian")
    t1, t2 = m("tf-threads1", "secondsPerEpochMedian"), m("tf-threads2", "secondsPerEpochMedian")
    row("thread scaling: 2-thread speed ÷ 1-thread speed", times(o1, o2), times(t1, t2), "", "(the two rows above)")
    ol, tl = m("ours-inference", "latencyMillisecondsMedian"), m("tf-inference", "latencyMillisecondsMedian")
    row("inference, batch-1 latency, median (`prediction(from:)` / `model(x)`)", fmt(ol, "{:.3f} ms"), fmt(tl, "{:.3f} ms"),
        times(ol, tl) + " TF's time", "opencoreml bench lenet-inference --data DIR --threads 2")
    ol, tl = m("ours-inference", "latencyMillisecondsP90"), m("tf-inference", "latencyMillisecondsP90")
    row("inference, batch-1 latency, p90", fmt(ol, "{:.3f} ms"), fmt(tl, "{:.3f} ms"), times(ol, tl) + " TF's time",
        "python Scripts/bench_lenet_tf.py --data DIR --inference --threads 2")
    ot, tt = m("ours-inference", "samplesPerSecond"), m("tf-inference", "samplesPerSecond")
    row("inference, batch-128 throughput (`predictions(fromBatch:)` / `predict`)", fmt(ot, "{:,.0f}/s"), fmt(tt, "{:,.0f}/s"),
        times(ot, tt), "(same runs)")
    tc = m("tf-inference", "callSamplesPerSecond")
    row("inference, batch-128 throughput (TF: `model(x)` on the batch)", fmt(ot, "{:,.0f}/s"), fmt(tc, "{:,.0f}/s"),
        times(ot, tc), "(same runs)")
    growth, later = m("ours-tasks", "growthMegabytes"), m("ours-tasks", "growthAfterFirstTenMegabytes")
    later_text = "" if later is None else f" (task 10 → {args.tasks}: {later:+.1f} MB)"
    row(f"{args.tasks} MLUpdateTasks in a row: resident memory growth, task 1 → {args.tasks}",
        fmt(growth, "{:+.1f} MB") + later_text, "", "", f"opencoreml bench update-tasks --count {args.tasks}")

    print("| measure | OpenCoreML | TensorFlow 2.21 | ratio | command |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
