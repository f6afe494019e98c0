"""Per-call overhead of opencoreml.MLModel.predict on a tiny model (not a test).

    python bench_overhead.py [--count 10000]

Builds a one-op ML Program (y = x + 1 over 4 floats) with coremltools when it is installed
(else give --model PATH), then times single predictions and prints microseconds per call.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

import opencoreml


def tiny_model(directory: str) -> str:
    import coremltools as ct
    from coremltools.converters.mil import Builder as mb

    @mb.program(input_specs=[mb.TensorSpec(shape=(1, 4))])
    def program(x):
        return mb.add(x=x, y=1.0, name="y")

    path = os.path.join(directory, "tiny.mlpackage")
    ct.convert(program, convert_to="mlprogram", compute_precision=ct.precision.FLOAT32,
               skip_model_load=True).save(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--model", help="a model with one float32 input x of shape (1, 4)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = args.model or tiny_model(directory)
        model = opencoreml.MLModel(path)
        x = np.arange(4, dtype=np.float32).reshape(1, 4)
        assert np.allclose(model.predict({"x": x})["y"], x + 1)
        for _ in range(200):  # warm up
            model.predict({"x": x})
        started = time.perf_counter()
        for _ in range(args.count):
            model.predict({"x": x})
        elapsed = time.perf_counter() - started
        print(f"predict: {elapsed / args.count * 1e6:.1f} µs per call ({args.count} calls)")
        batch = [{"x": x}] * 100
        started = time.perf_counter()
        for _ in range(args.count // 100):
            model.predict(batch)
        elapsed = time.perf_counter() - started
        print(f"batch predict (100 per call): {elapsed / (args.count // 100 * 100) * 1e6:.1f} µs per example")


if __name__ == "__main__":
    main()
