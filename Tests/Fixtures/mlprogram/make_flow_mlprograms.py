"""ML Program fixtures for control flow and recurrent layers, with reference outputs
(flow_facts.json) for Tests/OpenCoreMLTests/MLProgramFlowTests.swift.

    /tmp/mlp-venv/bin/python Tests/Fixtures/mlprogram/make_flow_mlprograms.py
    (a venv with coremltools==9.0, numpy and the CPU wheel of torch 2.13.0; see make_torch_mlprograms.py)

Converted from seeded PyTorch models (traced, or scripted where the loop must stay a loop), with
PyTorch's outputs:
- TorchLSTM.mlpackage: float32, iOS 15 — one LSTM layer, batch 2; outputs y, h, c.
- TorchBiLSTM.mlpackage: float32, iOS 17 — two bidirectional LSTM layers; outputs y, h, c.
- TorchBiLSTM16.mlpackage: the same with compute precision FLOAT16 (float32 input and output).
- TorchGRU.mlpackage: float32, iOS 15 — a batch-first GRU; coremltools writes PyTorch's GRU as a
  while_loop (its reset gate acts after the hidden product, MIL's gru before it) with gather and scatter.
- TorchRNN.mlpackage: float32, iOS 15 — two ReLU RNN layers.
- TorchLoop.mlpackage: float32, iOS 15 — a scripted module: a while loop whose condition depends
  on the data (and a step cap), a nested if inside the loop, an if after it; two input cases that
  take different branches and iteration counts.
Built with coremltools' MIL builder, with numpy's outputs:
- Flow.mlpackage: float32, iOS 17 — while_loop whose body holds a cond and reads outer values,
  gru (forward and reverse), lstm (reverse, peepholes, clip, hard_sigmoid / relu activations,
  initial states from inputs), rnn (reverse, sigmoid), range_1d (from the loop's count), shape,
  fill, fill_like, topk, argsort, scatter, logical_and / or / xor / not, identity. The recurrent
  references follow the formulas of coremltools' own numpy references for these operations (its
  tests); the reverse lstm is also PyTorch's LSTM on the flipped sequence, as coremltools' tests
  compare it.
- HugeLoop.mlpackage: float32, iOS 15 — a while_loop of two billion iterations; the facts hold the
  error OpenCoreML gives at its iteration limit instead of outputs.

(Running the script again rewrites every package with new identifiers in its Manifest.json; the
programs, weights and facts come out the same.)
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
import coremltools as ct  # noqa: E402
from coremltools.converters.mil import Builder as mb  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def tensor(array):
    array = np.asarray(array, dtype=np.float64)
    return {"shape": list(array.shape), "values": array.ravel().tolist()}


def operation_counts(path):
    """Every operation type in the program, nested blocks included."""
    program = ct.utils.load_spec(path).mlProgram
    counts = Counter()

    def visit(block):
        for operation in block.operations:
            counts[operation.type] += 1
            for nested in operation.blocks:
                visit(nested)

    for function in program.functions.values():
        visit(function.block_specializations[function.opset])
    return dict(sorted(counts.items()))


def write(name, model):
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    model.save(path)
    return path


class LSTMModel(nn.Module):
    def __init__(self, layers, bidirectional):
        super().__init__()
        self.rnn = nn.LSTM(4, 5, num_layers=layers, bidirectional=bidirectional)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return y, h, c


class GRUModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 5, batch_first=True)

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


class RNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(4, 5, num_layers=2, nonlinearity="relu")

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


class LoopModel(nn.Module):
    """Grows y until its magnitude reaches 20 (at most 50 steps), then doubles it or negates it."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)

    def forward(self, x):
        y = x
        steps = 0
        while bool(y.abs().sum() < 20.0) and steps < 50:
            y = torch.tanh(self.linear(y)) * 1.5 + y
            steps += 1
        if bool(y[0, 2] > 0):
            y = y * 2
        else:
            y = -y
        return y


