#!/usr/bin/env python3
"""Parity fixtures for OpenCoreML's neural-network training engine.

Reads the updatable LeNet in models/lenet_updatable.mlmodel and computes, in
float64 numpy, a reference for one full batch of 8 images:

  * the forward pass (flatten output, logits, softmax probabilities) and the
    mean categorical cross-entropy loss,
  * the gradient of that loss with respect to every updatable parameter,
  * the parameters after one SGD step (PyTorch rule, lr 0.01, momentum 0.9)
    and after one Adam step (PyTorch rule, lr 1e-3, b1 0.9, b2 0.999,
    eps 1e-8), each starting from the model's weights with fresh state.

Every array is written to parity/<name>.bin as little-endian float32 in
row-major order, using the Core ML layouts: convolution weights are
[outputChannels, kernelChannels, kH, kW] and innerProduct weights are
[outputChannels, inputChannels]. parity/parity.json describes the files.
The dense1 weight arrays (576,000 values) are stored truncated to their first
4096 values; the manifest keeps the full shape, "truncatedTo": 4096, and
float64 "sum" / "sumOfSquares" of the full array (every array has those two
fields, taken over its float32-rounded values).

The numpy reference is then cross-checked against TensorFlow (tf ops for the
network, GradientTape for the gradients, Keras optimizers for the steps).
If TensorFlow cannot be imported, the check is skipped with a warning and
the manifest says so.

Regenerate with:
  /work/tools/venv/bin/python Tests/Fixtures/make_parity.py
"""

import contextlib
import io
import json
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np

with contextlib.redirect_stderr(io.StringIO()):
    # coremltools prints "Failed to load _MLModelProxy" on Linux; harmless here.
    import coremltools
    from coremltools.proto import NeuralNetwork_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_REL = "models/lenet_updatable.mlmodel"
OUT_DIR = os.path.join(HERE, "parity")

BATCH = 8
LABELS = np.array([3, 1, 4, 1, 5, 9, 2, 6])
SGD = {"learningRate": 0.01, "momentum": 0.9}
ADAM = {"learningRate": 1e-3, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8}
TRUNCATE = 4096           # values kept in the .bin for dense1.weights arrays
TRUNCATED_PARAMS = {("dense1", "weights")}

PARAMS = [(layer, kind)
          for layer in ("conv1", "conv2", "dense1", "dense2")
          for kind in ("weights", "bias")]


# ---------------------------------------------------------------------------
# model
# ---------------------------------------------------------------------------

def load_model():
    """Return {(layer, 'weights'|'bias'): float32 array in Core ML layout}.

    Also checks that the spec really is the network this script models, so a
    changed fixture fails loudly instead of giving silently wrong numbers.
    """
    spec = coremltools.utils.load_spec(os.path.join(HERE, MODEL_REL))
    layers = {l.name: l for l in spec.neuralNetwork.layers}
    order = [l.name for l in spec.neuralNetwork.layers]
    assert order == ["conv1", "relu1", "pool1", "conv2", "relu2", "pool2",
                     "flatten", "dense1", "relu3", "dense2", "softmax"], order

    for name in ("relu1", "relu2", "relu3"):
        assert layers[name].activation.WhichOneof("NonlinearityType") == "ReLU"
    for name in ("pool1", "pool2"):
        p = layers[name].pooling
        assert p.type == NeuralNetwork_pb2.PoolingLayerParams.MAX
        assert list(p.kernelSize) == [2, 2] and list(p.stride) == [2, 2]
        assert p.WhichOneof("PoolingPaddingType") == "valid"
        assert not p.globalPooling
    assert layers["flatten"].flatten.mode == \
        NeuralNetwork_pb2.FlattenLayerParams.CHANNEL_FIRST

    params = {}
    for name, shape in (("conv1", (32, 1, 3, 3)), ("conv2", (32, 32, 2, 2))):
        c = layers[name].convolution
        assert (c.outputChannels, c.kernelChannels) == shape[:2]
        assert list(c.kernelSize) == list(shape[2:])
        assert list(c.stride) in ([], [1, 1])
        assert list(c.dilationFactor) in ([], [1, 1])
        assert c.nGroups in (0, 1) and not c.isDeconvolution and c.hasBias
        assert c.WhichOneof("ConvolutionPaddingType") == "valid"
        params[(name, "weights")] = np.array(c.weights.floatValue, np.float32).reshape(shape)
        params[(name, "bias")] = np.array(c.bias.floatValue, np.float32)
    for name, (n_out, n_in) in (("dense1", (500, 1152)), ("dense2", (10, 500))):
        ip = layers[name].innerProduct
        assert (ip.outputChannels, ip.inputChannels) == (n_out, n_in) and ip.hasBias
        params[(name, "weights")] = np.array(ip.weights.floatValue, np.float32).reshape(n_out, n_in)
        params[(name, "bias")] = np.array(ip.bias.floatValue, np.float32)
    return params


