"""What the peer benchmarks that put OpenCoreML beside onnxruntime in one run share
(bench_efficientnet_ort.py, bench_mlprogram_ort.py): an onnxruntime session on a given number of
threads, the median time of its call after two warm-up calls, and `opencoreml bench predict`'s
median latency, both in seconds."""

import json
import statistics
import subprocess
import time


def onnxruntime_session(model, threads):
    """A CPU session on `model` (a path or serialized bytes) with `threads` intra-op threads."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


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