def convert_torch(name, model, shape, seeds, target, precision, outputs, script=False):
    """Converts `model` (traced on the first seeded input unless `script`); one facts entry per seed."""
    inputs = [torch.from_numpy(np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)) for seed in seeds]
    with torch.no_grad():
        module = torch.jit.script(model) if script else torch.jit.trace(model, inputs[0])
        results = [model(x) for x in inputs]
    converted = ct.convert(module, inputs=[ct.TensorType(name="x", shape=shape)], outputs=[ct.TensorType(name=n) for n in outputs],
                           convert_to="mlprogram", minimum_deployment_target=target, compute_precision=precision)
    counts = operation_counts(write(name, converted))
    entries = {}
    for index, (x, result) in enumerate(zip(inputs, results)):
        result = result if isinstance(result, tuple) else (result,)
        entries[name if index == 0 else f"{name} (case {index + 1})"] = {
            "package": name, "operationCounts": counts,
            "precision": "float16" if precision == ct.precision.FLOAT16 else "float32",
            "inputs": {"x": tensor(x.numpy())},
            "outputs": {n: tensor(r.numpy()) for n, r in zip(outputs, result)}}
    return entries


# numpy references for the MIL builder program.

def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def hard_sigmoid(v):
    return np.clip(0.2 * v + 0.5, 0, 1)


def mil_gru(x, h, w_ih, w_hh, b, reverse):
    """MIL's gru: gates [r, o, z]; o reads W_ho·(r∘h); outputs in the order made."""
    H = h.shape[1]
    w_r, w_o, w_z = np.split(w_ih, 3)
    r_r, r_o, r_z = np.split(w_hh, 3)
    b_r, b_o, b_z = np.split(b, 3)
    outputs = []
    for t in (range(len(x) - 1, -1, -1) if reverse else range(len(x))):
        z = sigmoid(x[t] @ w_z.T + h @ r_z.T + b_z)
        r = sigmoid(x[t] @ w_r.T + h @ r_r.T + b_r)
        o = np.tanh(x[t] @ w_o.T + (h * r) @ r_o.T + b_o)
        h = (1 - z) * o + z * h
        outputs.append(h)
    assert h.shape[1] == H
    return np.stack(outputs), h


def mil_lstm(x, h, c, w_ih, w_hh, b, p, clip, reverse, recurrent, cell, output):
    """MIL's lstm: gates [i, f, o, z]; peepholes [i, f, o]; the cell state clipped after each update."""
    w = np.split(w_ih, 4)
    r = np.split(w_hh, 4)
    bs = np.split(b, 4)
    ps = np.split(p, 3)
    outputs = []
    for t in (range(len(x) - 1, -1, -1) if reverse else range(len(x))):
        g = [x[t] @ w[k].T + h @ r[k].T + bs[k] for k in range(4)]
        i = recurrent(g[0] + c * ps[0])
        f = recurrent(g[1] + c * ps[1])
        z = cell(g[3])
        c = np.clip(f * c + i * z, -clip, clip)
        o = recurrent(g[2] + c * ps[2])
        h = o * output(c)
        outputs.append(h)
    return np.stack(outputs), h, c


def mil_rnn(x, h, w_ih, w_hh, b, reverse, activation):
    outputs = []
    for t in (range(len(x) - 1, -1, -1) if reverse else range(len(x))):
        h = activation(x[t] @ w_ih.T + h @ w_hh.T + b)
        outputs.append(h)
    return np.stack(outputs), h


