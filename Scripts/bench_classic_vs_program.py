#!/usr/bin/env python3
"""Classic neural networks against ML Programs and onnxruntime: the same PyTorch module converted
both ways, in one run.

Three modules in plain PyTorch (random weights from a fixed seed, eval mode, batch-norm statistics
made non-trivial): ResNet-18 (from bench_mlprogram_ort.py) and MobileNetV2 on 1×3×224×224, and
SqueezeNet 1.1 on 1×3×227×227 (Apple's gallery model is a SqueezeNet). Each is traced and converted
by coremltools 9.0 twice, to a classic `neuralNetwork` (`convert_to="neuralnetwork"`, an .mlmodel)
and to an fp32 ML Program (an .mlpackage), and exported to ONNX; all go to --out (default
`.build/classic-models/`, not committed). Before timing, `opencoreml predict --json` runs one random
input through both forms and onnxruntime runs it too: the differences are printed.

Timing, per module and round (interleaved, batch 1, the same thread count each, the median of
--iterations calls after two warm-up calls): `opencoreml bench predict` on the classic form and on
the ML Program, and onnxruntime's `InferenceSession.run` (all graph optimizations).

    .build/suites-venv/bin/python Scripts/bench_classic_vs_program.py --opencoreml .build/release/opencoreml \
        [--threads 2] [--rounds 3] [--iterations 20] [--models resnet18 mobilenetv2 squeezenet]

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
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_mlprogram_ort import ResNet18, find_values  # noqa: E402
from peer_timing import median_onnxruntime_seconds, onnxruntime_session, opencoreml_seconds  # noqa: E402


def conv_bn(inputs, outputs, kernel, stride, groups=1, activation=True):
    layers = [nn.Conv2d(inputs, outputs, kernel, stride, kernel // 2, groups=groups, bias=False), nn.BatchNorm2d(outputs)]
    return nn.Sequential(*layers, nn.ReLU6()) if activation else nn.Sequential(*layers)


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1×1 expansion, 3×3 depthwise, 1×1 projection, the shortcut when shapes agree."""

    def __init__(self, inputs, outputs, stride, expansion):
        super().__init__()
        hidden = inputs * expansion
        layers = [conv_bn(inputs, hidden, 1, 1)] if expansion != 1 else []
        layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden), conv_bn(hidden, outputs, 1, 1, activation=False)]
        self.body = nn.Sequential(*layers)
        self.shortcut = stride == 1 and inputs == outputs

    def forward(self, x):
        return x + self.body(x) if self.shortcut else self.body(x)


class MobileNetV2(nn.Module):
    """MobileNetV2 (width 1.0) for 224×224 pictures, 1000 classes."""

    def __init__(self, classes=1000):
        super().__init__()
        settings = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
        layers, inputs = [conv_bn(3, 32, 3, 2)], 32
        for expansion, outputs, repeats, stride in settings:
            for index in range(repeats):
                layers.append(InvertedResidual(inputs, outputs, stride if index == 0 else 1, expansion))
                inputs = outputs
        layers.append(conv_bn(inputs, 1280, 1, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(1280, classes)

    def forward(self, x):
        return self.classifier(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


class Fire(nn.Module):
    def __init__(self, inputs, squeeze, expand):
        super().__init__()
        self.squeeze = nn.Sequential(nn.Conv2d(inputs, squeeze, 1), nn.ReLU())
        self.expand1 = nn.Sequential(nn.Conv2d(squeeze, expand, 1), nn.ReLU())
        self.expand3 = nn.Sequential(nn.Conv2d(squeeze, expand, 3, padding=1), nn.ReLU())

    def forward(self, x):
        x = self.squeeze(x)
        return torch.cat([self.expand1(x), self.expand3(x)], 1)


class SqueezeNet(nn.Module):
    """SqueezeNet 1.1 for 227×227 pictures, 1000 classes, ending in softmax like Apple's model."""

    def __init__(self, classes=1000):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, 2), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True), Fire(64, 16, 64), Fire(128, 16, 64),
            nn.MaxPool2d(3, 2, ceil_mode=True), Fire(128, 32, 128), Fire(256, 32, 128), nn.MaxPool2d(3, 2, ceil_mode=True),
            Fire(256, 48, 192), Fire(384, 48, 192), Fire(384, 64, 256), Fire(512, 64, 256))
        self.classifier = nn.Sequential(nn.Conv2d(512, classes, 1), nn.ReLU())

    def forward(self, x):
        x = nn.functional.adaptive_avg_pool2d(self.classifier(self.features(x)), 1)
        return torch.softmax(torch.flatten(x, 1), 1)


