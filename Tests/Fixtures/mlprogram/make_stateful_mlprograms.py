"""Stateful ML Program fixtures (iOS 18 states) converted from PyTorch by coremltools 9.0, with
PyTorch's own outputs token by token (stateful_facts.json), for
Tests/OpenCoreMLTests/MLProgramStateTests.swift.

    /work/main/.build/suites-venv/bin/python Tests/Fixtures/mlprogram/make_stateful_mlprograms.py

(any venv with coremltools==9.0, numpy and torch==2.13.0+cpu.)

- TorchKVCache.mlpackage: float32, iOS 18 — a one-layer decoder (embedding 16×32, one attention
  head over a key/value cache of 8 positions, output projection, residual, vocabulary head). The
  caches `k_cache` and `v_cache` [1, 8, 32] are registered buffers updated in place, which
  coremltools converts to states (`read_state`, `coreml_update_state`). The cache is a sliding
  window: each step drops the oldest position and appends the new key and value; the `mask` input
  [1, 1, 8] (0 for filled positions, -10000 for empty ones) keeps attention to the filled ones.
  The buffers are written with an in-place add (`cache.add_(new - cache)`, coremltools' stateful
  guide's accumulator pattern) rather than a slice assignment, which would convert to
  `slice_update` too.
- TorchKVCache16.mlpackage: the same decoder with compute precision FLOAT16: float16 states, mask
  and logits.

stateful_facts.json holds, per package, the token sequence, the masks and PyTorch's logits at each
step (float32 PyTorch for both; the float16 package is compared within float16's precision).
"""
import json
import os
import shutil
import warnings

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import coremltools as ct  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LENGTH, WIDTH, VOCABULARY = 8, 32, 16
TOKENS = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]  # longer than the cache: the window slides at the end


class CachedDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCABULARY, WIDTH)
        self.query, self.key, self.value = nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH), nn.Linear(WIDTH, WIDTH)
        self.out = nn.Linear(WIDTH, WIDTH)
        self.head = nn.Linear(WIDTH, VOCABULARY)
        self.register_buffer("k_cache", torch.zeros(1, LENGTH, WIDTH))
        self.register_buffer("v_cache", torch.zeros(1, LENGTH, WIDTH))

    def forward(self, ids, mask):
        x = self.embedding(ids)
        q, k, v = self.query(x), self.key(x), self.value(x)
        keys = torch.cat([self.k_cache[:, 1:, :], k], dim=1)
        values = torch.cat([self.v_cache[:, 1:, :], v], dim=1)
        self.k_cache.add_(keys - self.k_cache)
        self.v_cache.add_(values - self.v_cache)
        weights = torch.softmax(q @ keys.transpose(1, 2) / WIDTH ** 0.5 + mask, dim=-1)
        return self.head(x + self.out(weights @ values))


def mask(step):
    filled = min(step + 1, LENGTH)
    m = np.full((1, 1, LENGTH), -10000.0, dtype=np.float32)
    m[..., LENGTH - filled:] = 0
    return m


def main():
    torch.manual_seed(29)
    model = CachedDecoder().eval()
    traced = torch.jit.trace(model, (torch.zeros(1, 1, dtype=torch.int32), torch.zeros(1, 1, LENGTH)))
    steps = []
    with torch.no_grad():
        model.k_cache.zero_()
        model.v_cache.zero_()
        for step, token in enumerate(TOKENS):
            logits = model(torch.tensor([[token]], dtype=torch.int32), torch.from_numpy(mask(step)))
            steps.append({"token": token, "mask": mask(step).ravel().tolist(),
                          "logits": logits.numpy().astype(np.float64).ravel().round(7).tolist()})
        final_k = model.k_cache.numpy().astype(np.float64).ravel().round(7).tolist()
    facts = {}
    for name, precision in [("TorchKVCache.mlpackage", ct.precision.FLOAT32),
                                   ("TorchKVCache16.mlpackage", ct.precision.FLOAT16)]:
        state_type = ct.TensorType(shape=(1, LENGTH, WIDTH), dtype=np.float16)  # coremltools: states are float16
        mlmodel = ct.convert(
            traced,
            inputs=[ct.TensorType(name="ids", shape=(1, 1), dtype=np.int32), ct.TensorType(name="mask", shape=(1, 1, LENGTH))],
            outputs=[ct.TensorType(name="logits")],
            states=[ct.StateType(wrapped_type=state_type, name="k_cache"), ct.StateType(wrapped_type=state_type, name="v_cache")],
            minimum_deployment_target=ct.target.iOS18, compute_precision=precision, convert_to="mlprogram")
        path = os.path.join(HERE, name)
        shutil.rmtree(path, ignore_errors=True)
        mlmodel.save(path)
        ops = sorted({op.op_type for op in mlmodel._mil_program.functions["main"].operations})
        facts[name] = {"ops": ops, "length": LENGTH, "width": WIDTH, "steps": steps, "final_k_cache": final_k}
    with open(os.path.join(HERE, "stateful_facts.json"), "w") as f:
        json.dump(facts, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
