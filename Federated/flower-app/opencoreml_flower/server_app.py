"""FedAvg over OpenCoreML's Swift clients (`opencoreml federated join`).

Run config (pyproject.toml, or `flwr run … --run-config`):
  num-server-rounds   rounds of train + evaluate
  model               absolute path of the initial updatable .mlmodel; its exchanged arrays
                      (weights.py) are the initial global model
  fraction-train, fraction-evaluate, min-nodes
                      FedAvg's sampling (min-nodes is the minimum for training, evaluation and
                      availability alike)
  local-epochs, learning-rate, batch-size (0: the model's)
                      the train config record every client receives
  history             absolute path of a JSON file rewritten (atomically) after every round:
                      {"rounds": [{"round", "loss", "accuracy", "num-examples", "seconds"}, …]},
                      loss and accuracy being FedAvg's aggregate of the clients' evaluate replies
                      (weighted by their "num-examples"), num-examples their total, seconds the
                      time from sending the train instructions to aggregating the evaluations
  output              absolute path where the final global model is written as an .mlmodel
                      (atomically), after the last round
  poll-interval       seconds between asks for the clients' replies (0: Flower's own grid, 3 s)
  packed              true (default): the arrays travel as one packed array (weights.py), 2
                      Flower objects instead of 2 per array; false: one array per weight blob,
                      named `<layer>.<blob>`
  profile             absolute path of a JSON-lines file: one line per phase of the ServerApp
                      ({"t": seconds since 1970, "event", "round", …}: messages pushed, replies
                      pulled, aggregation), to line up with the clients' `--profile` files
"""

import concurrent.futures
import functools
import inspect
import json
import os
import sys
import tempfile
import time
from logging import ERROR, INFO

from flwr.app import Array, ArrayRecord, ConfigRecord, Context
from flwr.common import log
from flwr.serverapp import Grid, ServerApp
from flwr.serverapp.strategy import FedAvg

from .weights import (LAYOUT_KEY, PACKED, arrays_from_spec, layout_digest, pack, received_arrays, run_config_flag,
                      spec_with_arrays)

app = ServerApp()

_UMASK = os.umask(0o022)
os.umask(_UMASK)


def _write_atomically(path, data: bytes):
    """Writes `data` to a temporary file next to `path`, then renames it over `path`, so a reader
    sees the old file or the new one, never a part."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o666 & ~_UMASK)  # mkstemp's file is private (0600)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


_WHERE = "the ServerApp runs in the SuperLink's working folder, not where `flwr run` was started"


def _output_path(config, key):
    """The run config's `key` as an absolute path whose folder exists ("" when not set), checked
    before any round runs. Relative paths are refused: the ServerApp is a process the SuperLink
    starts, in the SuperLink's working folder."""
    path = str(config.get(key, ""))
    if not path:
        return ""
    if not os.path.isabs(path):
        raise ValueError(f"run config '{key}': give an absolute path, not {path!r} ({_WHERE})")
    if not os.path.isdir(os.path.dirname(path)):
        raise FileNotFoundError(f"run config '{key}': no folder {os.path.dirname(path)}")
    return path


class Profile:
    """Timestamped phases of the ServerApp, one JSON object a line (nothing when no path is given)."""

    def __init__(self, path):
        self._file = open(path, "a", buffering=1) if path else None
        self.round = 0

    def __call__(self, event, **fields):
        if self._file is not None:
            self._file.write(json.dumps({"t": time.time(), "event": event, "round": self.round, **fields}) + "\n")


