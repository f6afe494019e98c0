"""A multifunction ML Program package (iOS 18) made by coremltools 9.0's
`ct.utils.MultiFunctionDescriptor` and `ct.utils.save_multifunction`, with PyTorch's outputs
(multifunction_facts.json), for Tests/OpenCoreMLTests/MLProgramMultifunctionTests.swift and the CLI
tests.

    /work/main/.build/suites-venv/bin/python Tests/Fixtures/mlprogram/make_multifunction_mlprograms.py

(any venv with coremltools==9.0, numpy and torch==2.13.0+cpu.)

- TorchMultifunction.mlpackage: float32, two functions sharing one weight (a linear layer 6 → 4,
  stored once: save_multifunction deduplicates equal constants across functions):
  `base` (the default): x [1, 6] → y = relu(shared(x)) [1, 4];
  `adapter`: x [1, 6] → y = shared(x) + lora_b(lora_a(x)) [1, 4] and scale = sum of y [1, 1]
  (an adapter with a second output, so the functions' descriptions differ).
"""
import json
import os
import shutil
import tempfile
import warnings

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import coremltools as ct  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "TorchMultifunction.mlpackage"


class Base(nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.shared = shared

    def forward(self, x):
        return torch.relu(self.shared(x))


class Adapter(nn.Module):
    def __init__(self, shared):
        super().__init__()
        self.shared = shared
        self.lora_a = nn.Linear(6, 2, bias=False)
        self.lora_b = nn.Linear(2, 4, bias=False)

    def forward(self, x):
        y = self.shared(x) + self.lora_b(self.lora_a(x))
        return y, y.sum(dim=1, keepdim=True)


def main():
    torch.manual_seed(18)
    shared = nn.Linear(6, 4)
    x = torch.from_numpy(np.random.RandomState(18).randn(1, 6).astype(np.float32))
    facts = {"input": {"shape": [1, 6], "values": x.numpy().astype(np.float64).ravel().round(7).tolist()}, "functions": {}}
    folder = tempfile.mkdtemp()
    descriptor = ct.utils.MultiFunctionDescriptor()
    for function, model, outputs in [("base", Base(shared).eval(), ["y"]), ("adapter", Adapter(shared).eval(), ["y", "scale"])]:
        traced = torch.jit.trace(model, x)
        mlmodel = ct.convert(traced, inputs=[ct.TensorType(name="x", shape=(1, 6))], outputs=[ct.TensorType(name=n) for n in outputs],
                             minimum_deployment_target=ct.target.iOS18, compute_precision=ct.precision.FLOAT32, convert_to="mlprogram")
        path = os.path.join(folder, function + ".mlpackage")
        mlmodel.save(path)
        descriptor.add_function(path, src_function_name="main", target_function_name=function)
        with torch.no_grad():
            result = model(x)
        result = result if isinstance(result, tuple) else (result,)
        facts["functions"][function] = {name: {"shape": list(value.shape), "values": value.numpy().astype(np.float64).ravel().round(7).tolist()}
                                        for name, value in zip(outputs, result)}
    descriptor.default_function_name = "base"
    destination = os.path.join(HERE, NAME)
    shutil.rmtree(destination, ignore_errors=True)
    ct.utils.save_multifunction(descriptor, destination)
    shutil.rmtree(folder)
    facts["default"] = "base"
    with open(os.path.join(HERE, "multifunction_facts.json"), "w") as f:
        json.dump(facts, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