def flow_program():
    rng = np.random.default_rng(31)
    f32 = np.float32
    S, B, I, H = 5, 2, 3, 4
    u = lambda *shape: rng.uniform(-1, 1, shape).astype(f32)  # noqa: E731
    gru_w = (u(3 * H, I), u(3 * H, H), u(3 * H))
    gru_back = (u(3 * H, I), u(3 * H, H), u(3 * H))
    lstm_w = (u(4 * H, I), u(4 * H, H), u(4 * H), u(3 * H))
    rnn_w = (u(H, I), u(H, H), u(H))
    loop_w = u(3, 3)
    clip = f32(0.6)

    specs = [mb.TensorSpec(shape=(S, B, I)), mb.TensorSpec(shape=(B, H)), mb.TensorSpec(shape=(B, H)), mb.TensorSpec(shape=(2, 3))]

    @mb.program(input_specs=specs, opset_version=ct.target.iOS17)
    def program(x, h0, c0, v):
        gru_y, gru_h = mb.gru(x=x, initial_h=h0, weight_ih=gru_w[0], weight_hh=gru_w[1], bias=gru_w[2], output_sequence=True)
        gru_rev_y, _ = mb.gru(x=x, initial_h=h0, weight_ih=gru_back[0], weight_hh=gru_back[1], bias=gru_back[2],
                              direction="reverse", output_sequence=False)
        lstm_y, lstm_h, lstm_c = mb.lstm(x=x, initial_h=h0, initial_c=c0, weight_ih=lstm_w[0], weight_hh=lstm_w[1], bias=lstm_w[2],
                                         peephole=lstm_w[3], direction="reverse", output_sequence=True, clip=clip,
                                         recurrent_activation="hard_sigmoid", cell_activation="tanh", activation="relu")
        rnn_y, rnn_h = mb.rnn(x=x, initial_h=h0, weight_ih=rnn_w[0], weight_hh=rnn_w[1], bias=rnn_w[2],
                              direction="reverse", output_sequence=True, activation="sigmoid")

        # A loop over (i, acc): acc ← acc·W + 0.1·i, halved whenever its sum is positive; stops at
        # i = 4 or when acc's largest value exceeds 2.
        def condition(i, acc):
            return mb.logical_and(x=mb.less(x=i, y=np.int32(4)),
                                  y=mb.logical_not(x=mb.greater(x=mb.reduce_max(x=acc), y=f32(2))))

        def body(i, acc):
            step = mb.add(x=mb.matmul(x=acc, y=loop_w), y=mb.mul(x=mb.cast(x=i, dtype="fp32"), y=f32(0.1)))
            positive = mb.greater(x=mb.reduce_sum(x=step), y=f32(0))
            halved = mb.cond(pred=positive, _true_fn=lambda: mb.mul(x=step, y=f32(0.5)), _false_fn=lambda: mb.identity(x=step))
            return mb.add(x=i, y=np.int32(1)), halved

        count, loop_y = mb.while_loop(_cond=condition, _body=body, loop_vars=(np.int32(0), v))

        # A range computed from the loop's count (so the converter cannot fold it), its shape, a fill of it.
        steps = mb.range_1d(start=count, end=np.int32(9), step=np.int32(2))
        shape = mb.shape(x=steps)
        filled = mb.fill(shape=shape, value=f32(0.25))
        like = mb.fill_like(ref_tensor=v, value=f32(-1.5))
        top_values, top_indices = mb.topk(x=v, k=2, axis=1)
        order = mb.argsort(x=v, axis=1, ascending=True)
        scattered = mb.scatter(data=v, indices=np.array([2, 0], np.int32), updates=mb.mul(x=mb.slice_by_index(x=v, begin=[0, 0], end=[2, 2]), y=f32(10)), axis=1, mode="update")
        a = mb.greater(x=v, y=f32(0))
        b = mb.less(x=v, y=f32(0.5))
        logic = mb.add(x=mb.cast(x=mb.logical_or(x=a, y=b), dtype="fp32"),
                       y=mb.mul(x=mb.cast(x=mb.logical_xor(x=a, y=b), dtype="fp32"), y=f32(2)))
        # The iteration count (a scalar: its output, like those of the computed range, declares no shape).
        return (mb.identity(x=gru_y, name="gru_y"), mb.identity(x=gru_h, name="gru_h"), mb.identity(x=gru_rev_y, name="gru_reverse_y"),
                mb.identity(x=lstm_y, name="lstm_y"), mb.identity(x=lstm_h, name="lstm_h"), mb.identity(x=lstm_c, name="lstm_c"),
                mb.identity(x=rnn_y, name="rnn_y"), mb.identity(x=rnn_h, name="rnn_h"),
                mb.cast(x=count, dtype="fp32", name="loop_count"), mb.identity(x=loop_y, name="loop_y"),
                mb.cast(x=shape, dtype="fp32", name="shape"), mb.identity(x=filled, name="filled"), mb.identity(x=like, name="like"),
                mb.cast(x=steps, dtype="fp32", name="range"), mb.identity(x=top_values, name="top_values"),
                mb.cast(x=top_indices, dtype="fp32", name="top_indices"), mb.cast(x=order, dtype="fp32", name="order"),
                mb.identity(x=scattered, name="scattered"), mb.identity(x=logic, name="logic"))

    model = ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS17, compute_precision=ct.precision.FLOAT32)
    spec = model.get_spec()
    names = [i.name for i in spec.description.input]
    outs = [o.name for o in spec.description.output]
    counts = operation_counts(write("Flow.mlpackage", model))

    x, h0, c0, v = u(S, B, I), u(B, H), u(B, H), u(2, 3)
    gru_y, gru_h = mil_gru(x, h0, *gru_w, reverse=False)
    gru_rev_y, _ = mil_gru(x, h0, *gru_back, reverse=True)
    lstm_y, lstm_h, lstm_c = mil_lstm(x, h0, c0, *lstm_w, clip=clip, reverse=True, recurrent=hard_sigmoid, cell=np.tanh,
                                      output=lambda q: np.maximum(q, 0))
    rnn_y, rnn_h = mil_rnn(x, h0, *rnn_w, reverse=True, activation=sigmoid)
    i, acc = 0, v
    while i < 4 and not acc.max() > 2:
        step = acc @ loop_w + f32(0.1) * i
        acc = step * f32(0.5) if step.sum() > 0 else step
        i += 1
    assert i >= 2, "the loop should run more than once"
    scattered = v.copy()
    scattered[:, 2], scattered[:, 0] = v[:, 0] * 10, v[:, 1] * 10
    a, b = v > 0, v < 0.5
    expected = {
        "gru_y": gru_y, "gru_h": gru_h, "gru_reverse_y": gru_rev_y[-1:],
        "lstm_y": lstm_y, "lstm_h": lstm_h, "lstm_c": lstm_c, "rnn_y": rnn_y, "rnn_h": rnn_h,
        "loop_count": np.array(i, f32), "loop_y": acc, "range": np.arange(i, 9, 2), "shape": np.array([len(np.arange(i, 9, 2))], f32),
        "filled": np.full(len(np.arange(i, 9, 2)), 0.25), "like": np.full(v.shape, -1.5),
        "top_values": -np.sort(-v, axis=1)[:, :2], "top_indices": np.argsort(-v, axis=1, kind="stable")[:, :2],
        "order": np.argsort(v, axis=1, kind="stable"), "scattered": scattered,
        "logic": (a | b).astype(f32) + 2 * (a ^ b).astype(f32),
    }
    # coremltools' tests check a reverse lstm against PyTorch's on the flipped sequence; so does this one
    # (with the plain activations, no peepholes, no clip, which PyTorch's LSTM cannot express).
    torch_lstm = nn.LSTM(I, H)
    with torch.no_grad():
        reference, _ = torch_lstm(torch.from_numpy(x[::-1].copy()), (torch.from_numpy(h0[None]), torch.from_numpy(c0[None])))
    ifzo = lambda m: np.concatenate([m[0:H], m[H:2 * H], m[3 * H:], m[2 * H:3 * H]])  # noqa: E731
    plain, _, _ = mil_lstm(x, h0, c0, ifzo(torch_lstm.weight_ih_l0.detach().numpy()), ifzo(torch_lstm.weight_hh_l0.detach().numpy()),
                           ifzo((torch_lstm.bias_ih_l0 + torch_lstm.bias_hh_l0).detach().numpy()), np.zeros(3 * H, f32), clip=np.inf,
                           reverse=True, recurrent=sigmoid, cell=np.tanh, output=np.tanh)
    assert np.abs(plain - reference.numpy()).max() < 1e-5, "the numpy lstm disagrees with PyTorch's"
    assert set(expected) == set(outs), (sorted(expected), outs)
    return {"Flow.mlpackage": {"package": "Flow.mlpackage", "operationCounts": counts, "precision": "float32",
                               "inputs": dict(zip(names, map(tensor, (x, h0, c0, v)))),
                               "outputs": {n: tensor(expected[n]) for n in outs}}}