def _prompt_object_pulls(grid, first_wait):
    """Makes `grid` (flwr 1.41's HTTP grid) wait `first_wait` seconds, doubling up to 10 times
    that, before asking again for a reply's object the SuperLink does not hold yet, instead of
    flwr's 1 s doubling to 10 s.

    A reply is listed as soon as its sender has pushed the message, before it has pushed the
    objects (a client sends PushMessages, then one PushObject per object the SuperLink asks for):
    a grid that asks for replies every `interval` seconds finds one in that window often, and
    flwr's first wait of 1 s then cost most of a second of every round. The grid's module imports
    `pull_objects` by name; this rebinds that name in that module to the same function with other
    backoff defaults and no per-object try limit (flwr's 500 tries were ~4,900 s at its backoff but
    would be ~250 s at this one; its `max_time`, 7,200 s, still bounds the wait). The name is
    rebound for the whole ServerApp process, which runs one app. A grid without a module-level
    `pull_objects`, or one whose keywords differ from flwr 1.41's, is left as it is (logged once)."""
    module = sys.modules.get(type(grid).__module__)
    pull = getattr(module, "pull_objects", None)
    if pull is None:
        log(INFO, "the grid's module %s has no pull_objects; object pulls keep flwr's backoff",
            getattr(module, "__name__", "?"))
        return
    if getattr(pull, "_opencoreml_prompt", False):
        return
    try:
        parameters = inspect.signature(pull).parameters
    except (TypeError, ValueError):
        parameters = {}
    needed = ("initial_backoff", "backoff_cap", "max_tries_per_object")
    missing = [name for name in needed if name not in parameters]
    if missing:
        log(INFO, "%s.pull_objects takes no %s; object pulls keep flwr's backoff",
            getattr(module, "__name__", "?"), ", ".join(missing))
        return
    prompt = functools.partial(pull, initial_backoff=first_wait, backoff_cap=10 * first_wait,
                               max_tries_per_object=None)
    prompt._opencoreml_prompt = True
    module.pull_objects = prompt


# What _concurrent_pulls takes from the grid's module (flwr 1.41's flwr.superlink.grid.http_grid).
_PULL_NAMES = ("PullAppMessagesRequest", "ConfirmMessageReceivedRequest", "iterate_object_tree",
               "make_pull_object_fn_protobuf", "pull_objects", "inflate_object_from_contents", "ObjectPullError",
               "make_message", "Metadata", "Error", "ErrorCode", "SYSTEM_MESSAGE_TYPE", "now", "httpx",
               "ERROR_MESSAGE_PULL_MESSAGES_PAYLOAD_TOO_LARGE")


def _concurrent_pulls(grid):
    """flwr 1.41's `HttpGrid.pull_messages` with the replies it lists taken in at once, each by its
    own worker, instead of one after another: a reply is its objects (pulled two at a time, waiting
    for those its sender is still pushing), then a confirmation, each a request to the SuperLink, so
    with ten replies listed together the last one waited for the nine before it. What each reply
    becomes is flwr's: the message, or an error message when its objects stay unavailable. None
    (logged once) for a grid that is not flwr 1.41's HTTP grid; the grid's own pull is used then."""
    module = sys.modules.get(type(grid).__module__)
    missing = [name for name in _PULL_NAMES if not hasattr(module, name)]
    if missing or not hasattr(grid, "_runtime_client") or not hasattr(grid, "_run") or not hasattr(grid, "node"):
        log(INFO, "the grid %s is not flwr 1.41's HTTP grid (no %s); replies are pulled one after another",
            type(grid).__name__, ", ".join(missing) or "_runtime_client/_run/node")
        return None
    flwr = module

    def take(client, run_id, message, tree):
        message_id = message.metadata.message_id
        try:
            contents = flwr.pull_objects(
                object_ids=[node.object_id for node in flwr.iterate_object_tree(tree)],
                pull_object_fn=flwr.make_pull_object_fn_protobuf(
                    pull_object_protobuf=client.PullObject, node=grid.node, run_id=run_id),
            )
        except flwr.ObjectPullError as error:
            return flwr.make_message(
                metadata=flwr.Metadata(
                    run_id=run_id, message_id="", src_node_id=grid.node.node_id, dst_node_id=grid.node.node_id,
                    message_type=flwr.SYSTEM_MESSAGE_TYPE, group_id="", ttl=0,
                    reply_to_message_id=message.metadata.reply_to_message_id, created_at=flwr.now().timestamp()),
                error=flwr.Error(code=flwr.ErrorCode.MESSAGE_UNAVAILABLE,
                                 reason="Reply message objects are unavailable. The sender may not have completed the "
                                        f"upload before the object-push session expired. {error}"),
            )
        client.ConfirmMessageReceived(
            flwr.ConfirmMessageReceivedRequest(node=grid.node, run_id=run_id, message_object_id=message_id))
        reply = flwr.inflate_object_from_contents(message_id, contents)
        reply.metadata.__dict__["_message_id"] = message_id
        return reply

    def pull(message_ids):
        client = grid._runtime_client
        run_id = grid._run.run_id
        try:
            listed = client.PullMessages(flwr.PullAppMessagesRequest(message_ids=message_ids))
            pairs = list(zip(listed.messages_list, listed.message_object_trees, strict=True))
            if len(pairs) <= 1:
                return [take(client, run_id, message, tree) for message, tree in pairs]
            with concurrent.futures.ThreadPoolExecutor(max_workers=len(pairs)) as workers:
                return list(workers.map(lambda pair: take(client, run_id, *pair), pairs))
        except flwr.httpx.HTTPStatusError as error:
            if error.response.status_code == flwr.httpx.codes.REQUEST_ENTITY_TOO_LARGE:
                log(ERROR, flwr.ERROR_MESSAGE_PULL_MESSAGES_PAYLOAD_TOO_LARGE)
                return []
            raise

    return pull


