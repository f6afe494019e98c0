"""ML Program fixtures converted from PyTorch: tiny seeded models traced with torch.jit.trace
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
- TorchDecoder.mlpackage: float32, iOS 15 — transposed convolutions (stride 2 with padding and
  output padding, then grouped and dilated), which coremltools follows with a crop.
- TorchTransformer18.mlpackage: the transformer block with compute precision FLOAT16 for iOS 18
  (opset CoreML8), float16 input and output.
- TorchAttention.mlpackage: float32, iOS 18 — torch.nn.functional.scaled_dot_product_attention five
  ways, each converted to MIL's scaled_dot_product_attention: no mask, is_causal (a constant
  lower-triangular bool mask), a float mask [L, S] (a distance penalty, broadcast over batch and
  heads), a bool key-padding mask [1, 1, 1, S] (broadcast over the queries), and cross-attention to
  fewer keys with a wider value (S ≠ L, EV ≠ E).
- TorchAttention16.mlpackage: the same with compute precision FLOAT16 (float16 masks, input and output).
- TorchCeilPool.mlpackage: float32, iOS 15 — pooling in PyTorch's ceil_mode: 2×2 max pooling
  whose last windows hold one row or column, 3×3 stride-2 max pooling with padding 1, and an
  average that leaves padding out (count_include_pad=False), concatenated.
- Resize17.mlpackage: iOS 17's resize. The PyTorch frontend never emits it (F.interpolate becomes
  upsample_nearest_neighbor or upsample_bilinear for every target, a computed size included; only
  the TensorFlow frontend makes resize), so this program is built with the MIL builder: x resized
  (scaled by a constant, so that the package has a weight file) to the last two sizes of another
  input's shape (computed while the program runs) and to constant shapes, in each sampling mode and
  both interpolation modes. The reference is PyTorch's
  F.interpolate where it samples the same grid (bilinear with align_corners True and False,
  nearest-exact) and numpy (float64) on coremltools' documented grid for the other modes.
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
from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.converters.mil.mil import get_new_symbol  # noqa: E402

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


class CeilPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = self.conv(x)  # 4×9×9 from 11×11: every pooling below has a last window that runs past the end
        a = F.max_pool2d(y, 2, 2, ceil_mode=True)
        b = F.max_pool2d(y, 3, 2, padding=1, ceil_mode=True)
        c = F.avg_pool2d(y, 2, 2, ceil_mode=True, count_include_pad=False)
        return torch.cat([a, b, c], 1)


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


class Attention(nn.Module):
    """Self-attention four ways (no mask, causal, float mask, bool key-padding mask) and
    cross-attention to a pooled memory with a wider value, through scaled_dot_product_attention."""

    def __init__(self, tokens=8, width=16, heads=2, memory=4, value=6):
        super().__init__()
        self.tokens, self.width, self.heads, self.memory, self.value = tokens, width, heads, memory, value
        self.qkv = nn.Linear(width, 3 * width)
        self.kv = nn.Linear(width, width + heads * value)
        self.out = nn.Linear(heads * (4 * (width // heads) + value), width)
        position = torch.arange(tokens, dtype=torch.float32)
        self.register_buffer("bias", -0.5 * (position[:, None] - position[None, :]).abs())
        keep = torch.ones(1, 1, 1, tokens, dtype=torch.bool)
        keep[..., -3:] = False
        self.register_buffer("keep", keep)

    def split_heads(self, z, size):
        return z.reshape(1, -1, self.heads, size).transpose(1, 2)

    def forward(self, x):
        d = self.width // self.heads
        q, k, v = (self.split_heads(z, d) for z in self.qkv(x).split(self.width, dim=-1))
        plain = F.scaled_dot_product_attention(q, k, v)
        causal = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        biased = F.scaled_dot_product_attention(q, k, v, attn_mask=self.bias)
        padded = F.scaled_dot_product_attention(q, k, v, attn_mask=self.keep)
        memory = x.reshape(1, self.memory, self.tokens // self.memory, self.width).mean(dim=2)
        km, vm = self.kv(memory).split([self.width, self.heads * self.value], dim=-1)
        cross = F.scaled_dot_product_attention(q, self.split_heads(km, d), self.split_heads(vm, self.value))
        y = torch.cat([plain, causal, biased, padded, cross], dim=-1)
        return self.out(y.transpose(1, 2).reshape(1, self.tokens, -1))


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


def grid_resize(x, sizes, sampling):
    """x's last two dimensions linearly resampled on coremltools' documented `resize_bilinear` grid
    for `sampling` (numpy, float64), one dimension after the other."""
    def grid(i, size, count):
        if sampling == "DEFAULT":
            return i * size / count
        if sampling == "OFFSET_CORNERS":
            return (i + 0.5) * max(1, size - 1) / count
        if sampling == "ALIGN_CORNERS":
            return i * (size - 1) / (count - 1) if count > 1 else (size - 1) / 2
        raise ValueError(sampling)

    y = x.astype(np.float64)
    for axis, count in zip((-2, -1), sizes):
        size = y.shape[axis]
        points = np.clip(np.array([grid(i, size, count) for i in range(count)]), 0, size - 1)
        low = np.floor(points).astype(int)
        high = np.minimum(low + 1, size - 1)
        weight = (points - low).reshape([-1] + [1] * (-axis - 1))
        y = np.take(y, low, axis=axis) * (1 - weight) + np.take(y, high, axis=axis) * weight
    return y


def save_resize(name, seed):
    """iOS 17's resize, built with the MIL builder (see the module's notes), with PyTorch's and
    numpy's outputs."""
    shape, like_shape = (1, 2, 3, 4), (1, 1, 7, 6)
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    # x is first scaled by a constant large enough for the weight file (every package the tests read has one).
    scale = rng.uniform(0.5, 2, shape).astype(np.float32)
    like = np.zeros(like_shape, dtype=np.float32)

    # `like` has a flexible shape, so that its shape is computed while the program runs (a known one folds to a constant).
    flexible = (1, 1, get_new_symbol(), get_new_symbol())

    @mb.program(input_specs=[mb.TensorSpec(shape=shape), mb.TensorSpec(shape=flexible)], opset_version=ct.target.iOS17)
    def program(x, like):
        scaled = mb.mul(x=x, y=scale)

        def resize(target, sampling="DEFAULT", interpolation="LINEAR", dims=2):
            return mb.resize(x=scaled, shape=target, resized_dims=np.uint32(dims), interpolation_mode=interpolation, sampling_mode=sampling)

        outputs = {
            "computed_align": resize(mb.shape(x=like), "ALIGN_CORNERS"),
            "computed_nearest": resize(mb.shape(x=like), interpolation="NEAREST_NEIGHBOR"),
            "unalign": resize(np.array([5, 3], dtype=np.int32), "UNALIGN_CORNERS"),
            "strict_align": resize(np.array([2, 7, 6], dtype=np.int32), "STRICT_ALIGN_CORNERS"),
            "default": resize(np.array([7, 6], dtype=np.int32)),
            "offset": resize(np.array([5, 3], dtype=np.int32), "OFFSET_CORNERS"),
            "align_one": resize(np.array([1, 6], dtype=np.int32), "ALIGN_CORNERS"),
            "nearest_down": resize(np.array([2, 3], dtype=np.int32), interpolation="NEAREST_NEIGHBOR"),
            "last_only": resize(np.array([9], dtype=np.int32), "UNALIGN_CORNERS", dims=1),
        }
        return tuple(mb.identity(x=value, name=key) for key, value in outputs.items())

    inputs = [ct.TensorType(name="x", shape=shape),
              ct.TensorType(name="like", shape=(1, 1, ct.RangeDim(1, 16, default=7), ct.RangeDim(1, 16, default=6)))]
    converted = ct.convert(program, inputs=inputs, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS17,
                           compute_precision=ct.precision.FLOAT32)
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    converted.save(path)
    t = torch.from_numpy(x * scale)

    def interpolate(size, **options):
        return F.interpolate(t, size=size, **options).numpy()

    expected = {
        "computed_align": interpolate((7, 6), mode="bilinear", align_corners=True),
        "computed_nearest": interpolate((7, 6), mode="nearest-exact"),
        "unalign": interpolate((5, 3), mode="bilinear", align_corners=False),
        "strict_align": interpolate((7, 6), mode="bilinear", align_corners=True),
        "default": grid_resize(x * scale, (7, 6), "DEFAULT"),
        "offset": grid_resize(x * scale, (5, 3), "OFFSET_CORNERS"),
        "align_one": grid_resize(x * scale, (1, 6), "ALIGN_CORNERS"),
        "nearest_down": interpolate((2, 3), mode="nearest-exact"),
        "last_only": F.interpolate(t.reshape(1, 6, 4), size=9, mode="linear", align_corners=False).reshape(1, 2, 3, 9).numpy(),
    }
    return {"operationCounts": operation_counts(path), "precision": "float32",
            "inputs": {"x": {"shape": list(shape), "values": x.ravel().tolist()},
                       "like": {"shape": list(like_shape), "values": like.ravel().tolist()}},
            "outputs": {key: {"shape": list(value.shape), "values": value.ravel().tolist()} for key, value in expected.items()}}


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
    result["TorchTransformer18.mlpackage"] = save("TorchTransformer18.mlpackage", seeded(Block, 12), (1, 8, 16), 27,
                                                  ct.target.iOS18, ct.precision.FLOAT16)
    result["TorchAttention.mlpackage"] = save("TorchAttention.mlpackage", seeded(Attention, 15), (1, 8, 16), 28,
                                              ct.target.iOS18, ct.precision.FLOAT32)
    result["TorchAttention16.mlpackage"] = save("TorchAttention16.mlpackage", seeded(Attention, 15), (1, 8, 16), 29,
                                                ct.target.iOS18, ct.precision.FLOAT16)
    result["TorchCeilPool.mlpackage"] = save("TorchCeilPool.mlpackage", seeded(CeilPool, 16), (1, 3, 11, 11), 31,
                                             ct.target.iOS15, ct.precision.FLOAT32)
    result["Resize17.mlpackage"] = save_resize("Resize17.mlpackage", 30)
    with open(os.path.join(HERE, "torch_facts.json"), "w") as file:
        json.dump(result, file, indent=1, sort_keys=True)
        file.write("\n")
    print(json.dumps({k: (v["operationCounts"] if isinstance(v, dict) else v) for k, v in result.items()}, indent=1),
          file=sys.stderr)


if __name__ == "__main__":
    main()
