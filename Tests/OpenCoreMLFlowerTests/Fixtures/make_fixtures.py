"""Reference data for OpenCoreMLFlowerTests, made with flwr 1.41.0's own code and numpy.

Run from the repository root with a venv holding flwr==1.41.0 (numpy and cryptography come with it):

    FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE=64 python Tests/OpenCoreMLFlowerTests/Fixtures/make_fixtures.py

The chunk size is set small (flwr reads it when imported) so that a small array splits into chunks.
Writes npy/, objects/ and signature/ next to this file, each with a manifest.json. Deterministic but
for the ECDSA signatures, which are randomized (the tests verify them).
"""

import base64
import datetime
import json
import os
import sys
from pathlib import Path

if os.environ.get("FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE") != "64":
    sys.exit("set FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE=64 before running (flwr reads it at import)")

import numpy as np
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import flwr
from flwr.app import Array, ArrayRecord, ConfigRecord, Message, MetricRecord, RecordDict
from flwr.app.metadata import Metadata
from flwr.common.serde import message_to_proto
from flwr.supercore.inflatable.inflatable_object import get_object_tree, iterate_object_tree
from flwr.supercore.primitives.asymmetric import public_key_to_bytes, sign_message, verify_signature

HERE = Path(__file__).resolve().parent


def write(path: Path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def manifest(path: Path, value):
    path.write_text(json.dumps(value, indent=1, sort_keys=True) + "\n")


# 1. .npy files as numpy writes them.
def make_npy():
    cases = {
        "f4_2d": np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
        "f4_4d": (np.arange(24, dtype=np.float32) - 11.5).reshape(2, 3, 2, 2),
        "f4_scalar": np.array(3.25, dtype=np.float32),
        "f4_empty": np.zeros((0,), dtype=np.float32),
        "f2_1d": np.array([0.5, -2.0, 65504.0, 6.0e-8, 1.0 / 3], dtype=np.float16),
        "f8_2d": np.array([[1.5, -2.25], [1e-300, 3.0]], dtype=np.float64),
        "i8_1d": np.array([-3, 0, 7], dtype=np.int64),
        "f4_fortran": np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
        "f4_bigendian": np.array([1.0, -2.5, 3.75], dtype=">f4"),
        "f4_7": np.linspace(-1, 1, 7, dtype=np.float32),
    }
    entries = []
    for name, array in cases.items():
        path = HERE / "npy" / f"{name}.npy"
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, array, allow_pickle=False)
        entries.append({"file": f"{name}.npy", "dtype": str(array.dtype), "descr": array.dtype.str, "shape": list(array.shape),
                        "fortran_order": bool(array.flags.f_contiguous and not array.flags.c_contiguous),
                        "values": [float(v) for v in np.asarray(array).ravel(order="C")]})
    version2 = np.arange(5, dtype=np.float32)
    with open(HERE / "npy" / "f4_version2.npy", "wb") as file:
        np.lib.format.write_array(file, version2, version=(2, 0))
    entries.append({"file": "f4_version2.npy", "dtype": "float32", "descr": "<f4", "shape": [5], "fortran_order": False,
                    "values": [float(v) for v in version2]})
    manifest(HERE / "npy" / "manifest.json", {"numpy": np.__version__, "files": entries})


