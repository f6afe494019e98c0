"""The activity classifier's peer: Turi Create's network and training in Keras (TensorFlow 2.21 CPU),
on the same CSV files `opencoreml activity-classifier train` reads, for BENCHMARKS.md.

    python bench_activity_peer.py --train watch-train.csv --test watch-test.csv --features ax,ay,az,wx,wy,wz \
        --label-column exercise --session-column session --time-column time --prediction-window 50 \
        --epochs 10 [--batch-size 32] [--threads 2] [--seed 0] [--json]

Each session (rows sorted by the time column) is cut into chunks of 20 windows of the prediction
window's samples, the last chunk zero-padded; a window's label is the majority of its rows' labels
(ties to the first class in sorted order); windows of padding only weigh 0 in the loss. The network
on a chunk: Conv1D(64, kernel = stride = window) → ReLU → Dropout(0.2) → LSTM(200, one output per
window) → Dense(128) → BatchNormalization(ε 1e-3, momentum 0.9) → ReLU → Dropout(0.5) → Dense(K)
→ softmax; Glorot-uniform weights (the LSTM's recurrent ones too, as in Turi Create, where Keras
would make them orthogonal), the forget gate's bias 1; Adam 1e-3; cross-entropy per window with those weights; the
chunks shuffled every epoch; no validation. Test accuracy per row, as Turi Create counts: each row
gets its window's prediction (the LSTM starting from zeros at every chunk).
"""
import argparse
import csv
import json
import os
import sys
import time
from collections import OrderedDict

import numpy as np

STEPS = 20


def read(path, features, label, session, time_column):
    sessions = OrderedDict()
    with open(path) as f:
        for row in csv.DictReader(f):
            sessions.setdefault(row[session], []).append((float(row[time_column]) if time_column else 0.0,
                                                         [float(row[c]) for c in features], row[label]))
    result = []
    for rows in sessions.values():
        rows.sort(key=lambda r: r[0])  # stable: rows with equal times keep the file's order
        result.append((np.array([r[1] for r in rows], dtype=np.float32), [r[2] for r in rows]))
    return result


def chunks(sessions, window, classes):
    index = {c: i for i, c in enumerate(classes)}
    size = window * STEPS
    xs, ys, ws, spans = [], [], [], []
    for s, (values, labels) in enumerate(sessions):
        for start in range(0, len(values), size):
            end = min(start + size, len(values))
            x = np.zeros((size, values.shape[1]), dtype=np.float32)
            x[:end - start] = values[start:end]
            y = np.zeros(STEPS, dtype=np.int64)
            w = np.zeros(STEPS, dtype=np.float32)
            for k in range(STEPS):
                first, last = start + k * window, min(start + (k + 1) * window, end)
                if first >= last:
                    break
                counts = np.bincount([index[l] for l in labels[first:last]], minlength=len(classes))
                y[k] = int(np.argmax(counts))
                w[k] = 1
            xs.append(x); ys.append(y); ws.append(w); spans.append((s, start, end))
    return np.stack(xs), np.stack(ys), np.stack(ws), spans


def load(a):
    """The arguments' feature names, training and test sessions, classes (sorted), and both sets' chunks."""
    features = a.features.split(",")
    train = read(a.train, features, a.label_column, a.session_column, a.time_column)
    test = read(a.test, features, a.label_column, a.session_column, a.time_column)
    classes = sorted({l for _, labels in train for l in labels})
    return features, train, test, classes, chunks(train, a.prediction_window, classes), chunks(test, a.prediction_window, classes)


def accuracies(test, spans, probabilities, ty, tw, classes, w):
    """Test accuracy per row (each row gets its window's prediction, as Turi Create counts) and per
    window, from each test chunk's probabilities [chunks, STEPS, K]."""
    correct_rows = rows = correct_windows = windows = 0
    index = {c: i for i, c in enumerate(classes)}
    for (s, start, end), p, t, weight in zip(spans, probabilities, ty, tw):
        labels = test[s][1]
        predicted = p.argmax(axis=1)
        for k in range(STEPS):
            if weight[k] == 0:
                continue
            windows += 1; correct_windows += int(predicted[k] == t[k])
            for r in range(start + k * w, min(start + (k + 1) * w, end)):
                rows += 1; correct_rows += int(index[labels[r]] == predicted[k])
    return correct_rows / rows, correct_windows / windows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--train", required=True); p.add_argument("--test", required=True)
    p.add_argument("--features", required=True); p.add_argument("--label-column", required=True)
    p.add_argument("--session-column", required=True); p.add_argument("--time-column")
    p.add_argument("--prediction-window", type=int, required=True); p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=32); p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0); p.add_argument("--json", action="store_true")
    a = p.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(a.threads)
    tf.config.threading.set_inter_op_parallelism_threads(a.threads)
    tf.keras.utils.set_random_seed(a.seed)
    features, train, test, classes, (x, y, weights, _), (tx, ty, tw, spans) = load(a)
    w = a.prediction_window

    L = tf.keras.layers
    model = tf.keras.Sequential([
        L.Input((w * STEPS, len(features))),
        L.Conv1D(64, w, strides=w), L.ReLU(), L.Dropout(0.2),
        L.LSTM(200, return_sequences=True, recurrent_initializer="glorot_uniform"),
        L.Dense(128), L.BatchNormalization(epsilon=1e-3, momentum=0.9), L.ReLU(), L.Dropout(0.5),
        L.Dense(len(classes), activation="softmax"),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3), loss="sparse_categorical_crossentropy", weighted_metrics=[])
    times = []

    class Timer(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None): self.start = time.perf_counter()
        def on_epoch_end(self, epoch, logs=None): times.append(time.perf_counter() - self.start)

    model.fit(x, y, sample_weight=weights, batch_size=a.batch_size, epochs=a.epochs, shuffle=True, verbose=0, callbacks=[Timer()])

    probabilities = model.predict(tx, batch_size=32, verbose=0)
    per_row, per_window = accuracies(test, spans, probabilities, ty, tw, classes, w)
    result = {
        "tensorflow_version": tf.__version__, "epochs": a.epochs, "prediction_window": w,
        "chunks_train": int(len(x)), "chunks_test": int(len(tx)),
        "first_epoch_seconds": times[0], "seconds_per_epoch": float(np.median(times[1:] if len(times) > 1 else times)),
        "test_accuracy_per_row": per_row, "test_accuracy_per_window": per_window,
    }
    if a.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print("%s: %s" % (k, v))


if __name__ == "__main__":
    sys.exit(main())
