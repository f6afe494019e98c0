#!/usr/bin/env python3
"""The Keras peer of the activity classifier: Turi Create's network and training recipe in Keras
(TensorFlow 2.21 CPU), on the long-format CSV files Scripts/make-watch-csv.sh writes.

usage: bench_activity_keras.py --train CSV --test CSV --prediction-window W --epochs N
           [--batch-size 32] [--threads 2] [--seed S] [--recurrent-initializer glorot_uniform] [--json]

e.g.   /work/.venv-tf/bin/python Scripts/bench_activity_keras.py --train .build/activity/watch-train.csv \
           --test .build/activity/watch-test.csv --prediction-window 50 --epochs 10 --threads 2 --json

Needs only tensorflow (2.21, CPU) and numpy. Columns: session, time and activity (the label); subject
is ignored; every other column is a feature, in the file's order. Classes are the training file's
labels sorted by name.

Data: each session's rows sorted by time (stable), cut into chunks of 20 windows of W rows (20 LSTM
steps), the last chunk of a session zero-padded. A window's label is the majority of its rows'
labels (a tie goes to the lowest class index); its weight is 1 if it holds at least one real row,
0 if it is padding only.

Network on a chunk [20·W, F]: Conv1D(64, kernel W, stride W, bias) → ReLU → Dropout(0.2) →
LSTM(200, one output per window) → Dense(128) → BatchNormalization(ε 1e-3, momentum 0.9) → ReLU →
Dropout(0.5) → Dense(K) → softmax. Weights Glorot-uniform, biases zero, the LSTM's forget-gate bias
1 (Keras's unit_forget_bias). Keras would make the LSTM's recurrent weights orthogonal; they are
Glorot-uniform here too, as in Turi Create and OpenCoreML (--recurrent-initializer orthogonal gives
Keras's default). Training: Adam (lr 1e-3), batches of --batch-size chunks, categorical
cross-entropy per window times the window's weight (a sample weight per time step; Keras divides
the sum by the number of windows in the batch), chunks shuffled every epoch, no validation.

Reported: seconds per epoch (median of epochs 2..N; the first, with graph tracing, separately);
the training accuracy per window (real windows, after training, inference mode; also the last
epoch's running accuracy with dropout); the test accuracy per window; and the test accuracy per row
as Turi Create reports it: each window's predicted class (the LSTM starting from zeros in every
chunk) given to each of that window's real rows, compared with the row's own label. --json prints
one JSON object instead of lines.
"""
import argparse
import csv
import json
import os
import resource
import sys
import time

import numpy as np

STEPS = 20  # windows per chunk = LSTM steps
RESERVED = ("session", "subject", "time", "activity")


def read_sessions(path, features=None):
    """Returns (feature names, [(session, values [n, F] float32, labels [n] str)]), rows sorted by time."""
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        for name in ("session", "time", "activity"):
            if name not in header:
                sys.exit(f"{path}: no '{name}' column (header: {','.join(header)})")
        names = [c for c in header if c not in RESERVED]
        if features is not None and names != features:
            sys.exit(f"{path}: feature columns {names} differ from the training file's {features}")
        s, t, a = header.index("session"), header.index("time"), header.index("activity")
        columns = [header.index(c) for c in names]
        grouped = {}
        for row in reader:
            grouped.setdefault(row[s], []).append((float(row[t]), [float(row[c]) for c in columns], row[a]))
    sessions = []
    for session, rows in grouped.items():
        rows.sort(key=lambda r: r[0])
        sessions.append((session, np.array([r[1] for r in rows], dtype=np.float32), [r[2] for r in rows]))
    return names, sessions