class PromptGrid:
    """The run's Grid, but waiting for replies by asking every `interval` seconds rather than every
    3 s (flwr 1.41's HTTP grid), so a round ends soon after its last reply, asking again for a
    reply's objects still being pushed after `interval` rather than 1 s (_prompt_object_pulls), and
    taking in the replies found together at once (_concurrent_pulls). Everything else is the Grid's
    own."""

    def __init__(self, grid: Grid, interval: float, profile=None):
        self._grid = grid
        self._interval = interval
        self._profile = profile or Profile("")
        _prompt_object_pulls(grid, interval)
        self._pull = _concurrent_pulls(grid) or grid.pull_messages

    def __getattr__(self, name):
        return getattr(self._grid, name)

    def send_and_receive(self, messages, *, timeout=None):
        profile = self._profile
        messages = list(messages)
        kind = messages[0].metadata.message_type if messages else ""
        profile("push-start", type=kind, messages=len(messages))
        pending = set(self._grid.push_messages(messages))
        profile("push-end", type=kind)
        end = None if timeout is None else time.time() + timeout
        replies = []
        polls = 0
        while pending and (end is None or time.time() < end):
            started = time.time()
            received = list(self._pull(pending))
            polls += 1
            if received:
                profile("pulled", type=kind, replies=len(received), seconds=time.time() - started)
            replies.extend(received)
            pending.difference_update(message.metadata.reply_to_message_id for message in received)
            if pending:
                time.sleep(self._interval)
        profile("replies-complete", type=kind, polls=polls)
        return replies


