#!/usr/bin/env python3
"""Writes Fuzz/model.dict, the libFuzzer dictionary for FuzzModel, from Schema/*.proto and the
ML Program engine's sources.

Every field of every message gives its tag bytes (field number and wire type, as protobuf
encodes them; repeated numbers both packed and not), named `message_field`. A few values
follow: the array data types, image colour spaces, and varints at the edges of 32 and 64 bits,
which is where size checks break.

For ML Programs: every MIL operation type the engine runs (the keys of its operation tables in
Sources/_OpenCoreMLEngine/MLProgram/MILOperations*.swift and of the constexpr table, parsed from
the sources so the list stays in step, plus const, cond and while_loop) and every parameter name
the operations read (parsed likewise, plus a few the sources spell differently), each both bare
and as a protobuf string field 1 (tag, length, text: an Operation's type, a map entry's key, a
Binding's name); integers at their extremes as MIL tensors hold them (int64 and int32 as varints,
alone and as a one-value packed LongInts/Ints inside a TensorValue; Dimension sizes, uint64);
float32 and float16 extremes as little-endian bytes. Run from anywhere: python3 Fuzz/make-dict.py
"""
import pathlib
import re
import struct

root = pathlib.Path(__file__).resolve().parent.parent
VARINT_TYPES = {"int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool"}


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def escape(data):
    return "".join("\\x%02x" % b for b in data)


enums = set()
messages = []  # (message, field, type, number, repeated)
for proto in sorted((root / "Schema").glob("*.proto")):
    text = re.sub(r"//[^\n]*", "", proto.read_text())
    enums.update(re.findall(r"\benum\s+(\w+)", text))
    stack = []
    for token in re.finditer(r"\b(message|enum|oneof)\s+(\w+)\s*\{|\}|"
                             r"(repeated\s+)?(map\s*<[^>]*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;", text):
        if token.group(1):
            stack.append((token.group(1), token.group(2)))
        elif token.group(0) == "}":
            stack.pop()
        elif token.group(5) and stack and stack[-1][0] != "enum":
            owner = [name for kind, name in stack if kind == "message"][-1]
            messages.append((owner, token.group(5), token.group(4), int(token.group(6)), bool(token.group(3))))

entries = {}
for owner, field, kind, number, repeated in messages:
    kind = kind.split(".")[-1]
    if kind in VARINT_TYPES or kind in enums:
        wires = [0, 2] if repeated else [0]
    elif kind == "float":
        wires = [5, 2] if repeated else [5]
    elif kind == "double":
        wires = [1, 2] if repeated else [1]
    else:
        wires = [2]  # strings, bytes, messages, maps
    for wire in wires:
        tag = varint(number << 3 | wire)
        entries.setdefault(tag, "%s_%s%s" % (owner, field, "_packed" if wire == 2 and len(wires) > 1 else ""))

values = {
    "float32": varint(65568), "double": varint(65600), "int32": varint(131104), "int8": varint(131080),
    "float16": varint(65552), "gray": varint(10), "rgb": varint(20), "bgr": varint(30), "grayhalf": varint(40),
    "v2p31": varint(1 << 31), "v2p32": varint(1 << 32), "v2p32m1": varint((1 << 32) - 1), "v2p63": varint(1 << 63),
    "vmax": varint((1 << 64) - 1), "vminus1": varint(-1), "v2p20": varint(1 << 20), "v999999999": varint(999999999),
    "f1": b"\x00\x00\x80\x3f", "fnan": b"\x00\x00\xc0\x7f", "finf": b"\x00\x00\x80\x7f", "fbig": b"\xff\xff\x7f\x7f",
}


def swift_table_keys(text, start):
    """The string keys at the top level of the Swift dictionary literal whose `[` is at `start`."""
    keys, depth, index = [], 0, start
    while index < len(text):
        char = text[index]
        if char == '"':
            end = text.index('"', index + 1)
            while text[end - 1] == "\\":
                end = text.index('"', end + 1)
            if depth == 1 and re.match(r"\s*:", text[end + 1:]):
                keys.append(text[index + 1:end])
            index = end + 1
            continue
        if char in "[({":
            depth += 1
        elif char in "])}":
            depth -= 1
            if depth == 0:
                return keys
        index += 1
    raise SystemExit("make-dict.py: an operation table in the sources does not end")


