"""Reference data for OpenCoreMLFlowerTests, made with flwr 1.41.0's own code and numpy.

Run from the repository root with the Flower venv (flwr==1.41.0; numpy and cryptography come with it):

    /work/.venv-flwr/bin/python Tests/OpenCoreMLFlowerTests/Fixtures/make_fixtures.py

flwr reads its array chunk size from FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE when it is imported, so this
script sets it to 64 bytes before importing flwr (small arrays then split into several chunks). The
one case made with flwr's default chunk size (5 MiB) is made by a second run of this file, started
with `--default-chunk-size` and without the variable.

Empties and rewrites npy/, objects/ and signature/ next to this file, each with a manifest.json.
Running it twice gives identical files, except the ECDSA signatures in signature/manifest.json and
signature/foreign_signature.json: flwr signs with randomized ECDSA, so the tests verify them.
"""

import base64
import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

CHUNK_SIZE = 64
CHUNK_SIZE_VARIABLE = "FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE"
DEFAULT_CHUNK_MODE = "--default-chunk-size"

if DEFAULT_CHUNK_MODE in sys.argv:
    os.environ.pop(CHUNK_SIZE_VARIABLE, None)
else:
    os.environ[CHUNK_SIZE_VARIABLE] = str(CHUNK_SIZE)

# flwr must be imported only now, after the chunk size is settled.
import numpy as np  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402

import flwr  # noqa: E402
import flwr.common.constant as flwr_constant  # noqa: E402
from flwr.app import Array, ArrayRecord, ConfigRecord, Message, Metadata, MetricRecord, RecordDict  # noqa: E402
from flwr.app.message import remove_content_from_message  # noqa: E402
from flwr.common.serde import message_from_proto, message_to_proto  # noqa: E402
from flwr.proto.fleet_pb2 import PullMessagesResponse  # noqa: E402
from flwr.supercore.inflatable.inflatable_object import get_object_tree, iterate_object_tree  # noqa: E402
from flwr.supercore.primitives.asymmetric import public_key_to_bytes, sign_message, verify_signature  # noqa: E402
from flwr.supercore.task_identity import TaskIdentity  # noqa: E402

HERE = Path(__file__).resolve().parent
OUTPUT_FOLDERS = ("npy", "objects", "signature")

# The instruction and the reply: fixed clock readings, ids and sizes.
RUN_ID = 77
SUPERNODE_ID = 1234
GROUP_ID = "3"
TRAIN_CREATED_AT = 1790000000.25
TRAIN_TTL = 43200.0
REPLY_CREATED_AT = 1790000100.5
# A ServerApp task id as SuperLinks hand them out: 8 random bytes, here above 2**63 on purpose.
SERVERAPP_TASK_ID = 0xF00DCAFE12345678

METADATA_FIELDS = ("run_id", "message_id", "src_node_id", "dst_node_id", "reply_to_message_id", "group_id", "created_at",
                   "ttl", "message_type", "src_task_id", "dst_task_id")


def write(path: Path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_json(path: Path, value):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1, sort_keys=True) + "\n")


def flat_values(array: np.ndarray) -> list:
    """The array's values in C order, as Python floats (exact for every dtype used here)."""
    return [float(v) for v in np.asarray(array).ravel(order="C")]


# 1. .npy files as numpy writes them.

def npy_entry(path: Path, name: str, array: np.ndarray) -> dict:
    """What a reader must find in `path`, with the header facts numpy itself reads back."""
    with open(path, "rb") as file:
        version = np.lib.format.read_magic(file)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(file)
        else:
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(file)
        data_offset = file.tell()
    assert list(shape) == list(array.shape) and dtype == array.dtype
    return {"name": name, "file": f"{name}.npy", "dtype": str(array.dtype), "descr": dtype.str, "shape": list(array.shape),
            "fortran_order": bool(fortran_order), "version": list(version), "data_offset": data_offset,
            "file_size": path.stat().st_size, "values": flat_values(array)}