# 2. Inflatable objects as flwr deflates them.
def make_objects():
    entries = []

    def record(case, obj, **extra):
        content = obj.deflate()
        write(HERE / "objects" / f"{case}.bin", content)
        entry = {"case": case, "type": type(obj).__qualname__, "object_id": obj.object_id,
                 "children": list((obj.children or {}).keys())}
        entry.update(extra)
        entries.append(entry)

    def record_array(case, array):
        record(case, array, dtype=array.dtype, shape=list(array.shape), stype=array.stype)
        for index, (chunk_id, chunk) in enumerate(array.slice_array()):
            if not (HERE / "objects" / f"{case}.chunk{index}.bin").exists():
                write(HERE / "objects" / f"{case}.chunk{index}.bin", chunk.deflate())
        entries[-1]["chunk_ids"] = [chunk_id for chunk_id, _ in array.slice_array()]

    small = Array(np.arange(12, dtype=np.float32).reshape(3, 4))
    record_array("array_small", small)
    record_array("array_chunked", Array(np.arange(40, dtype=np.float32) / 3))
    repeated = np.zeros(64, dtype=np.float32)
    repeated[-1] = 1
    record_array("array_repeated_chunks", Array(repeated))

    weights = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
    bias = np.array([0.1, -0.2], dtype=np.float32)
    arrays = ArrayRecord({"dense.weights": Array(weights), "dense.bias": Array(bias)})
    record("arrayrecord", arrays, names=list(arrays.keys()))
    config = ConfigRecord({"local-epochs": 2, "learning-rate": 0.05, "batch-size": 32, "server-round": 3, "name": "x", "flag": True})
    record("configrecord", config)
    metrics = MetricRecord({"num-examples": 120, "loss": 0.6931, "accuracy": 0.75})
    record("metricrecord", metrics)
    content = RecordDict({"arrays": arrays, "config": config})
    record("recorddict", content)
    reply_content = RecordDict({"arrays": arrays, "metrics": metrics})
    record("recorddict_reply", reply_content)

    train_metadata = dict(run_id=77, message_id="", src_node_id=1, dst_node_id=1234, reply_to_message_id="", group_id="3",
                          created_at=1790000000.25, ttl=43200.0, message_type="train")
    train = Message(metadata=Metadata(**train_metadata), content=content)
    record("message_train", train, metadata=train_metadata)
    delivered = message_to_proto(train)
    delivered.metadata.message_id = train.object_id
    write(HERE / "objects" / "message_train.proto.bin", delivered.SerializeToString(deterministic=True))

    reply_metadata = dict(run_id=77, message_id="", src_node_id=1234, dst_node_id=1, reply_to_message_id=train.object_id, group_id="3",
                          created_at=1790000100.5, ttl=1790000000.25 + 43200.0 - 1790000100.5, message_type="train")
    reply = Message(metadata=Metadata(**reply_metadata), content=reply_content)
    record("message_reply", reply, metadata=reply_metadata)
    tree = get_object_tree(reply)
    write(HERE / "objects" / "message_reply.tree.bin", tree.SerializeToString(deterministic=True))
    entries[-1]["post_order"] = [node.object_id for node in iterate_object_tree(tree)]
    manifest(HERE / "objects" / "manifest.json", {"flwr": flwr.__version__, "chunk_size": 64, "objects": entries})


# 3. A SuperNode's signed headers.
def make_signature():
    from flwr.common.constant import TIMESTAMP_HEADER
    from flwr.supercore.constant import FLEET_HTTP_PUBLIC_KEY_HEADER, FLEET_HTTP_SIGNATURE_HEADER

    key = ec.derive_private_key(0x5EED_F10E_2026, ec.SECP256R1())
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    public_pem = public_key_to_bytes(key.public_key())
    write(HERE / "signature" / "private_key.pem", private_pem)
    write(HERE / "signature" / "public_key.pem", public_pem)
    timestamp = datetime.datetime(2026, 11, 24, 6, 40, 12, 123456, tzinfo=datetime.UTC).isoformat()
    signature = sign_message(key, timestamp.encode("ascii"))
    other = datetime.datetime(2026, 11, 24, 6, 40, 13, tzinfo=datetime.UTC).isoformat()
    manifest(HERE / "signature" / "manifest.json", {
        "header_names": {"public_key": FLEET_HTTP_PUBLIC_KEY_HEADER, "signature": FLEET_HTTP_SIGNATURE_HEADER,
                         "timestamp": TIMESTAMP_HEADER},
        "timestamp": timestamp,
        "public_key_header": base64.b64encode(public_pem).decode("ascii"),
        "signature_header": base64.b64encode(signature).decode("ascii"),
        "verified_by_flwr": verify_signature(key.public_key(), timestamp.encode("ascii"), signature),
        "other_timestamp": other,
        "other_signature_header": base64.b64encode(sign_message(key, other.encode("ascii"))).decode("ascii"),
    })


if __name__ == "__main__":
    make_npy()
    make_objects()
    make_signature()
    print("wrote", HERE)
