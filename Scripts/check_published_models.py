#!/usr/bin/env python3
"""The published classic models of COMPATIBILITY.md ("Published classic models"), checked again from
a folder holding them (they are not committed: their licences vary and several pass 1 MB). Fetch them
from their projects (paths as in the table): SqueezeNetFP16.mlmodel and SqueezeNetInt8LUT.mlmodel
(tucan9389/ImageClassification-CoreML), DeepLabV3Int8LUT.mlmodel (tucan9389/SemanticSegmentation-
CoreML), cpm.mlmodel/cpm.tflite and hourglass.mlmodel/hourglass.tflite (tucan9389/PoseEstimation-CoreML,
models/*_model/model.*), Etching.mlmodel and the other styles (pablq/CocoaHeadsStyleTransferDemo).

Each present model is inspected and predicted with `opencoreml` on PICTURE; the pose models are
compared with their TFLite twins through LiteRT (`ai-edge-litert`, when installed). Exit status 1 when
a model fails or a comparison disagrees; missing files are reported and skipped.

    python Scripts/check_published_models.py DIR PICTURE [--opencoreml .build/release/opencoreml]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


def run(binary, *arguments):
    return subprocess.run([binary, *arguments], capture_output=True, text=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder")
    parser.add_argument("picture", help="a JPEG or PNG photo")
    parser.add_argument("--opencoreml", default=".build/release/opencoreml")
    args = parser.parse_args()
    ok = True
    names = ["SqueezeNetFP16", "SqueezeNetInt8LUT", "DeepLabV3Int8LUT", "cpm", "hourglass",
             "Etching", "Mandy", "Max", "Painting", "Sean", "Seth"]
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            model = os.path.join(args.folder, name + ".mlmodel")
            if not os.path.exists(model):
                print(f"{name}: not in {args.folder}, skipped")
                continue
            description = json.loads(run(args.opencoreml, "inspect", model, "--json").stdout)
            image_input = description["inputs"][0]["name"]
            result = run(args.opencoreml, "predict", model, "--input", f"{image_input}={args.picture}", "--json",
                         "--output-dir", os.path.join(scratch, name))
            if result.returncode != 0:
                ok = False
                print(f"{name}: FAILED: {result.stderr.strip()}")
                continue
            outputs = json.loads(result.stdout)
            summary = ", ".join(f"{key}: {value if isinstance(value, str) else type(value).__name__}" for key, value in outputs.items())
            print(f"{name}: {description['neuralNetwork']['layerCount']} layers; predicts ({summary})")
            twin = os.path.join(args.folder, name + ".tflite")
            if os.path.exists(twin):
                ok &= compare_with_tflite(name, twin, outputs, description, args, scratch)
    sys.exit(0 if ok else 1)


def compare_with_tflite(name, twin, outputs, description, args, scratch):
    """The pose models take raw 0–255 RGB pixels: both engines get the same 192×192 picture."""
    try:
        from ai_edge_litert.interpreter import Interpreter
        from PIL import Image
    except ImportError:
        print(f"{name}: ai-edge-litert or Pillow missing, TFLite comparison skipped")
        return True
    size = description["inputs"][0]["width"], description["inputs"][0]["height"]
    resized = os.path.join(scratch, name + "-input.png")
    Image.open(args.picture).convert("RGB").resize(size, Image.BILINEAR).save(resized)
    result = run(args.opencoreml, "predict", os.path.join(args.folder, name + ".mlmodel"), "--input",
                 f"{description['inputs'][0]['name']}={resized}", "--json")
    ours = next(iter(json.loads(result.stdout).values()))
    ours = np.asarray(ours["values"], np.float32).reshape(ours["shape"])
    interpreter = Interpreter(model_path=twin)
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], np.asarray(Image.open(resized), np.float32)[None])
    interpreter.invoke()
    theirs = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])[0].transpose(2, 0, 1)
    difference = float(np.abs(ours - theirs).max())
    peaks = sum(np.argmax(ours[j]) == np.argmax(theirs[j]) for j in range(theirs.shape[0]))
    print(f"{name}: max |difference| to TFLite {difference:.1e} (largest value {np.abs(theirs).max():.2f}); "
          f"{peaks} of {theirs.shape[0]} peaks agree")
    return difference < 1e-4 and peaks == theirs.shape[0]


if __name__ == "__main__":
    main()