def huge_loop_program():
    """A loop of two billion iterations: OpenCoreML stops it at its iteration limit with an error.
    (Its body adds 16 values, which coremltools keeps in the weight file: a package without one has
    an empty weights folder, which git does not keep.)"""
    step = np.linspace(0, 1, 16, dtype=np.float32)[None]

    @mb.program(input_specs=[mb.TensorSpec(shape=(1, 16))], opset_version=ct.target.iOS15)
    def program(x):
        _, y = mb.while_loop(_cond=lambda i, acc: mb.less(x=i, y=np.int32(2_000_000_000)),
                             _body=lambda i, acc: (mb.add(x=i, y=np.int32(1)), mb.add(x=acc, y=step)),
                             loop_vars=(np.int32(0), x))
        return mb.identity(x=y, name="y")

    model = ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS15, compute_precision=ct.precision.FLOAT32)
    counts = operation_counts(write("HugeLoop.mlpackage", model))
    return {"HugeLoop.mlpackage": {"package": "HugeLoop.mlpackage", "operationCounts": counts, "precision": "float32",
                                   "inputs": {"x": tensor(np.zeros((1, 16), np.float32))},
                                   "error": "more than 100000 loop iterations in one prediction"}}


def seeded(model, seed, *arguments):
    torch.manual_seed(seed)
    return model(*arguments).eval()


