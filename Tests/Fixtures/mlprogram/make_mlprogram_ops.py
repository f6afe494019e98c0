"""Ops.mlpackage: one ML Program that applies each MIL operation OpenCoreML runs beyond the first 29
to one seeded input, with a parameter set per output that the PyTorch fixtures do not reach
(non-trailing layer_norm axes, negative slice strides and masks, gather with batch_dims, the three
pad modes, the three bilinear sampling rules, …), built with coremltools 9.0's MIL builder, float32,
iOS 16. ops_facts.json holds the input and each output computed independently by numpy (float64),
or by PyTorch where numpy lacks the function (erf), for Tests/OpenCoreMLTests/MLProgramTorchTests.swift.

    python3 -m venv .venv-torch && .venv-torch/bin/pip install coremltools==9.0 numpy "torch==2.13.0+cpu"
    .venv-torch/bin/python Tests/Fixtures/mlprogram/make_mlprogram_ops.py
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
import coremltools as ct  # noqa: E402
from coremltools.converters.mil import Builder as mb  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SHAPE = (2, 3, 4, 5)
rng = np.random.default_rng(17)
GAMMA13, BETA13 = rng.uniform(0.5, 1.5, (3, 5)).astype(np.float32), rng.uniform(-0.5, 0.5, (3, 5)).astype(np.float32)
GAMMA5, BETA5 = rng.uniform(0.5, 1.5, 5).astype(np.float32), rng.uniform(-0.5, 0.5, 5).astype(np.float32)
MEAN3, VAR3 = rng.uniform(-0.5, 0.5, 3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
GAMMA3, BETA3 = rng.uniform(0.5, 1.5, 3).astype(np.float32), rng.uniform(-0.5, 0.5, 3).astype(np.float32)
LIMITS = np.array([-1, -0.5, 0, 0.5, 1], dtype=np.float32)
GATHER = np.array([[2, 0], [-1, 1]], dtype=np.int32)
BATCH_GATHER = np.array([[3, 0, 1], [1, -4, 2]], dtype=np.int32)
ALONG = rng.integers(0, 4, (2, 3, 2, 5)).astype(np.int32)


@mb.program(input_specs=[mb.TensorSpec(shape=SHAPE)], opset_version=ct.target.iOS16)
def program(x):
    magnitude = mb.abs(x=x)
    low, middle, high = mb.split(x=x, split_sizes=[1, 3, 1], axis=-1)
    halves = mb.split(x=x, num_splits=2, axis=0)
    largest = mb.reduce_max(x=x, axes=[-1], keep_dims=True)

    def counted(comparison, y):
        return mb.cast(x=comparison(x=x, y=y), dtype="fp32")

    outputs = {
        "gelu_exact": mb.gelu(x=x), "gelu_tanh": mb.gelu(x=x, mode="TANH_APPROXIMATION"),
        "gelu_sigmoid": mb.gelu(x=x, mode="SIGMOID_APPROXIMATION"), "silu": mb.silu(x=x), "softplus": mb.softplus(x=x),
        "leaky_relu": mb.leaky_relu(x=x, alpha=0.2), "elu": mb.elu(x=x, alpha=0.7),
        "thresholded_relu": mb.thresholded_relu(x=x, alpha=0.3), "sigmoid_hard": mb.sigmoid_hard(x=x, alpha=0.3, beta=0.4),
        "rsqrt": mb.rsqrt(x=magnitude, epsilon=0.1), "log": mb.log(x=magnitude, epsilon=0.5),
        "reduce_sum": mb.reduce_sum(x=x, axes=[1, 3], keep_dims=True), "reduce_max": mb.reduce_max(x=x, axes=[-1]),
        "reduce_min": mb.reduce_min(x=x, axes=[0, 2]), "reduce_mean": mb.reduce_mean(x=x, axes=[0, 2, 3]),
        "layer_norm_13": mb.layer_norm(x=x, axes=[1, 3], gamma=GAMMA13, beta=BETA13, epsilon=1e-3),
        "layer_norm_last": mb.layer_norm(x=x, axes=[-1], gamma=GAMMA5, beta=BETA5),
        "batch_norm": mb.batch_norm(x=x, mean=MEAN3, variance=VAR3, gamma=GAMMA3, beta=BETA3, epsilon=1e-3),
        "instance_norm": mb.instance_norm(x=x, gamma=GAMMA3, beta=BETA3),
        "greater": counted(mb.greater, LIMITS), "greater_equal": counted(mb.greater_equal, LIMITS),
        "less": counted(mb.less, LIMITS), "less_equal": counted(mb.less_equal, LIMITS),
        "equal": counted(mb.equal, largest), "not_equal": counted(mb.not_equal, largest),
        "select": mb.select(cond=mb.greater(x=x, y=0.25), a=x, b=LIMITS),
        "split_low": low, "split_middle": middle, "split_high": high, "split_second": halves[1],
        "slice_by_index": mb.slice_by_index(x=x, begin=[1, 0, 3, -1], end=[2, 3, 0, 0], stride=[1, 2, -1, -2],
                                            begin_mask=[False, False, False, False], end_mask=[False, False, True, True],
                                            squeeze_mask=[True, False, False, False]),
        "slice_by_size": mb.slice_by_size(x=x, begin=[0, 1, 1, 2], size=[-1, 2, 3, -1]),
        "gather": mb.gather(x=x, indices=GATHER, axis=2),
        "gather_batch": mb.gather(x=x, indices=BATCH_GATHER, axis=2, batch_dims=1),
        "gather_along_axis": mb.gather_along_axis(x=x, indices=ALONG, axis=2),
        "tile": mb.tile(x=x, reps=[1, 2, 1, 3]),
        "pad_constant": mb.pad(x=x, pad=[1, 2, 0, 1], mode="constant", constant_val=0.5),
        "pad_reflect": mb.pad(x=x, pad=[2, 1, 3, 2], mode="reflect"),
        "pad_replicate": mb.pad(x=x, pad=[0, 0, 1, 0, 2, 1, 0, 3], mode="replicate"),
        "upsample_nearest": mb.upsample_nearest_neighbor(x=x, scale_factor_height=2, scale_factor_width=3),
        "bilinear_aligned": mb.upsample_bilinear(x=x, scale_factor_height=2, scale_factor_width=2, align_corners=True),
        "bilinear_half_pixel": mb.upsample_bilinear(x=x, scale_factor_height=2, scale_factor_width=3, align_corners=False),
        "bilinear_asymmetric": mb.upsample_bilinear(x=x, scale_factor_height=2, scale_factor_width=2, align_corners=False,
                                                    half_pixel_centers=False),
    }
    for name, var in outputs.items():
        var.name = name
    return tuple(outputs.values())


def normalized(x, axes, epsilon):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + epsilon)


def bilinear(x, out_h, out_w, where):
    """Bilinear sampling of the last two axes at the positions `where(i, size, count)`."""
    def taps(count, size):
        p = np.clip(np.array([where(i, size, count) for i in range(count)], dtype=np.float64), 0, size - 1)
        low = np.floor(p).astype(int)
        return low, np.minimum(low + 1, size - 1), p - low
    y0, y1, fy = taps(out_h, x.shape[-2])
    x0, x1, fx = taps(out_w, x.shape[-1])
    rows = x[..., y0, :] * (1 - fy)[:, None] + x[..., y1, :] * fy[:, None]
    return rows[..., x0] * (1 - fx) + rows[..., x1] * fx


def references(x):
    t = torch.from_numpy(x)
    largest = x.max(axis=-1, keepdims=True)
    sigmoid = 1 / (1 + np.exp(-x))
    tanh_c = np.sqrt(2 / np.pi)
    out = {
        "gelu_exact": torch.nn.functional.gelu(t).numpy(),
        "gelu_tanh": 0.5 * x * (1 + np.tanh(tanh_c * (x + 0.044715 * x ** 3))),
        "gelu_sigmoid": x / (1 + np.exp(-1.702 * x)), "silu": x * sigmoid, "softplus": np.log1p(np.exp(x)),
        "leaky_relu": np.where(x >= 0, x, 0.2 * x), "elu": np.where(x > 0, x, 0.7 * (np.exp(x) - 1)),
        "thresholded_relu": np.where(x >= 0.3, x, 0), "sigmoid_hard": np.clip(0.3 * x + 0.4, 0, 1),
        "rsqrt": 1 / np.sqrt(np.abs(x) + 0.1), "log": np.log(np.abs(x) + 0.5),
        "reduce_sum": x.sum(axis=(1, 3), keepdims=True), "reduce_max": x.max(axis=-1),
        "reduce_min": x.min(axis=(0, 2)), "reduce_mean": x.mean(axis=(0, 2, 3)),
        "layer_norm_13": normalized(x, (1, 3), 1e-3) * GAMMA13[:, None, :] + BETA13[:, None, :],
        "layer_norm_last": normalized(x, (3,), 1e-5) * GAMMA5 + BETA5,
        "batch_norm": (x - MEAN3[:, None, None]) / np.sqrt(VAR3[:, None, None] + 1e-3) * GAMMA3[:, None, None] + BETA3[:, None, None],
        "instance_norm": normalized(x, (2, 3), 1e-5) * GAMMA3[:, None, None] + BETA3[:, None, None],
        "greater": (x > LIMITS) * 1.0, "greater_equal": (x >= LIMITS) * 1.0, "less": (x < LIMITS) * 1.0,
        "less_equal": (x <= LIMITS) * 1.0, "equal": (x == largest) * 1.0, "not_equal": (x != largest) * 1.0,
        "select": np.where(x > 0.25, x, np.broadcast_to(LIMITS, x.shape)),
        "split_low": x[..., :1], "split_middle": x[..., 1:4], "split_high": x[..., 4:], "split_second": x[1:],
        "slice_by_index": x[1, 0:3:2, 3::-1, -1::-2], "slice_by_size": x[:, 1:3, 1:4, 2:],
        "gather": np.take(x, GATHER, axis=2),
        "gather_batch": np.stack([np.take(x[b], BATCH_GATHER[b], axis=1) for b in range(2)]),
        "gather_along_axis": np.take_along_axis(x, ALONG, axis=2),
        "tile": np.tile(x, (1, 2, 1, 3)),
        "pad_constant": np.pad(x, ((0, 0), (0, 0), (1, 2), (0, 1)), constant_values=0.5),
        "pad_reflect": np.pad(x, ((0, 0), (0, 0), (2, 1), (3, 2)), mode="reflect"),
        "pad_replicate": np.pad(x, ((0, 0), (1, 0), (2, 1), (0, 3)), mode="edge"),
        "upsample_nearest": x.repeat(2, axis=2).repeat(3, axis=3),
        "bilinear_aligned": torch.nn.functional.interpolate(t, scale_factor=2, mode="bilinear", align_corners=True).numpy(),
        "bilinear_half_pixel": torch.nn.functional.interpolate(t, size=(8, 15), mode="bilinear", align_corners=False).numpy(),
        "bilinear_asymmetric": bilinear(x, 8, 10, lambda i, size, count: i * size / count),
    }
    return {name: {"shape": list(np.shape(value)), "values": np.asarray(value, dtype=np.float64).ravel().tolist()}
            for name, value in out.items()}


def main():
    path = os.path.join(HERE, "Ops.mlpackage")
    shutil.rmtree(path, ignore_errors=True)
    ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS16,
               compute_precision=ct.precision.FLOAT32).save(path)
    spec = ct.utils.load_spec(path)
    main_function = spec.mlProgram.functions["main"]
    counts = Counter(op.type for op in main_function.block_specializations[main_function.opset].operations)
    x = np.random.default_rng(5).uniform(-2, 2, SHAPE).astype(np.float32)
    facts = {"coremltools": ct.__version__, "operationCounts": dict(sorted(counts.items())),
             "outputNames": [o.name for o in spec.description.output],
             "inputs": {"x": {"shape": list(SHAPE), "values": x.ravel().tolist()}},
             "outputs": references(x.astype(np.float64))}
    missing = set(facts["outputs"]) ^ set(facts["outputNames"])
    assert not missing, f"outputs and references differ: {missing}"
    with open(os.path.join(HERE, "ops_facts.json"), "w") as file:
        json.dump(facts, file, sort_keys=True)
        file.write("\n")
    print(json.dumps(facts["operationCounts"], indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