def make_npy():
    cases = {
        "f4_2d": np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
        "f4_4d": (np.arange(24, dtype=np.float32) - 11.5).reshape(2, 3, 2, 2),
        "f4_scalar": np.array(3.25, dtype=np.float32),
        "f4_empty": np.zeros((0,), dtype=np.float32),
        # 6e-8 rounds to float16's smallest subnormal, 2**-24.
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
        np.save(path, array, allow_pickle=False)
        entries.append(npy_entry(path, name, array))

    version2 = np.arange(5, dtype=np.float32)
    path = HERE / "npy" / "f4_version2.npy"
    with open(path, "wb") as file:
        np.lib.format.write_array(file, version2, version=(2, 0), allow_pickle=False)
    entries.append(npy_entry(path, "f4_version2", version2))
    assert entries[-1]["version"] == [2, 0]

    write_json(HERE / "npy" / "manifest.json", {"numpy": np.__version__, "files": entries})


# 2. Inflatable objects as flwr deflates them.

def metadata_dict(metadata: Metadata) -> dict:
    return {field: getattr(metadata, field) for field in METADATA_FIELDS}


def metadata_json(metadata: Metadata) -> dict:
    """The metadata for the manifest: task ids (uint64, often above 2**63) as decimal strings."""
    values = metadata_dict(metadata)
    for field in ("src_task_id", "dst_task_id"):
        if values[field] is not None:
            values[field] = str(values[field])
    return values


class Objects:
    """Deflated objects written to objects/<case>.bin, with their manifest entries."""

    def __init__(self):
        self.entries = []

    def add(self, case: str, obj, **extra) -> dict:
        content = obj.deflate()
        write(HERE / "objects" / f"{case}.bin", content)
        entry = {"case": case, "type": type(obj).__qualname__, "object_id": obj.object_id,
                 "children": list((obj.children or {}).keys()), "size": len(content)}
        entry.update(extra)
        self.entries.append(entry)
        return entry

    def add_array(self, case: str, array: Array, chunk_size: int) -> dict:
        """The array and every chunk in order, repeated chunks included (chunk<i> is the i-th piece)."""
        slices = array.slice_array()
        entry = self.add(case, array, dtype=array.dtype, shape=list(array.shape), stype=array.stype, chunk_size=chunk_size,
                         data_size=len(array.data), chunk_ids=[chunk_id for chunk_id, _ in slices])
        for index, (chunk_id, chunk) in enumerate(slices):
            chunk_entry = self.add(f"{case}.chunk{index}", chunk, of=case, index=index, chunk_size=chunk_size)
            assert chunk_entry["object_id"] == chunk_id
        return entry


def default_chunk_size_objects() -> list:
    """The small array with flwr's default chunk size: one chunk holds all of it."""
    assert CHUNK_SIZE_VARIABLE not in os.environ
    objects = Objects()
    chunk_size = flwr_constant.FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE
    array = Array(np.arange(12, dtype=np.float32).reshape(3, 4))
    slices = array.slice_array()
    assert len(slices) == 1
    objects.add("array_small_default", array, dtype=array.dtype, shape=list(array.shape), stype=array.stype,
                chunk_size=chunk_size, data_size=len(array.data), chunk_ids=[slices[0][0]])
    objects.add("chunk_small", slices[0][1], of="array_small_default", index=0, chunk_size=chunk_size)
    return objects.entries


class FixedClock:
    """Makes flwr's Message constructor read `now` from here instead of the system clock."""

    def __init__(self):
        self.module = sys.modules["flwr.app.message.message"]
        self.original = self.module.now

    def __call__(self, timestamp: float):
        self.module.now = lambda: datetime.datetime.fromtimestamp(timestamp, tz=datetime.UTC)

    def restore(self):
        self.module.now = self.original


def as_delivered(message: Message) -> tuple:
    """The instruction as a SuperLink hands it to a SuperNode in PullMessagesResponse.

    The ServerApp's grid names the message by its object id and pushes it without content (the
    content travels as objects); the SuperLink keeps that Message and serializes it again.
    """
    message.metadata.__dict__["_message_id"] = message.object_id
    pushed = message_to_proto(remove_content_from_message(message))
    stored = message_from_proto(pushed)
    return stored, message_to_proto(stored)


def as_pushed(reply: Message):
    """The reply as a SuperNode pushes it: named by its object id, content left out."""
    named = Message(metadata=Metadata(**metadata_dict(reply.metadata)), content=reply.content)
    named.metadata.__dict__["_message_id"] = named.object_id
    return message_to_proto(remove_content_from_message(named))


def proto_facts(proto) -> dict:
    return {"content_present": proto.HasField("content"), "content_items": len(proto.content.items),
            "error_present": proto.HasField("error"), "metadata_message_id": proto.metadata.message_id,
            "has_src_task_id": proto.metadata.HasField("src_task_id"),
            "has_dst_task_id": proto.metadata.HasField("dst_task_id")}


def make_objects():
    assert flwr_constant.FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE == CHUNK_SIZE
    assert sys.modules["flwr.app.message.array"].FLWR_PRIVATE_MAX_ARRAY_CHUNK_SIZE == CHUNK_SIZE
    objects = Objects()

    objects.add_array("array_small", Array(np.arange(12, dtype=np.float32).reshape(3, 4)), CHUNK_SIZE)
    objects.add_array("array_chunked", Array(np.arange(40, dtype=np.float32) / 3), CHUNK_SIZE)
    # 256 bytes of data after numpy's 128-byte header: chunks 2, 3 and 4 are the same 64 zero bytes.
    repeated = np.zeros(64, dtype=np.float32)
    repeated[-1] = 1
    entry = objects.add_array("array_repeated_chunks", Array(repeated), CHUNK_SIZE)
    assert len(set(entry["chunk_ids"])) < len(entry["chunk_ids"])

    weights = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
    bias = np.array([0.1, -0.2], dtype=np.float32)
    arrays = ArrayRecord({"dense.weights": Array(weights), "dense.bias": Array(bias)})
    objects.add("arrayrecord", arrays, names=list(arrays.keys()))
    for name, array in arrays.items():
        objects.add_array(f"arrayrecord.{name}", array, CHUNK_SIZE)
    config = ConfigRecord({"local-epochs": 2, "learning-rate": 0.05, "batch-size": 32, "server-round": 3, "name": "x",
                           "flag": True})
    objects.add("configrecord", config, names=list(config.keys()))
    metrics = MetricRecord({"num-examples": 120, "loss": 0.6931, "accuracy": 0.75})
    objects.add("metricrecord", metrics, names=list(metrics.keys()))
    content = RecordDict({"arrays": arrays, "config": config})
    objects.add("recorddict", content, names=list(content.keys()))
    reply_content = RecordDict({"arrays": arrays, "metrics": metrics})
    objects.add("recorddict_reply", reply_content, names=list(reply_content.keys()))

    clock = FixedClock()
    try:
        # The instruction without task ids, its metadata set field by field (message_id empty,
        # as in every deflated Message).
        train = Message(metadata=Metadata(run_id=RUN_ID, message_id="", src_node_id=flwr_constant.SUPERLINK_NODE_ID,
                                          dst_node_id=SUPERNODE_ID, reply_to_message_id="", group_id=GROUP_ID,
                                          created_at=TRAIN_CREATED_AT, ttl=TRAIN_TTL, message_type="train"),
                        content=content)
        objects.add("message_train", train, metadata=metadata_json(train.metadata))
        delivered, delivered_proto = as_delivered(train)
        write(HERE / "objects" / "message_train.proto.bin", delivered_proto.SerializeToString())
        with_content = message_to_proto(train)
        write(HERE / "objects" / "message_train.with_content.proto.bin", with_content.SerializeToString(deterministic=True))
        train_tree = get_object_tree(train)
        write(HERE / "objects" / "message_train.tree.bin", train_tree.SerializeToString(deterministic=True))
        response = PullMessagesResponse(messages_list=[delivered_proto], message_object_trees=[train_tree])
        write(HERE / "objects" / "pull_messages_response.bin", response.SerializeToString(deterministic=True))
        objects.entries[-1].update(
            delivered_metadata=metadata_json(delivered.metadata), proto=proto_facts(delivered_proto),
            with_content_proto=proto_facts(with_content),
            post_order=[node.object_id for node in iterate_object_tree(train_tree)])

        # The reply, made by flwr's own reply constructor at a fixed time.
        clock(REPLY_CREATED_AT)
        reply = Message(reply_content, reply_to=delivered)
        expected = {"run_id": RUN_ID, "message_id": "", "src_node_id": SUPERNODE_ID,
                    "dst_node_id": flwr_constant.SUPERLINK_NODE_ID, "reply_to_message_id": train.object_id,
                    "group_id": GROUP_ID, "created_at": REPLY_CREATED_AT,
                    "ttl": TRAIN_CREATED_AT + TRAIN_TTL - REPLY_CREATED_AT, "message_type": "train",
                    "src_task_id": None, "dst_task_id": None}
        assert metadata_dict(reply.metadata) == expected, metadata_dict(reply.metadata)
        add_reply(objects, "message_reply", reply)

        # The same exchange with task ids, as a 1.41 ServerApp sends it: the instruction made by
        # flwr's instruction constructor inside a ServerApp task, the reply swapping the task ids.
        TaskIdentity.task_id = SERVERAPP_TASK_ID
        TaskIdentity.run_id = RUN_ID
        TaskIdentity.node_id = flwr_constant.SUPERLINK_NODE_ID
        clock(TRAIN_CREATED_AT)
        train_task = Message(content, dst_node_id=SUPERNODE_ID, message_type="train", group_id=GROUP_ID, ttl=TRAIN_TTL)
        assert train_task.metadata.src_task_id == SERVERAPP_TASK_ID and train_task.metadata.dst_task_id is None
        objects.add("message_train_task", train_task, metadata=metadata_json(train_task.metadata))
        delivered_task, delivered_task_proto = as_delivered(train_task)
        write(HERE / "objects" / "message_train_task.proto.bin", delivered_task_proto.SerializeToString())
        objects.entries[-1].update(delivered_metadata=metadata_json(delivered_task.metadata),
                                   proto=proto_facts(delivered_task_proto))
        clock(REPLY_CREATED_AT)
        reply_task = Message(reply_content, reply_to=delivered_task)
        assert reply_task.metadata.dst_task_id == SERVERAPP_TASK_ID and reply_task.metadata.src_task_id is None
        add_reply(objects, "message_reply_task", reply_task)
    finally:
        clock.restore()

    default_run = subprocess.run([sys.executable, __file__, DEFAULT_CHUNK_MODE], check=True, capture_output=True,
                                 env={k: v for k, v in os.environ.items() if k != CHUNK_SIZE_VARIABLE})
    objects.entries += json.loads(default_run.stdout)

    write_json(HERE / "objects" / "manifest.json", {
        "flwr": flwr.__version__, "chunk_size": CHUNK_SIZE,
        "default_chunk_size": objects.entries[-1]["chunk_size"],
        "superlink_node_id": flwr_constant.SUPERLINK_NODE_ID, "objects": objects.entries})


def add_reply(objects: Objects, case: str, reply: Message):
    entry = objects.add(case, reply, metadata=metadata_json(reply.metadata))
    tree = get_object_tree(reply)
    write(HERE / "objects" / f"{case}.tree.bin", tree.SerializeToString(deterministic=True))
    pushed = as_pushed(reply)
    assert pushed.metadata.message_id == reply.object_id
    write(HERE / "objects" / f"{case}.proto.bin", pushed.SerializeToString())
    entry.update(post_order=[node.object_id for node in iterate_object_tree(tree)], proto=proto_facts(pushed))


# 3. A SuperNode's signed request headers.

def make_signature():
    from flwr.common.constant import TIMESTAMP_HEADER
    from flwr.supercore.constant import FLEET_HTTP_PUBLIC_KEY_HEADER, FLEET_HTTP_SIGNATURE_HEADER

    key = ec.derive_private_key(0x5EEDF10E2026, ec.SECP256R1())
    private_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption())
    public_pem = public_key_to_bytes(key.public_key())
    write(HERE / "signature" / "private_key.pem", private_pem)
    write(HERE / "signature" / "public_key.pem", public_pem)
    public_key_header = base64.b64encode(public_pem).decode("ascii")

    def signed(timestamp: str) -> str:
        signature = sign_message(key, timestamp.encode("ascii"))
        assert verify_signature(key.public_key(), timestamp.encode("ascii"), signature)
        return base64.b64encode(signature).decode("ascii")

    timestamp = datetime.datetime(2026, 11, 24, 6, 40, 12, 123456, tzinfo=datetime.UTC).isoformat()
    signature_header = signed(timestamp)
    # A whole second: Python's isoformat then prints no fraction at all.
    other = datetime.datetime(2026, 11, 24, 6, 40, 13, tzinfo=datetime.UTC).isoformat()
    other_signature_header = signed(other)
    foreign_accepted = verify_signature(key.public_key(), timestamp.encode("ascii"),
                                        base64.b64decode(other_signature_header))
    assert not foreign_accepted

    write_json(HERE / "signature" / "manifest.json", {
        "curve": "secp256r1",
        "header_names": {"public_key": FLEET_HTTP_PUBLIC_KEY_HEADER, "signature": FLEET_HTTP_SIGNATURE_HEADER,
                         "timestamp": TIMESTAMP_HEADER},
        "timestamp": timestamp,
        "public_key_header": public_key_header,
        "signature_header": signature_header,
        "verified_by_flwr": verify_signature(key.public_key(), timestamp.encode("ascii"),
                                             base64.b64decode(signature_header)),
        "other_timestamp": other,
        "other_signature_header": other_signature_header,
    })
    write_json(HERE / "signature" / "foreign_signature.json", {
        "signed_timestamp": other,
        "signature_header": other_signature_header,
        "public_key_header": public_key_header,
        "checked_against_timestamp": timestamp,
        "accepted_by_flwr": foreign_accepted,
    })


def clear_outputs():
    for folder in OUTPUT_FOLDERS:
        path = HERE / folder
        if path.is_dir():
            for file in path.iterdir():
                if file.is_file():
                    file.unlink()


if __name__ == "__main__":
    if DEFAULT_CHUNK_MODE in sys.argv:
        print(json.dumps(default_chunk_size_objects()))
    else:
        clear_outputs()
        make_npy()
        make_objects()
        make_signature()
        print("wrote", HERE)