def main():
    torch.set_num_threads(1)
    result = {"coremltools": ct.__version__, "torch": torch.__version__}
    f32, f16 = ct.precision.FLOAT32, ct.precision.FLOAT16
    result.update(convert_torch("TorchLSTM.mlpackage", seeded(LSTMModel, 41, 1, False), (7, 2, 4), [51], ct.target.iOS15, f32, ["y", "h", "c"]))
    result.update(convert_torch("TorchBiLSTM.mlpackage", seeded(LSTMModel, 42, 2, True), (6, 1, 4), [52], ct.target.iOS17, f32, ["y", "h", "c"]))
    result.update(convert_torch("TorchBiLSTM16.mlpackage", seeded(LSTMModel, 42, 2, True), (6, 1, 4), [53], ct.target.iOS17, f16, ["y", "h", "c"]))
    result.update(convert_torch("TorchGRU.mlpackage", seeded(GRUModel, 43), (2, 6, 4), [54], ct.target.iOS15, f32, ["y", "h"]))
    result.update(convert_torch("TorchRNN.mlpackage", seeded(RNNModel, 44), (6, 2, 4), [55], ct.target.iOS15, f32, ["y", "h"]))
    result.update(convert_torch("TorchLoop.mlpackage", seeded(LoopModel, 45), (2, 4), [56, 58, 60], ct.target.iOS15, f32, ["y"], script=True))
    result.update(flow_program())
    result.update(huge_loop_program())
    for name, entry in result.items():
        if isinstance(entry, dict) and name.endswith(".mlpackage"):
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(HERE, name)) for f in fs)
            assert size <= 100_000, f"{name} is {size} bytes"
    with open(os.path.join(HERE, "flow_facts.json"), "w") as file:
        json.dump(result, file, indent=1, sort_keys=True)
        file.write("\n")
    print(json.dumps({k: (v["operationCounts"] if isinstance(v, dict) else v) for k, v in result.items()}, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
