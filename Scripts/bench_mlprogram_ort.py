#!/usr/bin/env python3
"""ML Programs: OpenCoreML against onnxruntime on the same PyTorch modules, in one run.

Two modules are defined here in plain PyTorch (random weights from a fixed seed, eval mode):
- ResNet-18 (basic blocks [2, 2, 2, 2], batch norm, 1000 classes) on 1×3×224×224 pixels;
- a small transformer encoder block (pre-norm, 4 heads, width 256, MLP 1024, GELU) on 1×128×256.

Each is traced and converted with coremltools to an fp32 ML Program (`.mlpackage`, fixed input
shape with batch 1) and exported to ONNX (`torch.onnx.export`, the TorchScript exporter, batch
axis dynamic), both into --out (default `.build/bench-models/`, not committed). Before timing,
`opencoreml predict --input NAME=FILE.npy --json` and onnxruntime run the same random input and
their outputs are compared (max abs difference, and relative to the output's largest value).

Then, per module, batch size and round (interleaved, the same thread count each):
- onnxruntime: `InferenceSession.run` on one tensor of `batch` examples, `intra_op_num_threads` = threads;
- OpenCoreML: `opencoreml bench predict MODEL --batch N --threads T --json`. The package's input
  has batch 1, so `--batch 16` is one `predictions(fromBatch:)` call of 16 examples.
Both report the median time per call over the same number of timed calls after two warm-up calls.

    /tmp/mlp-venv/bin/python Scripts/bench_mlprogram_ort.py --opencoreml .build/release/opencoreml \
        [--threads 2] [--batches 1 16] [--rounds 3] [--iterations 10] [--models resnet18 encoder]

Needs: numpy, torch (CPU), coremltools 9.0, onnx, onnxruntime.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import median_onnxruntime_seconds, onnxruntime_session, opencoreml_seconds  # noqa: E402
from torch import nn


class BasicBlock(nn.Module):
    """ResNet's two 3×3 convolutions with batch norm, plus the (possibly projected) shortcut."""

    def __init__(self, inputs, outputs, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.shortcut = nn.Sequential()
        if stride != 1 or inputs != outputs:
            self.shortcut = nn.Sequential(nn.Conv2d(inputs, outputs, 1, stride, bias=False), nn.BatchNorm2d(outputs))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.shortcut(x))


