#!/usr/bin/env python3
"""Writes Fuzz/model.dict, the libFuzzer dictionary for FuzzModel, from Schema/*.proto.

Every field of every message gives its tag bytes (field number and wire type, as protobuf
encodes them; repeated numbers both packed and not), named `message_field`. A few values
follow: the array data types, image colour spaces, and varints at the edges of 32 and 64 bits,
which is where size checks break. Run from anywhere: python3 Fuzz/make-dict.py
"""
import pathlib
import re

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
lines = ["# libFuzzer dictionary for FuzzModel: protobuf tags of Schema/*.proto's fields and edge values.",
         "# Written by Fuzz/make-dict.py; do not edit by hand."]
for tag, name in sorted(entries.items(), key=lambda item: item[1]):
    lines.append('%s="%s"' % (re.sub(r"\W", "_", name), escape(tag)))
for name, data in values.items():
    lines.append('value_%s="%s"' % (name, escape(data)))
(root / "Fuzz" / "model.dict").write_text("\n".join(lines) + "\n")
print("Fuzz/model.dict: %d tags, %d values" % (len(entries), len(values)))
