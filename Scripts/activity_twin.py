"""The activity classifier's PyTorch twin: Turi Create 6.3's network and training (its TensorFlow
graph, the path it takes on Linux; on macOS Turi Create 6 trains through Metal Performance Shaders),
written from its public sources' facts, on the same CSV files `opencoreml activity-classifier train`
reads, for BENCHMARKS.md ("Activity classifier vs Keras and a PyTorch twin"). Turi Create 6.4 trains
through Keras with another loss (Σ w·CE over the batch / (batch · 20), padding in the divisor, chunks
not normalized) and Adam ε 1e-7; the twin does not follow 6.4.

    python activity_twin.py --train watch-train.csv --test watch-test.csv --features ax,ay,az,wx,wy,wz \
        --label-column exercise --session-column session --time-column time --prediction-window 50 \
        --epochs 40 [--batch-size 32] [--threads 2] [--seed 0] [--shuffle] [--weights-from MODEL.mlmodel] [--json]
    python activity_twin.py --fixture OUT.json      # the layer-by-layer comparison's expected values

What Turi Create 6.3 does, and the twin with it:
- Chunks: each session cut into chunks of 20 windows of the prediction window's samples, the last
  chunk zero-padded; a window's label the majority of its rows' labels (ties to the lowest class
  index); weight 1 for a window holding a sample (a session's partly filled last window too), 0 for
  padding (Scripts/bench_activity_peer.py cuts them; the twin reuses its reader).
- Network: conv 64 (kernel = stride = window) → ReLU → dropout 0.2 → LSTM 200 (one output per
  window; a single bias per gate, no constant added to the forget gate) → dense 128 → batchnorm
  (ε 1e-3; batch statistics over every window of the batch, padding included; moving averages with
  momentum 0.99 from mean 0 and variance 1, biased variance) → ReLU → dropout 0.5 → dense K (no bias) → softmax.
- Weights: Xavier-uniform, ±sqrt(6 / (fan_in + fan_out)), with the convolution's fans
  features × window and 64 × window, each LSTM gate's input block (64 → 200) and recurrent block
  (200 → 200) on their own; every bias 0 (the output layer has none), the batchnorm's scale 1 and shift 0.
- Loss: per chunk, the windows' cross-entropies weighted and divided by the chunk's weight sum;
  then the sum over chunks divided by the number of chunks with any weight (a chunk counts once,
  however many of its windows hold samples).
- Training: Adam 1e-3 (β 0.9, 0.999, ε 1e-8), batches of 32 chunks in the data's order (Turi Create
  does not shuffle; `--shuffle` shuffles every epoch), the last batch filled up with empty chunks
  (zeros, weight 0) that the batchnorm's statistics see.
- Prediction: dropout off, the batchnorm's moving statistics, the LSTM starting from zeros at every
  chunk; accuracy per row (each row gets its window's prediction).
Deliberate simplification: torch's Adam puts ε after the bias correction, TensorFlow's before it
(an ε of 1e-8 · sqrt(1 − 0.999^t)⁻¹ against 1e-8; no visible effect).
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_activity_peer import STEPS, accuracies, chunks, load  # noqa: E402

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # busy-waiting threads crawl on a shared machine
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

CONV, LSTM, DENSE = 64, 200, 128
EPSILON, MOMENTUM = 1e-3, 0.99


class Twin(torch.nn.Module):
    def __init__(self, features, window, classes):
        super().__init__()
        self.window = window
        self.conv = torch.nn.Conv1d(features, CONV, window, stride=window)
        self.lstm = torch.nn.LSTM(CONV, LSTM, batch_first=True)
        self.dense0 = torch.nn.Linear(LSTM, DENSE)
        self.gamma = torch.nn.Parameter(torch.ones(DENSE))
        self.beta = torch.nn.Parameter(torch.zeros(DENSE))
        self.dense1 = torch.nn.Linear(DENSE, classes, bias=False)
        self.register_buffer("running_mean", torch.zeros(DENSE))
        self.register_buffer("running_var", torch.ones(DENSE))
        # One bias per gate, as Turi Create's: the input-side bias stays zero.
        self.lstm.bias_ih_l0.requires_grad_(False)
        self.dropout = True
        self.trace = None

    def initialize(self, generator):
        def xavier(t, fan_in, fan_out):
            limit = math.sqrt(6.0 / (fan_in + fan_out))
            with torch.no_grad():
                t.uniform_(-limit, limit, generator=generator)
        f = self.conv.in_channels
        xavier(self.conv.weight, f * self.window, CONV * self.window)
        for gate in range(4):
            xavier(self.lstm.weight_ih_l0[gate * LSTM:(gate + 1) * LSTM], CONV, LSTM)
            xavier(self.lstm.weight_hh_l0[gate * LSTM:(gate + 1) * LSTM], LSTM, LSTM)
        xavier(self.dense0.weight, LSTM, DENSE)
        xavier(self.dense1.weight, DENSE, self.dense1.out_features)
        with torch.no_grad():
            for b in (self.conv.bias, self.lstm.bias_ih_l0, self.lstm.bias_hh_l0, self.dense0.bias):
                b.zero_()

    def forward(self, x):
        """x: [N, 20 · window, features] → logits [N, 20, K]."""
        n = x.shape[0]
        trace = {}
        conv = self.conv(x.transpose(1, 2))  # [N, 64, 20]
        h = F.relu(conv).transpose(1, 2)  # [N, 20, 64]
        trace["relu0"] = h
        if self.training and self.dropout:
            h = F.dropout(h, 0.2, True)
        h, _ = self.lstm(h)
        trace["lstm"] = h
        d = self.dense0(h.reshape(n * STEPS, LSTM))
        trace["dense0"] = d
        if self.training:
            mean = d.mean(0)
            var = d.var(0, unbiased=False)
            with torch.no_grad():
                self.running_mean.mul_(MOMENTUM).add_((1 - MOMENTUM) * mean)
                self.running_var.mul_(MOMENTUM).add_((1 - MOMENTUM) * var)
        else:
            mean, var = self.running_mean, self.running_var
        b = (d - mean) / torch.sqrt(var + EPSILON) * self.gamma + self.beta
        trace["batchnorm"] = b
        b = F.relu(b)
        if self.training and self.dropout:
            b = F.dropout(b, 0.5, True)
        out = self.dense1(b)
        trace["dense1"] = out
        self.trace = trace
        return out.reshape(n, STEPS, -1)


def chunk_loss(logits, target, weight):
    """Turi Create's: per chunk Σ w·CE / Σ w, summed over chunks, over the chunks with any weight."""
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1), reduction="none").reshape(target.shape)
    per_chunk = (ce * weight).sum(1) / (weight.sum(1) + 1e-5)
    chunks_with_weight = (weight.sum(1) > 0).float().sum()
    return per_chunk.sum() / (chunks_with_weight + 1e-5)


