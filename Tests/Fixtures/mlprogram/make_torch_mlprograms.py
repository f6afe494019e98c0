"""ML Program fixtures converted from PyTorch: three tiny seeded models traced with torch.jit.trace
and converted by coremltools 9.0, saved as .mlpackage folders, with PyTorch's own outputs for a
seeded input (torch_facts.json) for Tests/OpenCoreMLTests/MLProgramTorchTests.swift, and the MIL
operation types each program holds (so a test notices when a fixture changes).

    python3 -m venv .venv-torch && .venv-torch/bin/pip install coremltools==9.0 numpy "torch==2.13.0+cpu"
    .venv-torch/bin/python Tests/Fixtures/mlprogram/make_torch_mlprograms.py

(the CPU wheel: `pip download --no-deps "torch==2.13.0+cpu"`, then install the downloaded file.)

- TorchCNN.mlpackage: float32, iOS 15 — conv + BatchNorm, a depthwise-separable residual block,
  a batch norm after the residual add (not fused into a convolution), SiLU, hard sigmoid, global
  average pooling (mean), linear.
- TorchTransformer.mlpackage: float32, iOS 17 — one pre-norm transformer encoder block: layer
  norm, two-head self-attention written out (linear, split, reshape, transpose, matmul, softmax),
  layer norm, MLP with exact GELU, residuals; a tanh-approximated GELU head.
- TorchTransformer16.mlpackage: the same block with compute precision FLOAT16, iOS 16, float32
  input and output (so the program casts to and from float16).
- TorchUNet.mlpackage: float16 compute precision, iOS 16 — a two-level encoder–decoder: conv,
  instance norm, leaky ReLU, max pooling, ELU, reflection padding, nearest-neighbour upsampling,
  bilinear upsampling (align_corners False), channel concatenation, a channel slice, sigmoid;
  float16 input and output (coremltools' choice for float16 programs from iOS 16).
"""
import json
import os
import shutil
import sys
import warnings
from collections import Counter

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import coremltools as ct  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.depthwise = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False), nn.BatchNorm2d(8), nn.ReLU6())
        self.pointwise = nn.Sequential(nn.Conv2d(8, 8, 1, bias=False), nn.BatchNorm2d(8))
        self.after = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        y = self.stem(x)
        y = self.after(y + self.pointwise(self.depthwise(y)))
        y = F.silu(y) * F.hardsigmoid(y)
        return self.head(y.mean(dim=(2, 3)))


class Block(nn.Module):
    """A pre-norm transformer block with the attention written out."""

    def __init__(self, tokens=8, width=16, heads=2):
        super().__init__()
        self.tokens, self.width, self.heads = tokens, width, heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.out = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width))
        self.head = nn.Linear(width, 4)

    def forward(self, x):
        b, t, c = 1, self.tokens, self.width  # fixed, so the trace holds no shape arithmetic
        q, k, v = self.qkv(self.norm1(x)).split(c, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        attention = torch.softmax(q @ k.transpose(-2, -1) / (c // self.heads) ** 0.5, dim=-1)
        x = x + self.out((attention @ v).transpose(1, 2).reshape(b, t, c))
        x = x + self.mlp(self.norm2(x))
        return F.gelu(self.head(x), approximate="tanh")


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.InstanceNorm2d(8, affine=True), nn.LeakyReLU(0.1))
        self.enc2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.ELU())
        self.bottom = nn.Conv2d(16, 16, 3)
        self.dec2 = nn.Sequential(nn.Conv2d(32, 8, 3, padding=1), nn.ReLU())
        self.dec1 = nn.Conv2d(16, 4, 1)

    def forward(self, x):
        e1 = self.enc1(x)                                       # 8×16×16
        e2 = self.enc2(F.max_pool2d(e1, 2))                      # 16×8×8
        b = self.bottom(F.pad(F.max_pool2d(e2, 2), (1, 1, 1, 1), mode="reflect"))  # 16×4×4
        d2 = self.dec2(torch.cat([F.interpolate(b, scale_factor=2, mode="nearest"), e2], dim=1))
        up = F.interpolate(d2, scale_factor=2, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([up, e1], dim=1))
        return torch.sigmoid(d1[:, :2]) + d1[:, 2:]


class Decoder(nn.Module):
    """Transposed convolutions: stride 2 with padding and output padding, then grouped and dilated."""
    def __init__(self):
        super().__init__()
        self.up1 = nn.ConvTranspose2d(8, 6, 3, stride=2, padding=1, output_padding=1)
        self.up2 = nn.ConvTranspose2d(6, 4, 2, stride=2, groups=2, dilation=2)

    def forward(self, x):
        return self.up2(F.relu(self.up1(x)))


def seeded(model, seed):
    """The model with seeded weights, its batch norm statistics made non-trivial, in eval mode."""
    torch.manual_seed(seed)
    model = model()
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 2)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)
            if isinstance(module, (nn.LayerNorm, nn.InstanceNorm2d)) and module.weight is not None:
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)
    return model.eval()


