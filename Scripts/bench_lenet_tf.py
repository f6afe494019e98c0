#!/usr/bin/env python3
"""The TensorFlow peer for LeNet training: the seeds' LeNet on an MNIST-format dataset.

usage: bench_lenet_tf.py --data DIR [--epochs N] [--threads N] [--json]

Same model (conv 32 3x3 valid, ReLU, max-pool 2, conv 32 2x2 valid, ReLU, max-pool 2, flatten,
dense 500, ReLU, dense 10, softmax; 585,958 weights), same data (pixels / 255), batch 128,
Adam lr 1e-4, shuffled every epoch. Prints seconds per epoch (each epoch timed), samples/s, the
test accuracy after the last epoch and the peak resident memory of the process.
"""
import argparse
import gzip
import json
import os
import resource
import struct
import sys
import time


def read_idx(folder, name):
    for candidate in (name, name + ".gz"):
        path = os.path.join(folder, candidate)
        if os.path.exists(path):
            with open(path, "rb") as handle:
                data = handle.read()
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            return data
    sys.exit(f"{folder}: {name}[.gz] not found")


def load(folder, split):
    import numpy as np
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(folder, f"{prefix}-images-idx3-ubyte")
    labels = read_idx(folder, f"{prefix}-labels-idx1-ubyte")
    count, rows, columns = struct.unpack(">III", images[4:16])
    x = np.frombuffer(images, dtype=np.uint8, offset=16).reshape(count, rows, columns, 1).astype("float32") / 255
    y = np.frombuffer(labels, dtype=np.uint8, offset=8).astype("int64")
    return x, y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.threads:
        os.environ["TF_NUM_INTRAOP_THREADS"] = str(args.threads)
        os.environ["TF_NUM_INTEROP_THREADS"] = "1"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.keras.utils.set_random_seed(42)

    x_train, y_train = load(args.data, "train")
    x_test, y_test = load(args.data, "test")
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input((28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPooling2D(2),
        layers.Conv2D(32, 2, activation="relu"),
        layers.MaxPooling2D(2),
        layers.Flatten(),
        layers.Dense(500, activation="relu"),
        layers.Dense(10, activation="softmax"),
    ])
    assert model.count_params() == 585958, model.count_params()
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-4), loss="sparse_categorical_crossentropy", metrics=["accuracy"])

    class Timer(tf.keras.callbacks.Callback):
        def __init__(self):
            self.seconds = []

        def on_epoch_begin(self, epoch, logs=None):
            self.start = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.seconds.append(time.perf_counter() - self.start)

    timer = Timer()
    model.fit(x_train, y_train, batch_size=128, epochs=args.epochs, shuffle=True, verbose=0, callbacks=[timer])
    _, accuracy = model.evaluate(x_test, y_test, batch_size=1000, verbose=0)
    seconds = sorted(timer.seconds)
    median = seconds[len(seconds) // 2]
    result = {
        "peer": f"tensorflow {tf.__version__}",
        "epochs": args.epochs,
        "secondsPerEpochMedian": median,
        "samplesPerSecond": len(x_train) / median,
        "testAccuracy": accuracy,
        "peakRSSMegabytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