def batches(x, y, w, batch_size, order):
    for start in range(0, len(order), batch_size):
        idx = order[start:start + batch_size]
        bx, by, bw = x[idx], y[idx], w[idx]
        missing = batch_size - len(idx)
        if missing:  # the last batch filled up with empty chunks, as Turi Create's iterator does
            bx = np.concatenate([bx, np.zeros((missing,) + bx.shape[1:], bx.dtype)])
            by = np.concatenate([by, np.zeros((missing,) + by.shape[1:], by.dtype)])
            bw = np.concatenate([bw, np.zeros((missing,) + bw.shape[1:], bw.dtype)])
        yield torch.from_numpy(bx), torch.from_numpy(by), torch.from_numpy(bw)


def train_and_test(a):
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    features, train, test, classes, (x, y, weights, _), (tx, ty, tw, spans) = load(a)
    w = a.prediction_window
    model = Twin(len(features), w, len(classes))
    generator = torch.Generator().manual_seed(a.seed)
    model.initialize(generator)
    if a.weights_from:
        load_weights(model, a.weights_from)
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    times = []
    for epoch in range(a.epochs):
        begin = time.perf_counter()
        model.train()
        order = rng.permutation(len(x)) if a.shuffle else np.arange(len(x))
        for bx, by, bw in batches(x, y, weights, a.batch_size, order):
            optimizer.zero_grad()
            loss = chunk_loss(model(bx), by, bw)
            loss.backward()
            optimizer.step()
        times.append(time.perf_counter() - begin)
    model.eval()
    if a.batchnorm_statistics == "recomputed":
        recompute_statistics(model, x, y, weights, a.batch_size)
    with torch.no_grad():
        probabilities = torch.softmax(model(torch.from_numpy(tx)), -1).numpy()
    per_row, per_window = accuracies(test, spans, probabilities, ty, tw, classes, w)
    confident, confident_correct = confidence(probabilities, ty, tw)
    return {
        "torch_version": torch.__version__, "epochs": a.epochs, "prediction_window": w, "shuffle": a.shuffle,
        "chunks_train": int(len(x)), "chunks_test": int(len(tx)),
        "first_epoch_seconds": times[0] if times else 0.0,
        "seconds_per_epoch": float(np.median(times[1:] if len(times) > 1 else times)) if times else 0.0,
        "test_accuracy_per_row": per_row, "test_accuracy_per_window": per_window,
        "batchnorm_statistics": a.batchnorm_statistics,
        "test_windows_above_0_9": confident, "test_correct_windows_above_0_9": confident_correct,
    }