engine = root / "Sources" / "_OpenCoreMLEngine" / "MLProgram"
operation_types, parameters, words = {"const", "cond", "while_loop"}, set(), set()
sources = sorted(engine.glob("MILOperations*.swift")) + sorted(engine.glob("MILConstexprOperations*.swift"))
for source in sources + sorted(engine.glob("ProgramPlan*.swift")):
    text = re.sub(r"//[^\n]*", "", source.read_text())
    if source in sources:
        for table in re.finditer(r":\s*\[String:\s*(?:Make|Evaluate)\]\s*=\s*(\[)", text):
            operation_types.update(swift_table_keys(text, table.start(1)))
        operation_types.update(re.findall(r'\btable\["(\w+)"\]\s*=', text))
    parameters.update(re.findall(r'\barguments,\s*"(\w+)"', text))
    parameters.update(re.findall(r'\b(?:arguments|inputs|attributes)\["(\w+)"\]', text))
    parameters.update(re.findall(r'\bparameters\.\w+\("(\w+)"', text))
    # Names read through lists or given as values (scale_factor_height, same_lower, ALIGN_CORNERS …).
    words.update(re.findall(r'"([a-z][a-z0-9]*(?:_[a-z0-9]+)+|[A-Z][A-Z0-9_]+)"', text))
if len(operation_types) < 80 or not {"relu", "matmul", "constexpr_lut_to_dense"} <= operation_types:
    raise SystemExit("make-dict.py: found only %d operation types; has the table's form changed?" % len(operation_types))
# Parameters the sources read in other ways (the const's value, constexpr_cast's type, list inputs).
parameters.update(["val", "name", "values", "loop_vars", "output_dtype", "attn_mask", "interleave"])
parameters -= operation_types - {"shape", "pad", "gather", "split"}  # words that are both stay once

def string_field(text):
    data = text.encode()
    return b"\x0a" + varint(len(data)) + data


mil = {}
for name in sorted(operation_types):
    mil["op_%s" % name] = name.encode()
    mil["op_%s_field" % name] = string_field(name)
for name in sorted(parameters):
    mil.setdefault("param_%s" % name, name.encode())
    mil["param_%s_field" % name] = string_field(name)
# Values of string parameters (pad modes, pad types, directions, dtypes), opsets, the function.
strings = sorted(words - operation_types - parameters) + [
    "constant", "reflect", "replicate", "same", "valid", "custom", "forward", "reverse", "bidirectional",
    "fp32", "fp16", "int32", "int64", "bool", "CoreML5", "CoreML6", "CoreML7", "CoreML8", "main"]
for name in strings:
    mil["string_%s_field" % name] = string_field(name)
integers = {"min64": -(1 << 63), "max64": (1 << 63) - 1, "minus1": -1, "2p31": 1 << 31, "2p30": 1 << 30, "0": 0,
            "min32": -(1 << 31), "max32": (1 << 31) - 1}
for name, number in integers.items():
    body = varint(number)
    mil["int_%s" % name] = body
    packed = b"\x0a" + varint(len(body)) + body
    mil["int64_tensor_%s" % name] = b"\x2a" + varint(len(packed)) + packed  # TensorValue.longInts
    if -(1 << 31) <= number < (1 << 31):
        mil["int32_tensor_%s" % name] = b"\x12" + varint(len(packed)) + packed  # TensorValue.ints
for name, size in {"0": 0, "1": 1, "2p31": 1 << 31, "2p32": 1 << 32, "2p62": 1 << 62, "2p63": 1 << 63,
                   "max": (1 << 64) - 1}.items():
    body = b"\x08" + varint(size)
    mil["dimension_%s" % name] = b"\x0a" + varint(len(body)) + body  # Dimension.constant.size
floats = {"nan": b"\x00\x00\xc0\x7f", "inf": b"\x00\x00\x80\x7f", "minus_inf": b"\x00\x00\x80\xff",
          "minus0": b"\x00\x00\x00\x80", "1e38": struct.pack("<f", 1e38), "minus_1e38": struct.pack("<f", -1e38),
          "tiny": struct.pack("<f", 1e-45), "2p31": struct.pack("<f", 2.0 ** 31), "2p63": struct.pack("<f", 2.0 ** 63)}
for name, data in floats.items():
    mil["float32_%s" % name] = data
for name, data in {"nan": b"\x00\x7e", "inf": b"\x00\x7c", "minus_inf": b"\x00\xfc", "max": b"\xff\x7b"}.items():
    mil["float16_%s" % name] = data

lines = ["# libFuzzer dictionary for FuzzModel: protobuf tags of Schema/*.proto's fields, edge values, and MIL",
         "# operation types, parameter names and integer and float extremes.",
         "# Written by Fuzz/make-dict.py; do not edit by hand."]
for tag, name in sorted(entries.items(), key=lambda item: item[1]):
    lines.append('%s="%s"' % (re.sub(r"\W", "_", name), escape(tag)))
for name, data in values.items():
    lines.append('value_%s="%s"' % (name, escape(data)))
for name, data in mil.items():
    lines.append('mil_%s="%s"' % (re.sub(r"\W", "_", name), escape(data)))
(root / "Fuzz" / "model.dict").write_text("\n".join(lines) + "\n")
print("Fuzz/model.dict: %d tags, %d values, %d MIL operation types, %d MIL parameter names, %d MIL strings, %d MIL entries in all"
      % (len(entries), len(values), len(operation_types), len(parameters), len(strings), len(mil)))