class ResNet18(nn.Module):
    """ResNet-18 for 224×224 pictures: stem, four stages of two basic blocks, pooling, classifier."""

    def __init__(self, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, inputs = [], 64
        for outputs, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            layers += [BasicBlock(inputs, outputs, stride), BasicBlock(outputs, outputs, 1)]
            inputs = outputs
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class EncoderBlock(nn.Module):
    """A pre-norm transformer encoder block written out (no fused PyTorch fast path)."""

    def __init__(self, width=256, heads=4, hidden=1024):
        super().__init__()
        self.heads = heads
        self.scale = (width // heads) ** -0.5
        self.norm1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.norm2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(nn.Linear(width, hidden), nn.GELU(), nn.Linear(hidden, width))

    def forward(self, x):
        # unflatten/flatten rather than reshapes from x.shape: no shape arithmetic in the trace
        q, k, v = self.qkv(self.norm1(x)).unflatten(-1, (3, self.heads, -1)).permute(2, 0, 3, 1, 4)
        attention = torch.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1)
        x = x + self.proj((attention @ v).transpose(1, 2).flatten(2))
        return x + self.mlp(self.norm2(x))


MODELS = {
    "resnet18": (ResNet18, (3, 224, 224)),
    "encoder": (EncoderBlock, (128, 256)),
}


def build(name, folder):
    """Converts model `name` to `folder/name.mlpackage` and `folder/name.onnx`; returns their paths."""
    import coremltools as ct
    make, shape = MODELS[name]
    torch.manual_seed(0)
    module = make().eval()
    with torch.no_grad():  # non-trivial batch-norm statistics, so folding them is checked too
        for m in module.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    example = torch.randn(1, *shape)
    package, onnx_path = os.path.join(folder, name + ".mlpackage"), os.path.join(folder, name + ".onnx")
    traced = torch.jit.trace(module, example)
    model = ct.convert(traced, inputs=[ct.TensorType(name="x", shape=example.shape)], outputs=[ct.TensorType(name="y")],
                       convert_to="mlprogram", compute_precision=ct.precision.FLOAT32,
                       minimum_deployment_target=ct.target.iOS16)
    model.save(package)
    torch.onnx.export(module, example, onnx_path, input_names=["x"], output_names=["y"], opset_version=17,
                      dynamic_axes={"x": {0: "n"}, "y": {0: "n"}}, dynamo=False)
    return package, onnx_path, shape


def check(binary, package, sess, shape, folder):
    """Max abs difference between OpenCoreML's and onnxruntime's outputs, and that over max |output|."""
    x = np.random.default_rng(1).standard_normal((1, *shape)).astype(np.float32)
    path = os.path.join(folder, "input.npy")
    np.save(path, x)
    result = subprocess.run([binary, "predict", package, "--input", f"x={path}", "--json"],
                            check=True, capture_output=True, text=True)
    ours = np.asarray(find_values(json.loads(result.stdout), "y"), np.float32).reshape(-1)
    theirs = sess.run(["y"], {"x": x})[0].reshape(-1)
    difference = float(np.abs(ours - theirs).max())
    return difference, difference / float(np.abs(theirs).max())


def find_values(document, name):
    """The numbers of output `name` in `opencoreml predict --json`'s object, wherever they sit."""
    if isinstance(document, dict):
        if name in document:
            value = document[name]
            return value.get("values", value) if isinstance(value, dict) else value
        for value in document.values():
            if isinstance(value, (dict, list)):
                found = find_values(value, name)
                if found is not None:
                    return found
    return None


def time_ort(sess, shape, batch, iterations, rng):
    x = rng.standard_normal((batch, *shape)).astype(np.float32)
    return median_onnxruntime_seconds(sess, {"x": x}, iterations)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opencoreml", default=".build/release/opencoreml")
    parser.add_argument("--out", default=".build/bench-models", help="where the converted models go")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=10)
    args = parser.parse_args()

    import coremltools as ct
    import onnxruntime as ort
    os.makedirs(args.out, exist_ok=True)
    print(f"coremltools {ct.__version__}, torch {torch.__version__}, onnxruntime {ort.__version__}, "
          f"{args.threads} thread(s), load average {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(0)
    rows = []
    for name in args.models:
        package, onnx_path, shape = build(name, args.out)
        sess = onnxruntime_session(onnx_path, args.threads)
        with tempfile.TemporaryDirectory() as scratch:
            absolute, relative = check(args.opencoreml, package, sess, shape, scratch)
        print(f"{name}: OpenCoreML vs onnxruntime outputs, max abs difference {absolute:.2e} ({relative:.2e} of max |y|)")
        for batch in args.batches:
            ours, peers = [], []
            for _ in range(args.rounds):
                peers.append(time_ort(sess, shape, batch, args.iterations, rng))
                ours.append(opencoreml_seconds(args.opencoreml, package, batch, args.threads, args.iterations))
            rows.append((name, batch, ours, peers))

    print("\n| model | batch | OpenCoreML ms/call | onnxruntime ms/call | time ratio (ours/ort) |")
    print("|---|---:|---:|---:|---:|")
    for name, batch, ours, peers in rows:
        o, p = statistics.median(ours), statistics.median(peers)
        print(f"| {name} | {batch} | {o * 1000:.1f} | {p * 1000:.1f} | {o / p:.2f}× |")
    print(f"\nmedians of {args.rounds} interleaved rounds; per round the median of {args.iterations} calls; "
          f"load average at the end {os.getloadavg()[0]:.2f}.")


if __name__ == "__main__":
    main()