def recompute_statistics(model, x, y, weights, batch_size):
    """OpenCoreML's default (`--batchnorm-statistics recomputed`): the batchnorm's statistics replaced
    by the average of each batch's mean and biased variance over one more pass in training mode
    (dropout on, the last batch filled up with empty chunks), without updating a weight."""
    model.train()
    means, variances = [], []
    with torch.no_grad():
        for bx, _, _ in batches(x, y, weights, batch_size, np.arange(len(x))):
            model(bx)
            dense = model.trace["dense0"].reshape(-1, DENSE).double()
            means.append(dense.mean(0))
            variances.append(dense.var(0, unbiased=False))
    model.running_mean.copy_(torch.stack(means).mean(0).float())
    model.running_var.copy_(torch.stack(variances).mean(0).float())
    model.eval()


def confidence(probabilities, ty, tw):
    """The share of test windows (with samples) whose top probability is above 0.9, and of those
    that are also right (what the book's GestureIt game scores)."""
    top = probabilities.max(axis=-1)
    right = probabilities.argmax(axis=-1) == ty
    real = tw > 0
    return float((top[real] > 0.9).mean()), float(((top > 0.9) & right)[real].mean())


def load_weights(model, path):
    """Every parameter and the batchnorm's moving statistics from an activity classifier .mlmodel that
    `opencoreml activity-classifier train` wrote (its layer names; Core ML's flat layouts are torch's):
    with `--epochs 0` the twin predicts with our trained weights, with `--max-iterations 0` models it
    trains from our initial weights (BENCHMARKS.md, "Activity classifier")."""
    from coremltools.proto import Model_pb2
    spec = Model_pb2.Model()
    with open(path, "rb") as fh:
        spec.ParseFromString(fh.read())
    layers = {layer.name: layer for layer in spec.neuralNetworkClassifier.layers}

    def values(w):
        v = np.array(w.floatValue, np.float32) if len(w.floatValue) else np.frombuffer(w.rawValue, np.float32)
        return torch.from_numpy(v.copy())

    def put(t, w):
        v = values(w)
        if v.numel() != t.numel():
            raise ValueError("%s: %d values for a tensor of %d" % (path, v.numel(), t.numel()))
        t.copy_(v.reshape(t.shape))

    gates = ["inputGate", "forgetGate", "blockInput", "outputGate"]
    with torch.no_grad():
        put(model.conv.weight, layers["conv_layer"].convolution.weights)
        put(model.conv.bias, layers["conv_layer"].convolution.bias)
        lstm = layers["lstm_layer"].uniDirectionalLSTM.weightParams
        model.lstm.bias_ih_l0.zero_()
        for g, n in enumerate(gates):
            put(model.lstm.weight_ih_l0[g * LSTM:(g + 1) * LSTM], getattr(lstm, n + "WeightMatrix"))
            put(model.lstm.weight_hh_l0[g * LSTM:(g + 1) * LSTM], getattr(lstm, n + "RecursionMatrix"))
            put(model.lstm.bias_hh_l0[g * LSTM:(g + 1) * LSTM], getattr(lstm, n + "BiasVector"))
        put(model.dense0.weight, layers["dense_layer"].innerProduct.weights)
        put(model.dense0.bias, layers["dense_layer"].innerProduct.bias)
        bn = layers["bn_layer"].batchnorm
        put(model.gamma, bn.gamma); put(model.beta, bn.beta)
        put(model.running_mean, bn.mean); put(model.running_var, bn.variance)
        put(model.dense1.weight, layers["dense_layer1"].innerProduct.weights)
        put(model.dense1.bias, layers["dense_layer1"].innerProduct.bias)


