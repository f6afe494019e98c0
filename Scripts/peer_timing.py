"""Timing shared by the peer benchmarks that put OpenCoreML beside onnxruntime in one run
(bench_efficientnet_ort.py, bench_mlprogram_ort.py): the median time of an onnxruntime call after
two warm-up calls, and `opencoreml bench predict`'s median latency, both in seconds."""

import json
import statistics
import subprocess
import time


def median_onnxruntime_seconds(sess, feeds, iterations):
    for _ in range(2):
        sess.run(None, feeds)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        sess.run(None, feeds)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def opencoreml_seconds(binary, model, batch, threads, iterations):
    result = subprocess.run([binary, "bench", "predict", model, "--batch", str(batch), "--threads", str(threads),
                             "--iterations", str(iterations), "--json"], check=True, capture_output=True, text=True)
    return json.loads(result.stdout)["latency_ms"] / 1000