def make_chunks(sessions, window, classes):
    """Chunks [N, 20·W, F], window labels [N, 20], window weights [N, 20], row labels [N, 20·W] (-1: padding)."""
    index = {c: i for i, c in enumerate(classes)}
    size = STEPS * window
    xs, ys, ws, rows = [], [], [], []
    for session, values, labels in sessions:
        unknown = set(labels) - index.keys()
        if unknown:
            sys.exit(f"session {session}: labels {sorted(unknown)} are not among the training classes")
        count = -(-len(values) // size)
        x = np.zeros((count * size, values.shape[1]), dtype=np.float32)
        x[:len(values)] = values
        r = np.full(count * size, -1, dtype=np.int64)
        r[:len(values)] = [index[l] for l in labels]
        r = r.reshape(count * STEPS, window)
        y = np.zeros(count * STEPS, dtype=np.int64)
        w = np.zeros(count * STEPS, dtype=np.float32)
        for k, window_rows in enumerate(r):
            real = window_rows[window_rows >= 0]
            if len(real):
                y[k] = np.argmax(np.bincount(real, minlength=len(classes)))  # first maximum: lowest index
                w[k] = 1
        xs.append(x.reshape(count, size, -1)); ys.append(y.reshape(count, STEPS))
        ws.append(w.reshape(count, STEPS)); rows.append(r.reshape(count, size))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ws), np.concatenate(rows)


def main():
    parser = argparse.ArgumentParser(description="Turi Create's activity classifier in Keras (the peer benchmark)")
    parser.add_argument("--train", required=True)
    parser.add_argument("--test", required=True)
    parser.add_argument("--prediction-window", type=int, required=True)
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--recurrent-initializer", default="glorot_uniform", choices=["glorot_uniform", "orthogonal"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    window = args.prediction_window

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    tf.keras.utils.set_random_seed(args.seed)

    features, train = read_sessions(args.train)
    _, test = read_sessions(args.test, features)
    classes = sorted({l for _, _, labels in train for l in labels})
    x, y, w, _ = make_chunks(train, window, classes)
    tx, ty, tw, trows = make_chunks(test, window, classes)
    K = len(classes)

    L = tf.keras.layers
    model = tf.keras.Sequential([
        L.Input((STEPS * window, len(features))),
        L.Conv1D(64, window, strides=window, use_bias=True),
        L.ReLU(),
        L.Dropout(0.2),
        L.LSTM(200, return_sequences=True, recurrent_initializer=args.recurrent_initializer),
        L.Dense(128),
        L.BatchNormalization(epsilon=1e-3, momentum=0.9),
        L.ReLU(),
        L.Dropout(0.5),
        L.Dense(K, activation="softmax"),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=1e-3), loss="categorical_crossentropy",
                  weighted_metrics=["categorical_accuracy"])

    seconds = []

    class EpochTimer(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            seconds.append(time.perf_counter() - self.start)

    history = model.fit(x, np.eye(K, dtype=np.float32)[y], sample_weight=w, batch_size=args.batch_size,
                        epochs=args.epochs, shuffle=True, verbose=0, callbacks=[EpochTimer()])

    def predict(chunks):
        return model.predict(chunks, batch_size=args.batch_size, verbose=0).argmax(axis=-1)  # [N, 20]

    train_predicted = predict(x)
    start = time.perf_counter()
    predicted = predict(tx)
    predict_seconds = time.perf_counter() - start
    real = tw > 0
    row_predicted = np.repeat(predicted, window, axis=1)  # each window's class over its rows
    real_rows = trows >= 0
    result = {
        "seconds_per_epoch": float(np.median(seconds[1:] if len(seconds) > 1 else seconds)),
        "first_epoch_seconds": seconds[0],
        "test_accuracy_per_row": float((row_predicted == trows)[real_rows].mean()),
        "test_accuracy_per_window": float((predicted == ty)[real].mean()),
        "train_accuracy_per_window": float((train_predicted == y)[w > 0].mean()),
        "train_accuracy_last_epoch_dropout": float(history.history["categorical_accuracy"][-1]),
        "train_loss_last_epoch": float(history.history["loss"][-1]),
        "epochs": args.epochs,
        "prediction_window": window,
        "batch_size": args.batch_size,
        "threads": args.threads,
        "seed": args.seed,
        "recurrent_initializer": args.recurrent_initializer,
        "chunks_train": int(len(x)),
        "chunks_test": int(len(tx)),
        "windows_train": int((w > 0).sum()),
        "windows_test": int(real.sum()),
        "rows_test": int(real_rows.sum()),
        "classes": classes,
        "epoch_seconds": [round(s, 4) for s in seconds],
        "test_predict_seconds": predict_seconds,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "tensorflow_version": tf.__version__,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