# The layer-by-layer comparison (Tests/OpenCreateMLTests/ActivityClassifier/ActivityTwinComparisonTests.swift).
# Weights, samples and labels come from formulas the Swift test computes too; only results are stored.
FIXTURE_WINDOW, FIXTURE_FEATURES, FIXTURE_CLASSES = 4, 3, 3
# Two sessions: 2 chunks (the second with 10 windows, the last of them 2 samples) and 1 chunk of 5 windows.
FIXTURE_SESSIONS = [FIXTURE_WINDOW * 29 + 2, FIXTURE_WINDOW * 5]
SAMPLES = 24  # values stored per tensor besides its sum and sum of squares
FIXTURE_BATCH = 2  # chunks per step: two steps over the 3 chunks, the second filled up with an empty chunk


def formula_weight(ordinal, i, limit):
    """Weight i (Core ML's layout) of the ordinal-th parameter, within ±limit."""
    return limit * math.sin(0.7 * i + 1.3 * ordinal + 0.5)


def fixture_sessions():
    sessions = []
    for s, n in enumerate(FIXTURE_SESSIONS):
        values = np.array([[math.sin(0.05 * t * (f + 1) + s) + 0.3 * math.cos(0.31 * t + f) for f in range(FIXTURE_FEATURES)]
                           for t in range(n)], dtype=np.float32)
        labels = ["c%d" % (((t // 10) + s) % FIXTURE_CLASSES) for t in range(n)]
        sessions.append((values, labels))
    return sessions


def summary(t):
    v = t.detach().double().reshape(-1).numpy()
    stride = max(1, len(v) // SAMPLES)
    idx = list(range(0, len(v), stride))[:SAMPLES]
    return {"count": len(v), "sum": float(v.sum()), "squares": float((v * v).sum()),
            "indices": idx, "values": [float(v[i]) for i in idx]}


def fixture(path):
    torch.manual_seed(0)
    w, f, k = FIXTURE_WINDOW, FIXTURE_FEATURES, FIXTURE_CLASSES
    classes = ["c%d" % c for c in range(k)]
    x, y, weights, _ = chunks(fixture_sessions(), w, classes)
    model = Twin(f, w, k).double()
    model.dropout = False
    # Core ML's parameters in the engine's order, each with its torch tensor (same flat layout) and Xavier limit.
    lim = lambda fi, fo: math.sqrt(6.0 / (fi + fo))  # noqa: E731
    gates = ["inputGate", "forgetGate", "blockInput", "outputGate"]
    rows = lambda t, g: t[g * LSTM:(g + 1) * LSTM]  # noqa: E731
    params = [("conv_layer.weights", model.conv.weight, lim(f * w, CONV * w)), ("conv_layer.bias", model.conv.bias, 0.1)]
    params += [("lstm_layer.%sWeightMatrix" % n, rows(model.lstm.weight_ih_l0, g), lim(CONV, LSTM)) for g, n in enumerate(gates)]
    params += [("lstm_layer.%sRecursionMatrix" % n, rows(model.lstm.weight_hh_l0, g), lim(LSTM, LSTM)) for g, n in enumerate(gates)]
    params += [("lstm_layer.%sBiasVector" % n, rows(model.lstm.bias_hh_l0, g), 0.1) for g, n in enumerate(gates)]
    params += [("dense_layer.weights", model.dense0.weight, lim(LSTM, DENSE)), ("dense_layer.bias", model.dense0.bias, 0.1),
               ("bn_layer.gamma", model.gamma, 0.2), ("bn_layer.beta", model.beta, 0.1),
               ("dense_layer1.weights", model.dense1.weight, lim(DENSE, k))]
    with torch.no_grad():
        model.lstm.bias_ih_l0.zero_()
        for ordinal, (_, t, limit) in enumerate(params):
            flat = torch.tensor([formula_weight(ordinal, i, limit) for i in range(t.numel())], dtype=torch.float64)
            if t is model.gamma:
                flat = flat + 1
            t.copy_(flat.reshape(t.shape))
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(trainable, lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    out = {"window": w, "features": f, "classes": classes, "sessions": FIXTURE_SESSIONS, "batch_size": FIXTURE_BATCH,
           "weights": [float(v) for v in weights.reshape(-1)], "labels": [int(v) for v in y.reshape(-1)], "steps": []}
    trace_blobs = {"relu0": "lstm_in", "lstm": "dense0_in", "dense0": "bn_in", "batchnorm": "relu1_in", "dense1": "softmax_in"}
    model.train()
    # Batches of 2 over the 3 chunks: two Adam steps, the second batch filled up with one empty chunk.
    for bx, by, bw in batches(x, y, weights, FIXTURE_BATCH, np.arange(len(x))):
        logits = model(bx.double())
        loss = chunk_loss(logits, by, bw.double())
        optimizer.zero_grad()
        loss.backward()
        step = {"loss": float(loss.detach()), "forward": {}, "gradients": {}, "after_step": {}}
        for key, blob in trace_blobs.items():
            step["forward"][blob] = summary(model.trace[key])
        step["forward"]["probabilities"] = summary(torch.softmax(logits, -1))
        # The LSTM's blocks are views of torch's stacked tensors: their gradients are slices of the stacks'.
        grads = {name: t.grad for name, t, _ in params if t.is_leaf}
        for g, n in enumerate(gates):
            grads["lstm_layer.%sWeightMatrix" % n] = rows(model.lstm.weight_ih_l0.grad, g)
            grads["lstm_layer.%sRecursionMatrix" % n] = rows(model.lstm.weight_hh_l0.grad, g)
            grads["lstm_layer.%sBiasVector" % n] = rows(model.lstm.bias_hh_l0.grad, g)
        for name, _, _ in params:
            step["gradients"][name] = summary(grads[name])
        optimizer.step()
        for name, t, _ in params:
            step["after_step"][name] = summary(t)
        # The dense bias before the batch-statistics batchnorm has a gradient of 0 up to rounding, so
        # Adam moves it by ±lr on the rounding's sign; the test takes these values over after each step.
        step["dense_bias_after"] = [float(v) for v in model.dense0.bias.detach().reshape(-1)]
        out["steps"].append(step)
    out["running_mean"] = summary(model.running_mean)
    out["running_variance"] = summary(model.running_var)
    # Prediction after the steps: dropout off, the moving statistics; every chunk's probabilities.
    model.eval()
    with torch.no_grad():
        out["eval_probabilities"] = [float(v) for v in torch.softmax(model(torch.from_numpy(x).double()), -1).reshape(-1)]
    out["parameters"] = [{"name": name, "limit": limit, "offset": 1.0 if t is model.gamma else 0.0} for name, t, limit in params]
    text = json.dumps(out, separators=(",", ":"))
    with open(path, "w") as fh:
        if path.endswith(".swift"):  # a Swift file, so that the test target needs no resources
            fh.write("// Generated by Scripts/activity_twin.py --fixture (the PyTorch twin of Turi Create's activity\n"
                     "// classifier, two training steps on formula weights and samples, then prediction); do not edit.\n"
                     "enum ActivityTwinFixture {\n    static let json = #\"\"\"\n")
            lines = [text[start:start + 150] for start in range(0, len(text), 150)]
            fh.write("\\#\n".join(lines) + "\n\"\"\"#\n}\n")
        else:
            fh.write(text + "\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fixture")
    p.add_argument("--train"); p.add_argument("--test")
    p.add_argument("--features"); p.add_argument("--label-column")
    p.add_argument("--session-column"); p.add_argument("--time-column")
    p.add_argument("--prediction-window", type=int); p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=32); p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0); p.add_argument("--shuffle", action="store_true")
    p.add_argument("--weights-from", help="start from (with --epochs 0: predict with) an .mlmodel's weights")
    p.add_argument("--batchnorm-statistics", choices=["moving-average", "recomputed"], default="moving-average",
                   help="moving-average: Turi Create's recipe (the twin's default); recomputed: OpenCoreML's default")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    if a.fixture:
        fixture(a.fixture)
        return 0
    result = train_and_test(a)
    if a.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print("%s: %s" % (k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