def operation_counts(path):
    program = ct.utils.load_spec(path).mlProgram
    counts = Counter()
    for function in program.functions.values():
        for operation in function.block_specializations[function.opset].operations:
            counts[operation.type] += 1
    return dict(sorted(counts.items()))


def save(name, model, shape, seed, target, precision, io=None):
    """Converts `model` traced on a seeded input; `io` is the input and output type (coremltools'
    choice when None)."""
    x = torch.from_numpy(np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32))
    with torch.no_grad():
        traced = torch.jit.trace(model, x)
        y = model(x).numpy()
    converted = ct.convert(traced, inputs=[ct.TensorType(name="x", shape=shape, dtype=io)], outputs=[ct.TensorType(name="y", dtype=io)],
                           convert_to="mlprogram", minimum_deployment_target=target, compute_precision=precision)
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    converted.save(path)
    return {"operationCounts": operation_counts(path),
            "precision": "float16" if precision == ct.precision.FLOAT16 else "float32",
            "inputs": {"x": {"shape": list(shape), "values": x.numpy().ravel().tolist()}},
            "outputs": {"y": {"shape": list(y.shape), "values": y.ravel().tolist()}}}


def main():
    torch.set_num_threads(1)
    result = {"coremltools": ct.__version__, "torch": torch.__version__}
    result["TorchCNN.mlpackage"] = save("TorchCNN.mlpackage", seeded(SmallCNN, 11), (1, 3, 16, 16), 21,
                                        ct.target.iOS15, ct.precision.FLOAT32)
    result["TorchTransformer.mlpackage"] = save("TorchTransformer.mlpackage", seeded(Block, 12), (1, 8, 16), 22,
                                                ct.target.iOS17, ct.precision.FLOAT32)
    result["TorchTransformer16.mlpackage"] = save("TorchTransformer16.mlpackage", seeded(Block, 12), (1, 8, 16), 23,
                                                  ct.target.iOS16, ct.precision.FLOAT16, np.float32)
    result["TorchUNet.mlpackage"] = save("TorchUNet.mlpackage", seeded(UNet, 13), (1, 3, 16, 16), 24,
                                         ct.target.iOS16, ct.precision.FLOAT16)
    result["TorchDecoder.mlpackage"] = save("TorchDecoder.mlpackage", seeded(Decoder, 14), (1, 8, 5, 5), 25,
                                            ct.target.iOS15, ct.precision.FLOAT32)
    with open(os.path.join(HERE, "torch_facts.json"), "w") as file:
        json.dump(result, file, indent=1, sort_keys=True)
        file.write("\n")
    print(json.dumps({k: (v["operationCounts"] if isinstance(v, dict) else v) for k, v in result.items()}, indent=1),
          file=sys.stderr)


if __name__ == "__main__":
    main()
