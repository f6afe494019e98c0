#!/usr/bin/env python3
"""Check .mlpackage folders OpenCoreML wrote with coremltools 9.0.

usage: check_mlpackages.py ORIGINAL_DIR WRITTEN_DIR [WRITTEN_DIR ...]

For every `NAME.mlpackage` in a WRITTEN_DIR with a `NAME.mlpackage` in ORIGINAL_DIR, this
  * opens it with `coremltools.models.MLModel(path, skip_model_load=True)` (the manifest, the root
    model) and parses its spec with `coremltools.utils.load_spec`,
  * loads the program with coremltools' own MIL reader, which reads every value from the weight
    file with coremltools' blob storage reader (sub-byte types included),
  * and compares it with the original: every operation's type and every constant value (dtype and
    contents), in program order (a package written from a self-contained model keeps its large
    values in the weight file under other offsets, so the specs themselves may differ there).
A WRITTEN_DIR named `package` must also give a spec equal (protobuf `==`) to the original's.

Prints `ok <path>` or `FAIL <path>: <reason>` per package and exits non-zero if any failed or none
was found. coremltools cannot run predictions on Linux, so nothing here executes a model.
"""
import contextlib
import io
import os
import sys
import warnings

warnings.filterwarnings("ignore")
with contextlib.redirect_stderr(io.StringIO()):
    import numpy as np
    import coremltools as ct
    from coremltools.converters.mil.frontend.milproto.load import load as milproto_to_pymil


def program_values(path):
    """Each non-const operation's type and constant inputs, in program order."""
    spec = ct.utils.load_spec(path)
    program = milproto_to_pymil(spec, spec.specificationVersion, os.path.join(path, "Data", "com.apple.CoreML", "weights"))
    result = []
    for function_name in sorted(program.functions):
        for op in program.functions[function_name].operations:
            if op.op_type == "const":
                continue
            values = {}
            for name, var in op.inputs.items():
                if not isinstance(var, (list, tuple)) and var.val is not None:
                    values[name] = np.asarray(var.val)
            result.append((op.op_type, values))
    return spec, result


def check(original, written, exact):
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        ct.models.MLModel(written, skip_model_load=True)
        spec_a, ops_a = program_values(original)
        spec_b, ops_b = program_values(written)
    if exact and spec_a != spec_b:
        return "the spec differs from the original's"
    if [t for t, _ in ops_a] != [t for t, _ in ops_b]:
        return "the operations differ"
    for index, ((op_type, a), (_, b)) in enumerate(zip(ops_a, ops_b)):
        if a.keys() != b.keys():
            return f"operation {index} ({op_type}): constant inputs {sorted(a)} vs {sorted(b)}"
        for name in a:
            if a[name].dtype != b[name].dtype or not np.array_equal(a[name], b[name]):
                return f"operation {index} ({op_type}): input '{name}' differs ({a[name].dtype} vs {b[name].dtype})"
    return None


def main():
    original_dir, written_dirs = sys.argv[1], sys.argv[2:]
    checked = failed = 0
    for written_dir in written_dirs:
        for name in sorted(os.listdir(written_dir)):
            original = os.path.join(original_dir, name)
            if not name.endswith(".mlpackage") or not os.path.isdir(original):
                continue
            path = os.path.join(written_dir, name)
            checked += 1
            try:
                reason = check(original, path, exact=os.path.basename(os.path.normpath(written_dir)) == "package")
            except Exception as error:  # noqa: BLE001 — any failure to read is a failure
                reason = f"{type(error).__name__}: {error}"
            if reason:
                failed += 1
                print(f"FAIL {path}: {reason}")
            else:
                print(f"ok {path}")
    if checked == 0:
        print("FAIL: no packages found")
    sys.exit(1 if failed or checked == 0 else 0)


if __name__ == "__main__":
    main()