def make_input():
    return np.random.RandomState(7).rand(BATCH, 1, 28, 28).astype(np.float32)


# ---------------------------------------------------------------------------
# float64 numpy reference (NCHW, Core ML layouts)
# ---------------------------------------------------------------------------

def conv_forward(x, w, b):
    """Valid cross-correlation, stride 1. x [N,C,H,W], w [O,C,kh,kw]."""
    _, _, kh, kw = w.shape
    oh, ow = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + oh, j:j + ow]
            y += np.einsum("oc,nchw->nohw", w[:, :, i, j], patch)
    return y + b[None, :, None, None]


def conv_backward(dy, x, w):
    """Return (dx, dw, db) for conv_forward."""
    _, _, kh, kw = w.shape
    oh, ow = dy.shape[2], dy.shape[3]
    dx = np.zeros_like(x)
    dw = np.zeros_like(w)
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + oh, j:j + ow]
            dw[:, :, i, j] = np.einsum("nohw,nchw->oc", dy, patch)
            dx[:, :, i:i + oh, j:j + ow] += np.einsum("nohw,oc->nchw", dy, w[:, :, i, j])
    db = dy.sum(axis=(0, 2, 3))
    return dx, dw, db


def maxpool_forward(x):
    """2x2 window, stride 2, valid. Returns (y, argmax index within window).

    The window is read in row-major order (0,0),(0,1),(1,0),(1,1); np.argmax
    picks the first maximum, which is the tie rule the gradient uses.
    """
    n, c, h, w = x.shape
    oh, ow = (h - 2) // 2 + 1, (w - 2) // 2 + 1
    cropped = x[:, :, :oh * 2, :ow * 2]
    win = cropped.reshape(n, c, oh, 2, ow, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh, ow, 4)
    arg = np.argmax(win, axis=-1)
    y = np.take_along_axis(win, arg[..., None], axis=-1)[..., 0]
    return y, arg


def maxpool_backward(dy, arg, in_shape):
    n, c, oh, ow = dy.shape
    dwin = np.zeros((n, c, oh, ow, 4))
    np.put_along_axis(dwin, arg[..., None], dy[..., None], axis=-1)
    dcrop = dwin.reshape(n, c, oh, ow, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, oh * 2, ow * 2)
    dx = np.zeros(in_shape)
    dx[:, :, :oh * 2, :ow * 2] = dcrop
    return dx


