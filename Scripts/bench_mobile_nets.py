#!/usr/bin/env python3
"""Mobile networks: OpenCoreML against onnxruntime and LiteRT on the same PyTorch modules, in one run.

Three networks are written here in plain PyTorch (random weights from a fixed seed, eval mode,
batch-norm statistics set by one pass over random pictures so that activations stay near 1):
- blazeface: a BlazeFace-style detector on 1×3×128×128 (MediaPipe's layout: a 5×5 stem, BlazeBlocks
  of a depthwise 5×5 and a pointwise 1×1, a shortcut that max-pools when the block strides and pads
  channels with zeros when it widens, PReLU after every block; two heads, anchors at 16×16 and 8×8);
- blazepalm: a BlazePalm-style detector on 1×3×256×256 (BlazeBlocks with PReLU down to 8×8, then a
  small feature pyramid: transposed 2×2 convolutions back up to 16×16 and 32×32, added to the
  backbone's features; heads at 32×32, 16×16 and 8×8);
- mobilenetv3: a MobileNetV3-Small-style classifier on 1×3×224×224 (inverted residuals, hardswish,
  squeeze-excitation gated by hardsigmoid, 1000 classes).

Each is traced and converted with coremltools to an fp16 ML Program (`compute_precision=FLOAT16`,
fixed input shape), exported to ONNX (`torch.onnx.export`, TorchScript exporter) and to TFLite
(`litert_torch.convert`), all into --out (default `.build/mobile-models/`, not committed). Before
timing, the three engines run the same random input: `opencoreml predict --input x=FILE.npy --json`,
onnxruntime and LiteRT's interpreter; the differences to onnxruntime are printed (max abs, and
relative to max |y|; OpenCoreML runs the fp16 program in float32, so it agrees to float16's precision).

Timing, per network and round (interleaved, 2 threads each, batch 1, the median of --iterations
calls after warm-up calls):
- onnxruntime: `InferenceSession.run`, `intra_op_num_threads` = threads, all graph optimizations;
- LiteRT: `ai_edge_litert.interpreter.Interpreter(num_threads=threads)`, `invoke()` with the input
  set once (XNNPACK, its default CPU delegate);
- OpenCoreML: `opencoreml bench predict MODEL --batch 1 --threads T --json`.

    .build/mobile-venv/bin/python Scripts/bench_mobile_nets.py --opencoreml .build/release/opencoreml \
        [--threads 2] [--rounds 3] [--iterations 30] [--models blazeface blazepalm mobilenetv3] [--profile]

With --profile, `opencoreml bench predict --profile` is run once per network after the timing and
its table of step types and slowest steps printed.

Needs: numpy<2.3, torch (CPU), coremltools 9.0, onnx, onnxruntime, ai-edge-litert, litert-torch.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import median_onnxruntime_seconds, onnxruntime_session, opencoreml_seconds  # noqa: E402


# MARK: - BlazeFace and BlazePalm

class BlazeBlock(nn.Module):
    """A depthwise k×k and a pointwise 1×1 convolution beside a shortcut, added, then PReLU.

    Striding: the depthwise convolution pads its input asymmetrically (nothing before, k−2 after,
    as TensorFlow's "same" for stride 2) and the shortcut max-pools 2×2. Widening: the shortcut's
    extra channels are zeros (a pad on the channel axis).
    """

    def __init__(self, inputs, outputs, kernel=5, stride=1):
        super().__init__()
        self.stride, self.kernel, self.extra = stride, kernel, outputs - inputs
        padding = (kernel - 1) // 2 if stride == 1 else 0
        self.depthwise = nn.Conv2d(inputs, inputs, kernel, stride, padding, groups=inputs)
        self.pointwise = nn.Conv2d(inputs, outputs, 1)
        self.act = nn.PReLU(outputs)

    def forward(self, x):
        if self.stride == 2:
            h = F.pad(x, (0, self.kernel - 2, 0, self.kernel - 2))
            shortcut = F.max_pool2d(x, 2, 2)
        else:
            h, shortcut = x, x
        if self.extra > 0:
            shortcut = F.pad(shortcut, (0, 0, 0, 0, 0, self.extra))
        return self.act(self.pointwise(self.depthwise(h)) + shortcut)


def head(features, conv, values):
    """A head's k values per anchor: NCHW → NHWC, one row per anchor."""
    return conv(features).permute(0, 2, 3, 1).reshape(1, -1, values)


class BlazeFace(nn.Module):
    """BlazeFace's front model: 128×128 in, 896 anchors (2 per cell at 16×16, 6 at 8×8), 16 box values."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 24, 5, 2, 2), nn.PReLU(24))
        plan = [(24, 24, 1), (24, 28, 1), (28, 32, 2), (32, 36, 1), (36, 42, 1), (42, 48, 2), (48, 56, 1),
                (56, 64, 1), (64, 72, 1), (72, 80, 1), (80, 88, 1)]
        self.stage1 = nn.Sequential(*[BlazeBlock(i, o, 5, s) for i, o, s in plan])
        self.stage2 = nn.Sequential(BlazeBlock(88, 96, 5, 2), BlazeBlock(96, 96), BlazeBlock(96, 96), BlazeBlock(96, 96),
                                    BlazeBlock(96, 96))
        self.classify16, self.classify8 = nn.Conv2d(88, 2, 1), nn.Conv2d(96, 6, 1)
        self.regress16, self.regress8 = nn.Conv2d(88, 32, 1), nn.Conv2d(96, 96, 1)

    def forward(self, x):
        a = self.stage1(self.stem(x))
        b = self.stage2(a)
        scores = torch.cat([head(a, self.classify16, 1), head(b, self.classify8, 1)], 1)
        boxes = torch.cat([head(a, self.regress16, 16), head(b, self.regress8, 16)], 1)
        return torch.cat([boxes, scores], 2)


class BlazePalm(nn.Module):
    """BlazePalm-style: 256×256 in, BlazeBlocks down to 8×8, a pyramid back up to 32×32, 18 box values."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 5, 2, 2), nn.PReLU(32))                       # 128
        self.to64 = nn.Sequential(BlazeBlock(32, 32, 5), BlazeBlock(32, 32, 5), BlazeBlock(32, 64, 5, 2),
                                  BlazeBlock(64, 64, 5))                                          # 64
        self.to32 = nn.Sequential(BlazeBlock(64, 128, 5, 2), BlazeBlock(128, 128, 5), BlazeBlock(128, 128, 5))  # 32
        self.to16 = nn.Sequential(BlazeBlock(128, 256, 5, 2), BlazeBlock(256, 256, 5), BlazeBlock(256, 256, 5))  # 16
        self.to8 = nn.Sequential(BlazeBlock(256, 256, 5, 2), BlazeBlock(256, 256, 5), BlazeBlock(256, 256, 5))   # 8
        self.up16 = nn.Sequential(nn.ConvTranspose2d(256, 256, 2, 2), nn.PReLU(256))
        self.mix16 = BlazeBlock(256, 256, 5)
        self.up32 = nn.Sequential(nn.ConvTranspose2d(256, 128, 2, 2), nn.PReLU(128))
        self.mix32 = BlazeBlock(128, 128, 5)
        self.classify = nn.ModuleList([nn.Conv2d(128, 2, 1), nn.Conv2d(256, 2, 1), nn.Conv2d(256, 6, 1)])
        self.regress = nn.ModuleList([nn.Conv2d(128, 36, 1), nn.Conv2d(256, 36, 1), nn.Conv2d(256, 108, 1)])

    def forward(self, x):
        c32 = self.to32(self.to64(self.stem(x)))
        c16 = self.to16(c32)
        c8 = self.to8(c16)
        p16 = self.mix16(self.up16(c8) + c16)
        p32 = self.mix32(self.up32(p16) + c32)
        levels = [p32, p16, c8]
        scores = torch.cat([head(f, conv, 1) for f, conv in zip(levels, self.classify)], 1)
        boxes = torch.cat([head(f, conv, 18) for f, conv in zip(levels, self.regress)], 1)
        return torch.cat([boxes, scores], 2)


# MARK: - MobileNetV3-Small

def divisible(value, by=8):
    """The channel count nearest `value` that `by` divides, never below 90% of it (MobileNet's rule)."""
    rounded = max(by, int(value + by / 2) // by * by)
    return rounded + by if rounded < 0.9 * value else rounded


class SqueezeExcitation(nn.Module):
    """Global average, a 1×1 bottleneck with ReLU, a 1×1 back with hardsigmoid: the channels' gate."""

    def __init__(self, channels):
        super().__init__()
        squeezed = divisible(channels // 4)
        self.reduce, self.expand = nn.Conv2d(channels, squeezed, 1), nn.Conv2d(squeezed, channels, 1)

    def forward(self, x):
        gate = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.expand(F.relu(self.reduce(gate))))


class InvertedResidual(nn.Module):
    """Expand 1×1, depthwise k×k, optional squeeze-excitation, project 1×1; residual when shapes agree."""

    def __init__(self, inputs, kernel, expanded, outputs, excite, hardswish, stride):
        super().__init__()
        act = nn.Hardswish if hardswish else nn.ReLU
        layers = []
        if expanded != inputs:
            layers += [nn.Conv2d(inputs, expanded, 1, bias=False), nn.BatchNorm2d(expanded), act()]
        layers += [nn.Conv2d(expanded, expanded, kernel, stride, (kernel - 1) // 2, groups=expanded, bias=False),
                   nn.BatchNorm2d(expanded), act()]
        if excite:
            layers.append(SqueezeExcitation(expanded))
        layers += [nn.Conv2d(expanded, outputs, 1, bias=False), nn.BatchNorm2d(outputs)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and inputs == outputs

    def forward(self, x):
        y = self.body(x)
        return x + y if self.residual else y


class MobileNetV3Small(nn.Module):
    # kernel, expanded, outputs, squeeze-excitation, hardswish, stride
    PLAN = [(3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2), (3, 88, 24, False, False, 1),
            (5, 96, 40, True, True, 2), (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
            (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1), (5, 288, 96, True, True, 2),
            (5, 576, 96, True, True, 1), (5, 576, 96, True, True, 1)]

    def __init__(self, classes=1000):
        super().__init__()
        layers, inputs = [nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish()], 16
        for kernel, expanded, outputs, excite, hardswish, stride in self.PLAN:
            layers.append(InvertedResidual(inputs, kernel, expanded, outputs, excite, hardswish, stride))
            inputs = outputs
        layers += [nn.Conv2d(inputs, 576, 1, bias=False), nn.BatchNorm2d(576), nn.Hardswish()]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(), nn.Linear(1024, classes))

    def forward(self, x):
        return self.classifier(torch.flatten(F.adaptive_avg_pool2d(self.features(x), 1), 1))


MODELS = {
    "blazeface": (BlazeFace, (3, 128, 128)),
    "blazepalm": (BlazePalm, (3, 256, 256)),
    "mobilenetv3": (MobileNetV3Small, (3, 224, 224)),
}


# MARK: - Building and checking

def module(name):
    """Network `name` with random weights from seed 0, in eval mode, and its input shape."""
    make, shape = MODELS[name]
    torch.manual_seed(0)
    net = make()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, nn.PReLU):
                m.weight.uniform_(0.05, 0.3)
            if isinstance(m, nn.BatchNorm2d):
                m.momentum = None  # the cumulative average of the pass below
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
        net.train()
        net(torch.randn(4, *shape))  # batch-norm statistics from random pictures
    return net.eval(), shape


def build(name, folder):
    """Converts network `name` into `folder/name.mlpackage`, `.onnx` and `.tflite`; returns their paths."""
    import coremltools as ct
    net, shape = module(name)
    example = torch.randn(1, *shape)
    stem = os.path.join(folder, name)
    paths = stem + ".mlpackage", stem + ".onnx", stem + ".tflite"
    with torch.no_grad():
        traced = torch.jit.trace(net, example)
        model = ct.convert(traced, inputs=[ct.TensorType(name="x", shape=example.shape)], outputs=[ct.TensorType(name="y")],
                           convert_to="mlprogram", compute_precision=ct.precision.FLOAT16,
                           minimum_deployment_target=ct.target.iOS16)
        model.save(paths[0])
        torch.onnx.export(net, example, paths[1], input_names=["x"], output_names=["y"], opset_version=17, dynamo=False)
    import litert_torch
    litert_torch.convert(net, (example,)).export(paths[2])
    return paths, shape


def litert_interpreter(path, threads):
    from ai_edge_litert.interpreter import Interpreter
    interpreter = Interpreter(model_path=path, num_threads=threads)
    interpreter.allocate_tensors()
    return interpreter


def litert_run(interpreter, x):
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    return interpreter.get_tensor(interpreter.get_output_details()[0]["index"])


def median_litert_seconds(interpreter, x, iterations):
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    for _ in range(2):
        interpreter.invoke()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        interpreter.invoke()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def opencoreml_output(binary, package, x, folder):
    path = os.path.join(folder, "input.npy")
    np.save(path, x)
    result = subprocess.run([binary, "predict", package, "--input", f"x={path}", "--json"],
                            check=True, capture_output=True, text=True)
    return np.asarray(json.loads(result.stdout)["y"]["values"], np.float32)


def difference(ours, theirs):
    ours, theirs = ours.reshape(-1), theirs.reshape(-1)
    absolute = float(np.abs(ours - theirs).max())
    return absolute, absolute / float(np.abs(theirs).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for option, number in [("--threads", 2), ("--rounds", 3), ("--iterations", 30)]:
        parser.add_argument(option, type=int, default=number)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--opencoreml", default=".build/release/opencoreml")
    parser.add_argument("--out", default=".build/mobile-models", help="where the converted models go")
    parser.add_argument("--reuse", action="store_true", help="use the converted models already in --out")
    parser.add_argument("--profile", action="store_true", help="also print `opencoreml bench predict --profile` per network")
    args = parser.parse_args()

    import coremltools as ct
    import onnxruntime as ort
    os.makedirs(args.out, exist_ok=True)
    print(f"coremltools {ct.__version__}, torch {torch.__version__}, onnxruntime {ort.__version__}, "
          f"{args.threads} thread(s), load average {os.getloadavg()[0]:.2f}")
    rows = []
    for name in args.models:
        if args.reuse:
            stem = os.path.join(args.out, name)
            paths, shape = (stem + ".mlpackage", stem + ".onnx", stem + ".tflite"), MODELS[name][1]
        else:
            paths, shape = build(name, args.out)
        package, onnx_path, tflite_path = paths
        sess = onnxruntime_session(onnx_path, args.threads)
        interpreter = litert_interpreter(tflite_path, args.threads)
        x = np.random.default_rng(1).standard_normal((1, *shape)).astype(np.float32)
        reference = sess.run(["y"], {"x": x})[0]
        with torch.no_grad():
            torch_y = module(name)[0](torch.from_numpy(x)).numpy()
        with tempfile.TemporaryDirectory() as scratch:
            ours = opencoreml_output(args.opencoreml, package, x, scratch)
        litert_y = litert_run(interpreter, x)
        print(f"{name}: output {list(reference.shape)}, max |y| {np.abs(reference).max():.3g}; max abs difference to onnxruntime: "
              "OpenCoreML (fp16 program) {:.2e} ({:.2e} of max |y|), LiteRT {:.2e} ({:.2e}), PyTorch {:.2e} ({:.2e})".format(
                  *difference(ours, reference), *difference(litert_y, reference), *difference(torch_y, reference)))
        times = {"OpenCoreML": [], "onnxruntime": [], "LiteRT": []}
        for _ in range(args.rounds):
            times["onnxruntime"].append(median_onnxruntime_seconds(sess, {"x": x}, args.iterations))
            times["LiteRT"].append(median_litert_seconds(interpreter, x, args.iterations))
            times["OpenCoreML"].append(opencoreml_seconds(args.opencoreml, package, 1, args.threads, args.iterations))
        rows.append((name, {engine: statistics.median(t) for engine, t in times.items()}))

    print("\n| network | OpenCoreML ms | onnxruntime ms | LiteRT ms | ratio to the faster peer |")
    print("|---|---:|---:|---:|---:|")
    for name, t in rows:
        peer = min(t["onnxruntime"], t["LiteRT"])
        print(f"| {name} | {t['OpenCoreML'] * 1000:.2f} | {t['onnxruntime'] * 1000:.2f} | {t['LiteRT'] * 1000:.2f} | "
              f"{t['OpenCoreML'] / peer:.2f}× |")
    print(f"\nbatch 1, {args.threads} threads each; medians of {args.rounds} interleaved rounds, per round the median of "
          f"{args.iterations} calls after 2 warm-up calls; load average at the end {os.getloadavg()[0]:.2f}.")
    if args.profile:
        for name in args.models:
            package = os.path.join(args.out, name + ".mlpackage")
            print(f"\n$ opencoreml bench predict {package} --batch 1 --threads {args.threads} --profile")
            result = subprocess.run([args.opencoreml, "bench", "predict", package, "--batch", "1", "--threads", str(args.threads),
                                     "--iterations", str(args.iterations), "--profile"], check=True, capture_output=True, text=True)
            print(result.stdout)


if __name__ == "__main__":
    main()