class FedAvgWithHistory(FedAvg):
    """FedAvg that records each round's federated evaluation and rewrites the history file."""

    def __init__(self, history_path, profile=None, **kwargs):
        super().__init__(**kwargs)
        self.history_path = history_path
        self.profile = profile or Profile("")
        self.rounds = []
        self.round_started = None

    def configure_train(self, server_round, arrays, config, grid):
        self.round_started = time.monotonic()
        self.profile.round = server_round
        self.profile("round-start")
        return super().configure_train(server_round, arrays, config, grid)

    def aggregate_train(self, server_round, replies):
        self.profile("aggregate-train-start")
        result = super().aggregate_train(server_round, replies)
        self.profile("aggregate-train-end")
        return result

    def aggregate_evaluate(self, server_round, replies):
        replies = list(replies)
        aggregated = super().aggregate_evaluate(server_round, replies)
        # FedAvg weighs each reply's (only) MetricRecord by its "num-examples"; the total is the sum.
        examples = 0
        for reply in replies:
            if not reply.has_error():
                for metrics in reply.content.metric_records.values():
                    examples += int(metrics.get(self.weighted_by_key, 0))
                    break
        seconds = time.monotonic() - self.round_started if self.round_started is not None else None
        entry = {"round": server_round, "loss": None, "accuracy": None, "num-examples": examples, "seconds": seconds}
        if aggregated is not None:
            for key in ("loss", "accuracy"):
                if key in aggregated:
                    entry[key] = float(aggregated[key])
        self.rounds.append(entry)
        self.profile("round-end", seconds=seconds)
        log(INFO, "round %d: federated evaluation loss %s, accuracy %s, %d examples",
            server_round, entry["loss"], entry["accuracy"], examples)
        if self.history_path:
            _write_atomically(self.history_path, json.dumps({"rounds": self.rounds}, indent=2).encode())
        return aggregated


@app.main()
def main(grid: Grid, context: Context) -> None:
    from coremltools.models.utils import load_spec

    config = context.run_config
    model_path = str(config.get("model", ""))
    if not model_path:
        raise ValueError("run config 'model' is empty: give the initial updatable .mlmodel "
                         "(flwr run … --run-config 'model=\"/abs/path/Model.mlmodel\"')")
    if not os.path.isabs(model_path):
        raise ValueError(f"run config 'model': give an absolute path, not {model_path!r} ({_WHERE})")
    if not os.path.isfile(model_path):
        raise FileNotFoundError(f"run config 'model': no file {model_path}")
    history_path = _output_path(config, "history")
    profile = Profile(_output_path(config, "profile"))
    output = _output_path(config, "output")
    spec = load_spec(model_path)
    arrays = arrays_from_spec(spec)
    log(INFO, "%s: %d arrays, %d values", model_path, len(arrays), sum(a.size for _, a in arrays))

    min_nodes = int(config.get("min-nodes", 2))
    strategy = FedAvgWithHistory(
        history_path=history_path,
        profile=profile,
        fraction_train=float(config.get("fraction-train", 1.0)),
        fraction_evaluate=float(config.get("fraction-evaluate", 1.0)),
        min_train_nodes=min_nodes,
        min_evaluate_nodes=min_nodes,
        min_available_nodes=min_nodes,
    )
    train_config = ConfigRecord({
        "local-epochs": int(config.get("local-epochs", 1)),
        "learning-rate": float(config.get("learning-rate", 0.01)),
        "batch-size": int(config.get("batch-size", 0)),
    })
    interval = float(config.get("poll-interval", 0.2))
    packed = run_config_flag(config, "packed", True)
    evaluate_config = ConfigRecord()
    if packed:
        initial = ArrayRecord({PACKED: Array(pack(arrays))})
        # The clients check that their arrays are this table's, in this order (names and shapes).
        train_config[LAYOUT_KEY] = layout_digest(arrays)
        evaluate_config[LAYOUT_KEY] = layout_digest(arrays)
    else:
        initial = ArrayRecord({name: Array(values) for name, values in arrays})
    result = strategy.start(
        grid=PromptGrid(grid, interval, profile) if interval > 0 else grid,
        initial_arrays=initial,
        train_config=train_config,
        evaluate_config=evaluate_config,
        num_rounds=int(config.get("num-server-rounds", 3)),
    )

    if output:
        final = {name: array.numpy() for name, array in result.arrays.items()}
        if final:
            # Either form: the clients reply in the form they were sent, but say so clearly if not.
            final = received_arrays(final, arrays)
        if not final:
            raise RuntimeError("no round produced trained arrays (every client's train reply was an error; see the log), "
                               f"so no final model is written to {output}")
        spec = spec_with_arrays(spec, final)
        _write_atomically(output, spec.SerializeToString())
        log(INFO, "wrote the final global model to %s", output)