def numpy_reference(params32, x32, labels):
    p = {k: v.astype(np.float64) for k, v in params32.items()}
    x = x32.astype(np.float64)
    n = x.shape[0]

    # forward
    c1 = conv_forward(x, p[("conv1", "weights")], p[("conv1", "bias")])     # [n,32,26,26]
    r1 = np.maximum(c1, 0.0)
    p1, arg1 = maxpool_forward(r1)                                           # [n,32,13,13]
    c2 = conv_forward(p1, p[("conv2", "weights")], p[("conv2", "bias")])    # [n,32,12,12]
    r2 = np.maximum(c2, 0.0)
    p2, arg2 = maxpool_forward(r2)                                           # [n,32,6,6]
    flat = p2.reshape(n, -1)                                                 # C,H,W order
    d1 = flat @ p[("dense1", "weights")].T + p[("dense1", "bias")]
    r3 = np.maximum(d1, 0.0)
    logits = r3 @ p[("dense2", "weights")].T + p[("dense2", "bias")]
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    probs = e / e.sum(axis=1, keepdims=True)
    loss = float(np.mean(-np.log(probs[np.arange(n), labels])))

    # backward: d(mean CE)/d(logits) through the softmax is (p - onehot) / n
    onehot = np.zeros_like(probs)
    onehot[np.arange(n), labels] = 1.0
    g_logits = (probs - onehot) / n
    g = {}
    g[("dense2", "weights")] = g_logits.T @ r3
    g[("dense2", "bias")] = g_logits.sum(axis=0)
    g_r3 = g_logits @ p[("dense2", "weights")]
    g_d1 = g_r3 * (d1 > 0)                       # relu'(0) taken as 0
    g[("dense1", "weights")] = g_d1.T @ flat
    g[("dense1", "bias")] = g_d1.sum(axis=0)
    g_flat = g_d1 @ p[("dense1", "weights")]
    g_p2 = g_flat.reshape(p2.shape)
    g_r2 = maxpool_backward(g_p2, arg2, r2.shape)
    g_c2 = g_r2 * (c2 > 0)
    g_p1, g[("conv2", "weights")], g[("conv2", "bias")] = conv_backward(g_c2, p1, p[("conv2", "weights")])
    g_r1 = maxpool_backward(g_p1, arg1, r1.shape)
    g_c1 = g_r1 * (c1 > 0)
    _, g[("conv1", "weights")], g[("conv1", "bias")] = conv_backward(g_c1, x, p[("conv1", "weights")])

    # optimizers, one step each from fresh state (PyTorch rules)
    sgd, adam = {}, {}
    lr, mom = SGD["learningRate"], SGD["momentum"]
    a_lr, b1, b2, eps = ADAM["learningRate"], ADAM["beta1"], ADAM["beta2"], ADAM["eps"]
    for key, w in p.items():
        grad = g[key]
        velocity = mom * np.zeros_like(w) + grad   # buffer starts as the gradient
        sgd[key] = w - lr * velocity
        m = (1.0 - b1) * grad
        v = (1.0 - b2) * grad * grad
        m_hat = m / (1.0 - b1 ** 1)
        v_hat = v / (1.0 - b2 ** 1)
        adam[key] = w - a_lr * m_hat / (np.sqrt(v_hat) + eps)

    return {"flatten": flat, "logits": logits, "probabilities": probs,
            "loss": loss, "grad": g, "sgd": sgd, "adam": adam}


# ---------------------------------------------------------------------------
# TensorFlow cross-check
# ---------------------------------------------------------------------------

def to_tf_layout(key, a):
    layer, kind = key
    if kind == "bias":
        return a
    if layer.startswith("conv"):
        return a.transpose(2, 3, 1, 0)     # [O,C,kh,kw] -> HWIO
    return a.T                             # [out,in] -> [in,out]


def from_tf_layout(key, a):
    layer, kind = key
    if kind == "bias":
        return a
    if layer.startswith("conv"):
        return a.transpose(3, 2, 0, 1)     # HWIO -> [O,C,kh,kw]
    return a.T


