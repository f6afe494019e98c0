#!/usr/bin/env python3
"""Single-operation ML Programs for the op micro-benchmarks (issue 28: a standalone `sigmoid`, the
PReLU pattern and `pad` on 1 M floats).

    /work/main/.build/suites-venv/bin/python Scripts/make_op_bench_models.py OUTPUT_FOLDER

writes, for an input `x` of shape [1, 16, 256, 256] (1,048,576 floats):
  sigmoid.mlpackage       y = sigmoid(x), fp32
  prelu_pattern.mlpackage y = select(greater_equal(x, 0), x, mul(x, alpha)), alpha [1, 16, 1, 1], fp32
  pad.mlpackage           y = pad(x, 1 on each side of H and W, constant 0), fp32
  prelu_fp16.mlpackage    a PyTorch nn.PReLU(16) converted with compute_precision FLOAT16 (the casts
                          around the fp16 arithmetic are what the engine removes)
  prelu_pattern_fp16.mlpackage  torch.where(x >= 0, x, x * alpha), the same way
and prints each program's operations. Then time them with
    opencoreml bench predict OUTPUT_FOLDER/sigmoid.mlpackage --batch 1 --threads 2
The models are generated, not kept in git.
"""
import os
import sys

import numpy as np
import coremltools as ct
from coremltools.converters.mil import Builder as mb
from coremltools.converters.mil.mil import types

SHAPE = (1, 16, 256, 256)


def show(model, name):
    spec = model.get_spec()
    block = next(iter(spec.mlProgram.functions["main"].block_specializations.values()))
    ops = [op.type for op in block.operations]
    print(f"{name}: {' → '.join(ops)}")


def main():
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTPUT_FOLDER")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    @mb.program(input_specs=[mb.TensorSpec(shape=SHAPE)])
    def sigmoid(x):
        return mb.sigmoid(x=x, name="y")

    rng = np.random.default_rng(28)
    alpha = rng.uniform(0.05, 0.5, size=(1, SHAPE[1], 1, 1)).astype(np.float32)

    @mb.program(input_specs=[mb.TensorSpec(shape=SHAPE)])
    def prelu_pattern(x):
        positive = mb.greater_equal(x=x, y=np.float32(0))
        scaled = mb.mul(x=x, y=alpha)
        return mb.select(cond=positive, a=x, b=scaled, name="y")

    @mb.program(input_specs=[mb.TensorSpec(shape=SHAPE)])
    def pad(x):
        return mb.pad(x=x, pad=np.array([0, 0, 0, 0, 1, 1, 1, 1], dtype=np.int32), mode="constant",
                      constant_val=np.float32(0), name="y")

    for name, program in [("sigmoid", sigmoid), ("prelu_pattern", prelu_pattern), ("pad", pad)]:
        # The passes would rewrite the pattern into one `prelu` (or the like): keep the operations as written.
        model = ct.convert(program, convert_to="mlprogram", compute_precision=ct.precision.FLOAT32,
                           minimum_deployment_target=ct.target.iOS16,
                           pass_pipeline=ct.PassPipeline.EMPTY)
        model.save(os.path.join(out, f"{name}.mlpackage"))
        show(model, name)

    import torch

    class PReLUNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.prelu = torch.nn.PReLU(SHAPE[1])
            with torch.no_grad():
                self.prelu.weight.copy_(torch.from_numpy(alpha.reshape(-1)))

        def forward(self, x):
            return self.prelu(x)

    class WherePReLU(torch.nn.Module):
        """The pattern a converted TensorFlow Lite or ONNX model spells PReLU with."""
        def __init__(self):
            super().__init__()
            self.register_buffer("alpha", torch.from_numpy(alpha))

        def forward(self, x):
            return torch.where(x >= 0, x, x * self.alpha)

    for name, module in [("prelu_fp16", PReLUNet()), ("prelu_pattern_fp16", WherePReLU())]:
        traced = torch.jit.trace(module.eval(), torch.zeros(SHAPE))
        # iOS15: inputs and outputs stay fp32, so the fp16 arithmetic sits between casts.
        model = ct.convert(traced, inputs=[ct.TensorType(name="x", shape=SHAPE)], outputs=[ct.TensorType(name="y")],
                           convert_to="mlprogram", compute_precision=ct.precision.FLOAT16,
                           minimum_deployment_target=ct.target.iOS15)
        model.save(os.path.join(out, f"{name}.mlpackage"))
        show(model, name)

if __name__ == "__main__":
    main()
