#!/usr/bin/env python3
"""Writes FuzzCInput's seeds (Fuzz/corpus/cinput/): for each fixture model of the harness, a call
sequence that predicts, and a few that the interface must refuse. The layout is described at the
top of Fuzz/Sources/FuzzCInput/FuzzCInput.swift; the model numbers follow its `models` list."""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "cinput")

ARRAY, INT64, DOUBLE, STRING, DICTIONARY, IMAGE = range(6)
FLOAT64, FLOAT32, FLOAT16, INT32, INT8 = range(5)  # picks into the harness's dtype list
RGBA, GRAY8, HALF = 1, 2, 3  # picks into its pixel format list (0 is BGRA)


def size(n):
    """A size field: small ones as a byte, others as 255 and eight bytes."""
    return bytes([n]) if 0 <= n < 12 else b"\xff" + struct.pack("<q", n)


def array(name, dtype, shape, strides=None, offset=0, kind=0):
    body = bytes([ARRAY, name, dtype, len(shape)]) + b"".join(size(n) for n in shape)
    if strides is None:
        return body + bytes([kind & ~1, offset])
    return body + bytes([kind | 1]) + bytes(strides) + bytes([offset])


def f64(value):
    return struct.pack("<d", value)


def dictionary(name, entries):
    body = bytes([DICTIONARY, name, len(entries), 0])
    for key, value in entries:
        body += bytes([len(key)]) + key + b"\x01" + b"\x00" * 7 + b"\x00" + f64(value)
    return body


def image(name, pick, width, height, extra=0, offset=0):
    return bytes([IMAGE, name, pick]) + size(width) + size(height) + bytes([extra, offset])


SEEDS = {
    # 0 Dense: x float32 [1, 32]
    "dense-float32": bytes([0, 0]) + array(0, FLOAT32, [1, 32]),
    "dense-float32-strided": bytes([0, 1]) + array(0, FLOAT32, [1, 32], strides=[0, 2]),
    "dense-float64-wrong-type": bytes([0, 0]) + array(0, FLOAT64, [1, 32]),
    "dense-misaligned": bytes([0, 0]) + array(0, FLOAT32, [1, 32], offset=2),
    "dense-rank-huge": bytes([0, 0, ARRAY, 0, FLOAT32, 255]) + struct.pack("<Q", 1 << 40) + b"\x00\x00",
    "dense-negative-size": bytes([0, 0]) + array(0, FLOAT32, [1, -32]),
    # 1 Dense16: x float16 [1, 32]
    "dense16": bytes([1, 0]) + array(0, FLOAT16, [1, 32]),
    # 2 imputer: input double [10], NaN imputed
    "imputer-nan": bytes([2, 0]) + array(0, FLOAT64, [10]) + f64(float("nan")) * 10,
    # 3 decision tree: input double [13]
    "tree": bytes([3, 1]) + array(0, FLOAT64, [13]),
    # 4 dictionary vectorizer of words
    "dict-words": bytes([4, 0]) + dictionary(0, [(b"the", 1.0), (b"\xff\xfe", 2.0), (b"cat", float("inf"))]),
    "dict-string-value": bytes([4, 0, STRING, 0, 5]) + b"hello",
    # 5 one-hot encoder: a, b, c int64
    "one-hot": bytes([5, 0]) + bytes([INT64, 0]) + struct.pack("<q", 1) + bytes([INT64, 1]) + struct.pack("<q", -1)
               + bytes([INT64, 2]) + struct.pack("<q", 2**63 - 1),
    "one-hot-doubles": bytes([5, 2]) + bytes([DOUBLE, 0]) + f64(1.0) + bytes([DOUBLE, 1]) + f64(float("nan"))
                       + bytes([DOUBLE, 2]) + f64(-0.0),
    # 6 k-NN: features [4]
    "knn": bytes([6, 0]) + array(0, FLOAT32, [4]),
    "knn-int8": bytes([6, 0]) + array(0, INT8, [4], offset=3),
    # 7 ImageToImage (8 × 6 RGB), 8 the flexible one
    "image-rgba": bytes([7, 0]) + image(0, RGBA, 8, 6),
    "image-bgra-padded": bytes([7, 0]) + image(0, 0, 8, 6, extra=4),
    "image-short-rows": bytes([7, 0]) + image(0, RGBA, 8, 6, extra=16),
    "image-gray": bytes([7, 0]) + image(0, GRAY8, 8, 6),
    "image-flexible-half": bytes([8, 1]) + image(0, HALF, 10, 7),
    "image-huge-width": bytes([8, 0]) + image(0, GRAY8, 1 << 40, 1, extra=16),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, f"seed-{name}"), "wb") as file:
            file.write(data)
    print(f"{len(SEEDS)} seeds in {OUT}")


if __name__ == "__main__":
    main()