def tensorflow_run(tf, keras, params32, x32, labels, dtype, keras_adam_eps):
    """Forward, gradients and one step of each optimizer in TensorFlow.

    Results come back as float64 numpy arrays in Core ML layouts.
    """
    def variables():
        return {k: tf.Variable(to_tf_layout(k, v).astype(dtype), name="%s_%s" % k)
                for k, v in params32.items()}

    x = tf.constant(x32.astype(dtype).transpose(0, 2, 3, 1))   # NHWC
    y = tf.constant(labels, dtype=tf.int32)

    def forward(v):
        h = tf.nn.conv2d(x, v[("conv1", "weights")], 1, "VALID") + v[("conv1", "bias")]
        h = tf.nn.max_pool2d(tf.nn.relu(h), 2, 2, "VALID")
        h = tf.nn.conv2d(h, v[("conv2", "weights")], 1, "VALID") + v[("conv2", "bias")]
        h = tf.nn.max_pool2d(tf.nn.relu(h), 2, 2, "VALID")
        # Core ML flattens channel-first: go back to NCHW before reshaping.
        flat = tf.reshape(tf.transpose(h, [0, 3, 1, 2]), [x.shape[0], -1])
        h = tf.nn.relu(tf.matmul(flat, v[("dense1", "weights")]) + v[("dense1", "bias")])
        logits = tf.matmul(h, v[("dense2", "weights")]) + v[("dense2", "bias")]
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        return flat, logits, tf.nn.softmax(logits), loss

    def grads(v):
        keys = list(v)
        with tf.GradientTape() as tape:
            flat, logits, probs, loss = forward(v)
        gs = tape.gradient(loss, [v[k] for k in keys])
        return flat, logits, probs, loss, dict(zip(keys, gs))

    def step(optimizer):
        v = variables()
        _, _, _, _, gs = grads(v)
        optimizer.apply_gradients([(gs[k], v[k]) for k in v])
        return {k: from_tf_layout(k, v[k].numpy()).astype(np.float64) for k in v}

    v = variables()
    flat, logits, probs, loss, gs = grads(v)
    out = {
        "flatten": flat.numpy().astype(np.float64),
        "logits": logits.numpy().astype(np.float64),
        "probabilities": probs.numpy().astype(np.float64),
        "loss": float(loss.numpy()),
        "grad": {k: from_tf_layout(k, g.numpy()).astype(np.float64) for k, g in gs.items()},
    }
    if dtype == np.float64:
        # Keras turns Python-float hyperparameters into float32 tensors before
        # casting them to the variable dtype (and keeps the learning rate in a
        # float32 variable), which alone moves a float64 Adam step by ~7e-6
        # relative. float64 tensors (and a callable learning rate) avoid that.
        def hyper(value):
            return tf.constant(value, tf.float64)

        def rate(value):
            return lambda: tf.constant(value, tf.float64)
    else:
        def hyper(value):
            return value
        rate = hyper
    # Keras checks that SGD momentum is a Python float; it cannot matter on
    # the first step anyway (the momentum buffer starts at zero).
    out["sgd"] = step(keras.optimizers.SGD(learning_rate=rate(SGD["learningRate"]),
                                           momentum=SGD["momentum"]))
    out["adam"] = step(keras.optimizers.Adam(learning_rate=rate(ADAM["learningRate"]),
                                             beta_1=hyper(ADAM["beta1"]),
                                             beta_2=hyper(ADAM["beta2"]),
                                             epsilon=hyper(keras_adam_eps)))
    return out