MODELS = {
    "resnet18": (ResNet18, (3, 224, 224)),
    "mobilenetv2": (MobileNetV2, (3, 224, 224)),
    "squeezenet": (SqueezeNet, (3, 227, 227)),
}


def build(name, folder):
    """`folder/name.mlmodel` (classic), `folder/name.mlpackage` (ML Program) and `folder/name.onnx`."""
    import coremltools as ct
    make, shape = MODELS[name]
    torch.manual_seed(0)
    module = make().eval()
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
    example = torch.randn(1, *shape)
    traced = torch.jit.trace(module, example)
    paths = {kind: os.path.join(folder, name + extension) for kind, extension in
             [("classic", ".mlmodel"), ("program", ".mlpackage"), ("onnx", ".onnx")]}
    inputs, outputs = [ct.TensorType(name="x", shape=example.shape)], [ct.TensorType(name="y")]
    ct.convert(traced, inputs=inputs, outputs=outputs, convert_to="neuralnetwork").save(paths["classic"])
    ct.convert(traced, inputs=inputs, outputs=outputs, convert_to="mlprogram", compute_precision=ct.precision.FLOAT32,
               minimum_deployment_target=ct.target.iOS16).save(paths["program"])
    torch.onnx.export(module, example, paths["onnx"], input_names=["x"], output_names=["y"], opset_version=17, dynamo=False)
    return paths, shape


def ours(binary, model, x, folder):
    path = os.path.join(folder, "input.npy")
    np.save(path, x)
    result = subprocess.run([binary, "predict", model, "--input", f"x={path}", "--json"], check=True, capture_output=True, text=True)
    return np.asarray(find_values(json.loads(result.stdout), "y"), np.float32).reshape(-1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opencoreml", default=".build/release/opencoreml")
    parser.add_argument("--out", default=".build/classic-models")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()

    import coremltools as ct
    import onnxruntime as ort
    os.makedirs(args.out, exist_ok=True)
    print(f"coremltools {ct.__version__}, torch {torch.__version__}, onnxruntime {ort.__version__}, "
          f"{args.threads} thread(s), load average {os.getloadavg()[0]:.2f}")
    rows = []
    for name in args.models:
        paths, shape = build(name, args.out)
        sess = onnxruntime_session(paths["onnx"], args.threads)
        x = np.random.default_rng(1).standard_normal((1, *shape)).astype(np.float32)
        theirs = sess.run(["y"], {"x": x})[0].reshape(-1)
        with tempfile.TemporaryDirectory() as scratch:
            for kind in ["classic", "program"]:
                difference = float(np.abs(ours(args.opencoreml, paths[kind], x, scratch) - theirs).max())
                print(f"{name} ({kind}): max abs difference to onnxruntime {difference:.2e} "
                      f"({difference / float(np.abs(theirs).max()):.2e} of max |y|)")
        times = {"classic": [], "program": [], "onnxruntime": []}
        for _ in range(args.rounds):
            times["onnxruntime"].append(median_onnxruntime_seconds(sess, {"x": x}, args.iterations))
            for kind in ["classic", "program"]:
                times[kind].append(opencoreml_seconds(args.opencoreml, paths[kind], 1, args.threads, args.iterations))
        rows.append((name, {kind: statistics.median(values) for kind, values in times.items()}))

    print("\n| model | classic ms | ML Program ms | classic ÷ ML Program | onnxruntime ms | classic ÷ onnxruntime |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, t in rows:
        print(f"| {name} | {t['classic'] * 1000:.2f} | {t['program'] * 1000:.2f} | {t['classic'] / t['program']:.2f}× | "
              f"{t['onnxruntime'] * 1000:.2f} | {t['classic'] / t['onnxruntime']:.2f}× |")
    print(f"\nbatch 1; medians of {args.rounds} interleaved rounds, each the median of {args.iterations} calls; "
          f"load average at the end {os.getloadavg()[0]:.2f}.")


if __name__ == "__main__":
    main()
