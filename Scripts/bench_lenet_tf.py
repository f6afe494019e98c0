#!/usr/bin/env python3
"""The TensorFlow peer for LeNet training and inference: the seeds' LeNet on an MNIST-format dataset.

usage: bench_lenet_tf.py --data DIR [--epochs N] [--limit N] [--threads N] [--json]
       bench_lenet_tf.py --data DIR --inference [--iterations N] [--batches N] [--threads N] [--json]

Same model (conv 32 3x3 valid, ReLU, max-pool 2, conv 32 2x2 valid, ReLU, max-pool 2, flatten,
dense 500, ReLU, dense 10, softmax; 585,958 weights), same data (pixels / 255), batch 128,
Adam lr 1e-4, shuffled every epoch. Training prints seconds per epoch (each epoch timed), samples/s,
the test accuracy after the last epoch and the peak resident memory of the process.

--inference times predictions instead (the peers of `opencoreml bench lenet-inference`): batch-1
latency of `model(x)` (median and p90 over --iterations calls, after a warm-up) and batch-128
throughput of `model.predict` (median over --batches calls); `model(x)` on 128 examples is
reported too.
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
    parser.add_argument("--limit", type=int, default=0, help="use only the first N training examples")
    parser.add_argument("--inference", action="store_true", help="time predictions instead of training")
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--batches", type=int, default=50)
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
    if args.limit:
        x_train, y_train = x_train[:args.limit], y_train[:args.limit]
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
    if args.inference:
        report(args, inference(tf, model, x_test, args))
        return

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
    per_epoch = median(timer.seconds)
    result = {
        "peer": f"tensorflow {tf.__version__}",
        "epochs": args.epochs,
        "epochSeconds": timer.seconds,
        "secondsPerEpochMedian": per_epoch,
        "samplesPerSecond": len(x_train) / per_epoch,
        "testAccuracy": accuracy,
        "peakRSSMegabytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    report(args, result)


def inference(tf, model, x_test, args):
    """Batch-1 latency of model(x) and batch-128 throughput of model.predict (and of model(x))."""
    singles = [tf.constant(x_test[i:i + 1]) for i in range(min(len(x_test), 1000))]
    for i in range(50):
        model(singles[i % len(singles)], training=False)
    latencies = []
    for i in range(args.iterations):
        start = time.perf_counter()
        model(singles[i % len(singles)], training=False).numpy()
        latencies.append(time.perf_counter() - start)
    batch = x_test[:128]
    for _ in range(3):
        model.predict(batch, batch_size=128, verbose=0)
    predict_times = []
    for _ in range(args.batches):
        start = time.perf_counter()
        model.predict(batch, batch_size=128, verbose=0)
        predict_times.append(time.perf_counter() - start)
    batch_tensor = tf.constant(batch)
    for _ in range(3):
        model(batch_tensor, training=False)
    call_times = []
    for _ in range(args.batches):
        start = time.perf_counter()
        model(batch_tensor, training=False).numpy()
        call_times.append(time.perf_counter() - start)
    latencies.sort()
    return {
        "peer": f"tensorflow {tf.__version__}",
        "latencyMillisecondsMedian": median(latencies) * 1e3,
        "latencyMillisecondsP90": latencies[min(len(latencies) - 1, int(0.9 * len(latencies) + 0.999999) - 1)] * 1e3,
        "batchSize": 128,
        "predictMillisecondsMedian": median(predict_times) * 1e3,
        "samplesPerSecond": 128 / median(predict_times),
        "callMillisecondsMedian": median(call_times) * 1e3,
        "callSamplesPerSecond": 128 / median(call_times),
        "peakRSSMegabytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def report(args, result):
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