def compare(ref, other, params32):
    """Rows of (name, max |a-b|, scale-rel, elem-rel) with a = numpy, b = TF.

    scale-rel = max|a-b| / max|a|; elem-rel = max(|a-b| / max(|a|, 1e-3 max|a|)),
    i.e. an element-wise relative error that ignores values more than 1000x
    below the array's largest magnitude. For both optimizers the step itself
    (w' - w) is compared as "<opt>_delta_*" too, since w' is dominated by w.
    """
    rows = []

    def add(name, a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        assert a.shape == b.shape, (name, a.shape, b.shape)
        err = np.abs(a - b)
        scale = float(np.max(np.abs(a)))
        if scale == 0.0:
            rows.append((name, float(err.max()), float(err.max()), float(err.max())))
            return
        elem = float(np.max(err / np.maximum(np.abs(a), 1e-3 * scale)))
        rows.append((name, float(err.max()), float(err.max()) / scale, elem))

    add("loss", ref["loss"], other["loss"])
    for name in ("flatten", "logits", "probabilities"):
        add(name, ref[name], other[name])
    for group in ("grad", "sgd", "adam"):
        for key in PARAMS:
            add("%s_%s_%s" % ((group,) + key), ref[group][key], other[group][key])
    for group in ("sgd", "adam"):
        for key in PARAMS:
            w = params32[key].astype(np.float64)
            add("%s_delta_%s_%s" % ((group,) + key), ref[group][key] - w, other[group][key] - w)
    return rows


def print_rows(title, rows):
    print(title)
    print("  %-28s %10s %10s %10s" % ("array", "max|diff|", "scale-rel", "elem-rel"))
    for name, diff, rel, elem in rows:
        print("  %-28s %10.3e %10.3e %10.3e" % (name, diff, rel, elem))


def check(title, rows, tolerances):
    """tolerances: list of (prefix, scale-rel limit, elem-rel limit); first match wins."""
    failures = []
    for name, _, rel, elem in rows:
        _, rel_limit, elem_limit = next(t for t in tolerances if name.startswith(t[0]))
        if not (rel <= rel_limit and elem <= elem_limit):
            failures.append("%s: scale-rel %.3e (limit %.0e), elem-rel %.3e (limit %.0e)"
                            % (name, rel, rel_limit, elem, elem_limit))
    if failures:
        raise SystemExit("TensorFlow cross-check (%s) FAILED:\n  %s" % (title, "\n  ".join(failures)))
    print("  -> %s cross-check passed" % title)


def cross_check(params32, x32, labels, ref):
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            import tensorflow as tf
            import keras
    except ImportError as err:
        print("WARNING: TensorFlow is not available (%s); skipping the cross-check." % err)
        return None

    b2 = ADAM["beta2"]
    # Keras Adam (keras/src/optimizers/adam.py) updates
    #     w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps_keras)
    # with the *uncorrected* v, while PyTorch updates
    #     w -= lr * m_hat / (sqrt(v_hat) + eps),  v_hat = v / (1 - b2^t).
    # Multiplying out, the two agree exactly when eps_keras = eps * sqrt(1 - b2^t).
    # The strict checks use that epsilon (t = 1). A run with Keras' epsilon=1e-8
    # taken literally is reported too, not asserted: at step 1 it acts like a
    # PyTorch eps of 1e-8 / sqrt(1 - b2) ~ 3.2e-7, so the step lr*g/(|g|+eps)
    # shrinks noticeably for every |g| below ~1e-4. With this model's many
    # small gradients that moves some weights by most of lr.
    eps_matched = ADAM["eps"] * np.sqrt(1.0 - b2)

    # float64 TF: the only differences should be summation order. The Adam
    # step amplifies the gradient's rounding where |g| is near eps, hence the
    # looser element-wise limit on the Adam deltas.
    tf64 = tensorflow_run(tf, keras, params32, x32, labels, np.float64, eps_matched)
    rows64 = compare(ref, tf64, params32)
    print_rows("numpy float64 vs TensorFlow float64 (Keras Adam eps = 1e-8*sqrt(1-b2)):", rows64)
    check("float64", rows64, [("adam_delta_", 1e-8, 1e-5), ("", 1e-10, 1e-8)])

    # float32 TF: what a float32 engine can be expected to reach.
    tf32 = tensorflow_run(tf, keras, params32, x32, labels, np.float32, eps_matched)
    rows32 = compare(ref, tf32, params32)
    print_rows("numpy float64 vs TensorFlow float32 (Keras Adam eps = 1e-8*sqrt(1-b2)):", rows32)
    # Limits for a float32 engine. Forward values, gradients and the SGD result
    # stay within ~1e-6 of the array scale. The deltas w' - w lose digits to
    # float32 rounding of w (SGD steps are only lr*|g| <= ~1e-3 of |w|). For
    # Adam, a float32 gradient with |g| at or below eps (1e-8) has no correct
    # digits left (e.g. -3.7e-11 exact vs -1.1e-10), and Adam turns it into a
    # step of size ~lr*|g|/(|g|+eps) anyway, so individual Adam steps can differ
    # completely; only the absolute error (a small fraction of lr) is bounded.
    inf = float("inf")
    check("float32", rows32, [("sgd_delta_", 1e-4, inf), ("adam_delta_", 2e-2, inf),
                              ("sgd_", 1e-6, 1e-5), ("adam_", 5e-4, 1e-3),
                              ("", 1e-5, 1e-3)])

    # Keras' epsilon taken literally (float64, so only the convention differs).
    tf64_lit = tensorflow_run(tf, keras, params32, x32, labels, np.float64, ADAM["eps"])
    rows_lit = [r for r in compare(ref, tf64_lit, params32) if r[0].startswith("adam_")]
    print_rows("numpy (PyTorch Adam) vs TensorFlow float64 Keras Adam with epsilon=1e-8 literally:", rows_lit)

    return tf.__version__


# ---------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------

def main():
    params = load_model()
    x = make_input()
    ref = numpy_reference(params, x, LABELS)
    print("loss %.10f" % ref["loss"])

    tf_version = cross_check(params, x, LABELS, ref)

    os.makedirs(OUT_DIR, exist_ok=True)
    files = {}

    def save(name, array, truncate=None):
        a32 = np.ascontiguousarray(np.asarray(array, np.float64).astype(np.float32))
        full = a32.astype(np.float64)
        entry = {"shape": list(a32.shape), "file": name + ".bin",
                 "sum": float(full.sum()), "sumOfSquares": float((full * full).sum())}
        data = a32.reshape(-1)
        if truncate is not None and data.size > truncate:
            data = data[:truncate]
            entry["truncatedTo"] = truncate
        data.astype("<f4").tofile(os.path.join(OUT_DIR, name + ".bin"))
        files[name] = entry

    save("input", x)
    save("flatten", ref["flatten"])
    save("logits", ref["logits"])
    save("probabilities", ref["probabilities"])
    for group in ("grad", "sgd", "adam"):
        for key in PARAMS:
            save("%s_%s_%s" % ((group,) + key), ref[group][key],
                 TRUNCATE if key in TRUNCATED_PARAMS else None)

    # drop any stale .bin left by an older version of this script
    for fname in os.listdir(OUT_DIR):
        if fname.endswith(".bin") and fname[:-4] not in files:
            os.remove(os.path.join(OUT_DIR, fname))

    if tf_version:
        generator = "make_parity.py, numpy %s, cross-checked with tensorflow %s" % (np.__version__, tf_version)
    else:
        generator = "make_parity.py, numpy %s, NOT cross-checked (tensorflow unavailable)" % np.__version__
    manifest = {
        "model": MODEL_REL,
        "batch": BATCH,
        "labels": [int(v) for v in LABELS],
        "loss": ref["loss"],
        "sgd": SGD,
        "adam": ADAM,
        "files": files,
        "generator": generator,
    }
    text = json.dumps(manifest, indent=2)
    # keep short integer lists (labels, shapes) on one line
    text = re.sub(r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]",
                  lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text)
    with open(os.path.join(OUT_DIR, "parity.json"), "w") as f:
        f.write(text + "\n")
    total = sum(os.path.getsize(os.path.join(OUT_DIR, n)) for n in os.listdir(OUT_DIR))
    print("wrote %d files (%d bytes) to %s" % (len(files) + 1, total, OUT_DIR))
    return 0


if __name__ == "__main__":
    sys.exit(main())
