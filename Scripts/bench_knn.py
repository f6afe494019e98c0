#!/usr/bin/env python3
"""k-NN classifier benchmark: OpenCoreML (`opencoreml bench knn`) against scikit-learn's
KNeighborsClassifier (brute and kd_tree) and faiss's IndexFlatL2 on the same generated data, in one
run.

    /path/to/venv/bin/python Scripts/bench_knn.py [--samples 100000] [--dimensions 1000]
        [--queries 1000] [--k 5] [--threads 2] [--algorithms brute,kd_tree,faiss]
        [--binary .build/release/opencoreml]

Needs numpy and scikit-learn, and faiss-cpu for the faiss rows. The data is regenerated here bit
for bit from the counter-based generator that `opencoreml bench knn` uses (see BenchData in
Sources/OpenCoreMLCLI/Commands/BenchKNN.swift). faiss's bundled OpenBLAS picks its kernels by
processor; on some it needs OPENBLAS_CORETYPE (e.g. SkylakeX) to use its fast ones: compare
against the fast configuration.
"""
import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

M1, M2, GOLDEN = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), np.uint64(0x9E3779B97F4A7C15)
NOISE = np.float32(1.5)


def uniform(stream, indices):
    z = (np.uint64(stream) << np.uint64(40)) ^ indices.astype(np.uint64)
    z = z + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * M1
    z = (z ^ (z >> np.uint64(27))) * M2
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(40)).astype(np.float32) / np.float32(1 << 24)


def rows(stream, count, dims, classes):
    centres = np.float32(2) * uniform(1, np.arange(classes * dims)).reshape(classes, dims) - np.float32(1)
    out = np.empty((count, dims), dtype=np.float32)
    chunk = max(1, 4_000_000 // dims)
    for start in range(0, count, chunk):
        end = min(count, start + chunk)
        idx = np.arange(start * dims, end * dims, dtype=np.uint64)
        noise = np.float32(2) * uniform(stream, idx).reshape(end - start, dims) - np.float32(1)
        out[start:end] = centres[np.arange(start, end) % classes] + NOISE * noise
    return out


def sklearn_run(algorithm, samples, labels, queries, truth, k, leaf_size):
    from sklearn.neighbors import KNeighborsClassifier
    start = time.perf_counter()
    model = KNeighborsClassifier(n_neighbors=k, algorithm=algorithm, leaf_size=leaf_size)
    model.fit(samples, labels)
    model.predict(queries[:1])
    load = time.perf_counter() - start
    singles = []
    for i in range(min(len(queries), 21)):
        start = time.perf_counter()
        model.predict(queries[i:i + 1])
        singles.append((time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    predicted = model.predict(queries)
    batch = time.perf_counter() - start
    return {"loadSeconds": load, "singleQueryMilliseconds": float(np.median(singles)),
            "batchSeconds": batch, "accuracy": float(np.mean(predicted == truth))}


def faiss_run(samples, labels, queries, truth, k, threads):
    """IndexFlatL2 (exact search; a GEMM for batches), labels by majority of the k neighbours."""
    import faiss
    faiss.omp_set_num_threads(threads)
    classes = int(labels.max()) + 1

    def predict(rows):
        _, neighbours = index.search(rows, k)
        votes = np.zeros((len(rows), classes), dtype=np.int64)
        np.add.at(votes, (np.repeat(np.arange(len(rows)), k), labels[neighbours].ravel()), 1)
        return votes.argmax(axis=1)

    start = time.perf_counter()
    index = faiss.IndexFlatL2(samples.shape[1])
    index.add(samples)
    predict(queries[:1])
    load = time.perf_counter() - start
    singles = []
    for i in range(min(len(queries), 21)):
        start = time.perf_counter()
        predict(queries[i:i + 1])
        singles.append((time.perf_counter() - start) * 1000)
    start = time.perf_counter()
    predicted = predict(queries)
    batch = time.perf_counter() - start
    return {"loadSeconds": load, "singleQueryMilliseconds": float(np.median(singles)),
            "batchSeconds": batch, "accuracy": float(np.mean(predicted == truth))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--dimensions", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--leaf-size", type=int, default=30)
    parser.add_argument("--binary", default=".build/release/opencoreml")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--algorithms", default="brute,kd_tree,faiss")
    args = parser.parse_args()

    results, ours_by_index = [], {}
    for ours_index, theirs in [("linear", "brute"), ("kd-tree", "kd_tree"), ("linear", "faiss")]:
        if theirs not in args.algorithms.split(","):
            continue
        if ours_index not in ours_by_index:
            command = [args.binary, "bench", "knn", "--json", "--samples", str(args.samples), "--dimensions",
                       str(args.dimensions), "--queries", str(args.queries), "--classes", str(args.classes),
                       "--k", str(args.k), "--index", ours_index, "--leaf-size", str(args.leaf_size),
                       "--threads", str(args.threads)]
            ours_by_index[ours_index] = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
        samples = rows(2, args.samples, args.dimensions, args.classes)
        queries = rows(3, args.queries, args.dimensions, args.classes)
        labels = np.arange(args.samples) % args.classes
        truth = np.arange(args.queries) % args.classes
        if theirs == "faiss":
            peer = faiss_run(samples, labels, queries, truth, args.k, args.threads)
        else:
            peer = sklearn_run(theirs, samples, labels, queries, truth, args.k, args.leaf_size)
        del samples
        results.append((ours_index, theirs, ours_by_index[ours_index], peer))

    print(f"k-NN, {args.samples:,} samples x {args.dimensions:,} dimensions, k = {args.k}, "
          f"{args.queries:,} queries, {args.threads} threads (peers' peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")
    print(f"{'index':<18} {'metric':<22} {'OpenCoreML':>12} {'peer':>13} {'ratio':>7}")
    for ours_index, theirs, ours, peer in results:
        for key, label, unit in [("loadSeconds", "load + first query", "s"), ("singleQueryMilliseconds", "one query (median)", "ms"),
                                 ("batchSeconds", "batch of queries", "s"), ("accuracy", "accuracy", "")]:
            ratio = ours[key] / peer[key] if peer[key] else float("nan")
            print(f"{ours_index + ' / ' + theirs:<18} {label:<22} {ours[key]:>10.4f}{unit:>2} {peer[key]:>11.4f}{unit:>2} {ratio:>7.2f}")
    json.dump([{"ours": o, "peer": t, "peerResult": p, "index": i} for i, t, o, p in results], sys.stderr)
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
