#!/usr/bin/env python3
"""Picks fuzz seeds from models kept by `pytest -p opencoreml.pytest_plugin --opencoreml-keep-models=DIR`:
for every distinct set of layer types (and shape mapping) among the neural networks in DIR, the smallest
model, copied into OUT as suite-nn-<hash>.mlmodel (at most 400 KB in all).

    python Fuzz/pick-suite-seeds.py DIR Fuzz/corpus/model   # with coremltools installed
"""
import glob
import os
import shutil
import sys

import coremltools as ct

folder, out = sys.argv[1], sys.argv[2]
best = {}
for path in glob.glob(folder + "/*.mlmodel"):
    try:
        spec = ct.utils.load_spec(path)
    except Exception:
        continue
    kind = spec.WhichOneof("Type")
    if kind not in ("neuralNetwork", "neuralNetworkClassifier", "neuralNetworkRegressor"):
        continue
    net = getattr(spec, kind)
    types = set()
    def walk(layers):
        for l in layers:
            t = l.WhichOneof("layer"); types.add(t)
            if t == "loop": walk(l.loop.conditionNetwork.layers); walk(l.loop.bodyNetwork.layers)
            if t == "branch": walk(l.branch.ifBranch.layers); walk(l.branch.elseBranch.layers)
    walk(net.layers)
    key = (tuple(sorted(types)), net.arrayInputShapeMapping)
    size = os.path.getsize(path)
    if key not in best or size < best[key][0]:
        best[key] = (size, path)
os.makedirs(out, exist_ok=True)
total = 0
covered = set()
for key, (size, path) in sorted(best.items(), key=lambda kv: kv[1][0]):
    if total + size > 400_000: break
    total += size
    covered.update(key[0])
    shutil.copyfile(path, os.path.join(out, "suite-nn-" + os.path.basename(path)))
print(len(best), "distinct layer sets;", len(os.listdir(out)), "kept,", total, "bytes;", len(covered), "layer types covered")
