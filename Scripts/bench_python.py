#!/usr/bin/env python3
"""The Python package's cost over the Swift API, with onnxruntime's Python API as the peer, in one run.

Two models, converted here with coremltools (into --out, default `.build/bench-models/`):
- tiny: an fp32 ML Program `relu(x + 1)` on a 1×4 input, where a prediction is almost all overhead;
- ResNet-18 at batch 1 (Scripts/bench_mlprogram_ort.py's module and conversion, random weights from
  a fixed seed), with its ONNX export for onnxruntime.

Per model and round (interleaved, the same thread count each):
- Swift: `opencoreml bench predict MODEL --batch 1 --threads T --json` (the Swift API's
  `prediction(from:)`, median latency);
- Python: `opencoreml.MLModel(MODEL).predict({"x": array})` (numpy in, numpy out), median over
  calls; the kernels' threads set by OPENCOREML_NUM_THREADS before the library loads;
- onnxruntime: `InferenceSession.run` (ResNet-18 only), median over calls.
The table gives the Python call's overhead over the Swift call (their difference) and their ratio.

    .build/mlp-venv/bin/python Scripts/bench_python.py --opencoreml .build/release/opencoreml \
        [--threads 2] [--rounds 5] [--iterations 30] [--tiny-iterations 3000]

Needs: numpy, torch (CPU), coremltools 9.0, onnx, onnxruntime, and opencoreml (`pip install ./Python`).
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def build_tiny(folder):
    import coremltools as ct
    from coremltools.converters.mil import Builder as mb

    @mb.program(input_specs=[mb.TensorSpec(shape=(1, 4))], opset_version=ct.target.iOS16)
    def program(x):
        return mb.relu(x=mb.add(x=x, y=1.0), name="y")

    path = os.path.join(folder, "tiny.mlpackage")
    ct.convert(program, convert_to="mlprogram", compute_precision=ct.precision.FLOAT32,
               minimum_deployment_target=ct.target.iOS16).save(path)
    return path


def python_seconds(model, feeds, iterations, group):
    """Median seconds per `predict` call, timed over groups of `group` calls (so that the clock's
    own cost does not count for tiny models), after warm-up calls."""
    for _ in range(3):
        model.predict(feeds)
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        for _ in range(group):
            model.predict(feeds)
        times.append((time.perf_counter() - start) / group)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opencoreml", default=".build/release/opencoreml")
    parser.add_argument("--out", default=".build/bench-models")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=30, help="ResNet-18 calls per round")
    parser.add_argument("--tiny-iterations", type=int, default=3000, help="tiny-model calls per round")
    args = parser.parse_args()

    os.environ["OPENCOREML_NUM_THREADS"] = str(args.threads)  # read when the library loads
    import numpy as np
    import opencoreml
    import torch
    from bench_mlprogram_ort import build
    from peer_timing import median_onnxruntime_seconds, onnxruntime_session, opencoreml_seconds

    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    import coremltools as ct
    import onnxruntime as ort
    print(f"opencoreml {opencoreml.__version__} (library {opencoreml.library_version()}), coremltools {ct.__version__}, "
          f"onnxruntime {ort.__version__}, {args.threads} thread(s), load average {os.getloadavg()[0]:.2f}")

    rng = np.random.default_rng(0)
    tiny = build_tiny(args.out)
    resnet, onnx_path, shape = build("resnet18", args.out)
    session = onnxruntime_session(onnx_path, args.threads)
    tiny_model, resnet_model = opencoreml.MLModel(tiny), opencoreml.MLModel(resnet)
    tiny_feeds = {"x": rng.standard_normal((1, 4)).astype(np.float32)}
    resnet_feeds = {"x": rng.standard_normal((1, *shape)).astype(np.float32)}

    # The Python outputs agree with onnxruntime's before anything is timed.
    ours = resnet_model.predict(resnet_feeds)["y"]
    theirs = session.run(["y"], resnet_feeds)[0]
    print(f"resnet18: Python predict vs onnxruntime, max abs difference {float(np.abs(ours - theirs).max()):.2e}")

    rows = {"tiny": ([], [], []), "resnet18": ([], [], [])}
    tiny_group = 100
    for _ in range(args.rounds):
        swift, python, _ = rows["tiny"]
        swift.append(opencoreml_seconds(args.opencoreml, tiny, 1, args.threads, args.tiny_iterations))
        python.append(python_seconds(tiny_model, tiny_feeds, args.tiny_iterations // tiny_group, tiny_group))
        swift, python, peer = rows["resnet18"]
        peer.append(median_onnxruntime_seconds(session, resnet_feeds, args.iterations))
        swift.append(opencoreml_seconds(args.opencoreml, resnet, 1, args.threads, args.iterations))
        python.append(python_seconds(resnet_model, resnet_feeds, args.iterations, 1))

    print("\n| model | Swift `prediction(from:)` | Python `predict` | Python − Swift | Python / Swift | onnxruntime Python | Python / onnxruntime |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, (swift, python, peer) in rows.items():
        s, p = statistics.median(swift), statistics.median(python)
        unit, scale = ("µs", 1e6) if name == "tiny" else ("ms", 1e3)
        peer_cells = ("–", "–")
        if peer:
            o = statistics.median(peer)
            peer_cells = (f"{o * scale:.2f} {unit}", f"{p / o:.2f}×")
        print(f"| {name} | {s * scale:.2f} {unit} | {p * scale:.2f} {unit} | {(p - s) * 1e6:.1f} µs | {p / s:.3f}× | "
              f"{peer_cells[0]} | {peer_cells[1]} |")
    print(f"\nmedians of {args.rounds} interleaved rounds; load average at the end {os.getloadavg()[0]:.2f}.")


if __name__ == "__main__":
    main()
