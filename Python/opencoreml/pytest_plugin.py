"""pytest plugin: run coremltools' tests (or any tests using coremltools) with OpenCoreML.

    pytest -p opencoreml.pytest_plugin [--opencoreml-report=FILE] ...

When pytest loads it, before any test module is imported, the plugin

* calls `opencoreml.coremltools.enable()`, so coremltools predicts through OpenCoreML;
* makes coremltools take its macOS code paths: `coremltools._deps._IS_MACOS` becomes True,
  `coremltools.models.utils._is_macos` returns True and `_macos_version` returns (15, 0), in
  `coremltools.models.utils` and in every already-imported module that copied those names
  (`from coremltools.models.utils import _is_macos`); modules imported later copy the patched
  functions. `sys.platform` is left alone.

Report. With `--opencoreml-report=FILE`, one JSON object per test is written to FILE, one per
line, when the test finishes:

    {"nodeid": str,                  # pytest's node id
     "outcome": "passed" | "failed" | "skipped" | "error",
                                     # "error": setup or teardown failed
     "xfail": bool,                  # the test was marked xfail (outcome "skipped" if it failed
                                     #   as expected, "passed" if it passed unexpectedly)
     "duration": float,              # seconds, setup + call + teardown
     "loaded": int,                  # models OpenCoreML loaded for coremltools in this test
     "load_failed": int,             # loads OpenCoreML refused
     "predicted": int,               # predict/batchPredict calls that returned
     "predict_failed": int,          # predict/batchPredict calls that raised
     "message": str | null,          # first line of the failure's exception, or the skip reason
     "load_errors": [str],           # "ExceptionType: first line" of each failed load
     "predict_errors": [str],        # "ExceptionType: first line" of each failed prediction
     "models": [                     # each model given to OpenCoreML, in order
        {"path": str,
         "type": str | null,         # the spec's Type oneof: "mlProgram", "neuralNetwork", ...
         "ops": [str],               # mlProgram: sorted set of the op types of the function run
                                     #   (nested blocks included); pipelines: those of all stages
         "layers": [str],            # neural networks: sorted set of layer kinds
         "submodels": [str],         # pipelines: the Type of each stage
         "error": str | null}]}      # the load's error, null when it loaded

Reading the spec to fill "models" happens only when the report is requested. The report's last
line, written when the session ends, is a summary instead:

    {"session": {"collected": int,      # test items pytest collected
                 "selected": int,       # items left after --opencoreml-sample (and -k, -m)
                 "sample": int,         # N of --opencoreml-sample (1: every test)
                 "collection_errors": [{"nodeid": str, "message": str}],
                 "duration": float}}    # seconds, the whole session

Sampling. `--opencoreml-sample=N` keeps a fixed 1/N of the collected tests: those whose node id's
CRC-32 is divisible by N, so the same tests run on every machine and every run (for suites too
large to run whole, and for CI). `--opencoreml-shard=K/M` keeps the K-th of M disjoint parts
(by the CRC-32's higher bits), for M processes run side by side. `--opencoreml-resume` leaves out
the tests the report file (and its `.partK` siblings) already has a line for, so an interrupted
run goes on where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import zlib

import pytest

from . import coremltools as backend

_MACOS_VERSION = (15, 0)


def _is_macos() -> bool:
    return True


def _macos_version() -> tuple:
    return _MACOS_VERSION


_originals: dict = {}


def patch_coremltools_platform() -> None:
    """Makes coremltools believe it runs on macOS 15 (without touching sys.platform)."""
    import coremltools._deps
    import coremltools.models.utils as utils

    if not _originals:  # the functions coremltools defined (`_macos_version` is an lru_cache wrapper)
        _originals["_is_macos"] = utils._is_macos
        _originals["_macos_version"] = utils._macos_version
    replacements = {"_is_macos": _is_macos, "_macos_version": _macos_version}
    coremltools._deps._IS_MACOS = True
    utils._is_macos = _is_macos
    utils._macos_version = _macos_version
    # The copies that `from coremltools.models.utils import _is_macos` (and the like) made in
    # modules imported before now, coremltools' own or not; modules imported later copy ours.
    for name, module in list(sys.modules.items()):
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for attribute, original in _originals.items():
            if namespace.get(attribute) is original:
                setattr(module, attribute, replacements[attribute])
        if (name == "coremltools" or name.startswith("coremltools.")) and namespace.get("_IS_MACOS") is False:
            module._IS_MACOS = True


# Patch at import: `-p` loads this module before conftest files and test modules are imported.
backend.enable()
patch_coremltools_platform()


def pytest_addoption(parser):
    parser.addoption("--opencoreml-report", metavar="FILE", default=None,
                     help="write one JSON line per test about its use of OpenCoreML (schema: "
                          "opencoreml.pytest_plugin's docstring)")
    parser.addoption("--opencoreml-sample", metavar="N", type=int, default=1,
                     help="run only the tests whose node id's CRC-32 is divisible by N (a fixed 1/N sample)")
    parser.addoption("--opencoreml-shard", metavar="K/M", default="0/1",
                     help="run only the K-th (from 0) of M disjoint parts of the tests")
    parser.addoption("--opencoreml-resume", action="store_true",
                     help="leave out the tests the --opencoreml-report file(s) already report")
    parser.addoption("--opencoreml-keep-models", metavar="DIR", default=None,
                     help="with --opencoreml-report, copy every single-file model of at most 16 KB the tests load "
                          "into DIR, named by its content's SHA-1 (seeds for the fuzzers)")


def in_sample(nodeid: str, every: int) -> bool:
    """Whether a test belongs to the fixed 1/`every` sample."""
    return every <= 1 or zlib.crc32(nodeid.encode("utf-8")) % every == 0


def in_shard(nodeid: str, shard: int, shards: int) -> bool:
    """Whether a test belongs to part `shard` of `shards` (independent of the sample's low bits)."""
    return shards <= 1 or (zlib.crc32(nodeid.encode("utf-8")) >> 12) % shards == shard


def reported_nodeids(path: str) -> set:
    """The node ids the report at `path`, and its `.partK` siblings, already have a line for."""
    import glob
    import os
    import re

    base = re.sub(r"\.part\d+$", "", path)
    done = set()
    for name in [base] + glob.glob(glob.escape(base) + ".part*"):
        if not os.path.isfile(name):
            continue
        with open(name, encoding="utf-8") as file:
            for line in file:
                try:
                    entry = json.loads(line)
                except ValueError:  # a line cut short by an interrupted run
                    continue
                if "nodeid" in entry:
                    done.add(entry["nodeid"])
    return done


def pytest_collection_modifyitems(session, config, items):
    every = config.getoption("--opencoreml-sample")
    shard, _, shards = config.getoption("--opencoreml-shard").partition("/")
    shard, shards = int(shard), int(shards or 1)
    done = set()
    report = config.getoption("--opencoreml-report")
    if config.getoption("--opencoreml-resume") and report:
        done = reported_nodeids(report)

    def keep(item) -> bool:
        return in_sample(item.nodeid, every) and in_shard(item.nodeid, shard, shards) and item.nodeid not in done

    left_out = [item for item in items if not keep(item)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if keep(item)]


def pytest_configure(config):
    # Again, for modules imported by conftest files since the plugin was loaded.
    patch_coremltools_platform()
    path = config.getoption("--opencoreml-report")
    if path:
        config.pluginmanager.register(_Reporter(path, config.getoption("--opencoreml-keep-models")), "opencoreml-reporter")


def _spec_summary(path: str, error) -> dict:
    """What kind of model `path` is, read with coremltools (cheap for the small models of tests)."""
    entry = {"path": path, "type": None, "ops": [], "layers": [], "submodels": [],
             "error": backend._first_line(error) if error is not None else None}
    try:
        import coremltools

        spec = coremltools.utils.load_spec(path)
    except Exception:
        return entry
    ops, layers, submodels = set(), set(), []
    _describe(spec, ops, layers, submodels, top=True)
    entry.update(type=spec.WhichOneof("Type"), ops=sorted(ops), layers=sorted(layers), submodels=submodels)
    return entry


def _describe(spec, ops: set, layers: set, submodels: list, top: bool) -> None:
    kind = spec.WhichOneof("Type")
    if not top:
        submodels.append(kind)
    if kind == "mlProgram":
        for function in spec.mlProgram.functions.values():
            for block in function.block_specializations.values():
                _block_ops(block, ops)
    elif kind in ("neuralNetwork", "neuralNetworkClassifier", "neuralNetworkRegressor"):
        for layer in getattr(spec, kind).layers:
            layers.add(layer.WhichOneof("layer"))
    elif kind in ("pipeline", "pipelineClassifier", "pipelineRegressor"):
        pipeline = spec.pipeline if kind == "pipeline" else getattr(spec, kind).pipeline
        for model in pipeline.models:
            _describe(model, ops, layers, submodels, top=False)


def _keep_model(path, folder: str, largest: int = 16384) -> None:
    """Copies the model file at `path` into `folder` as <SHA-1 of its bytes>.mlmodel when it is one
    file of at most `largest` bytes (packages and larger models are left out)."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > largest:
            return
        with open(path, "rb") as source:
            data = source.read()
        os.makedirs(folder, exist_ok=True)
        target = os.path.join(folder, hashlib.sha1(data).hexdigest()[:16] + ".mlmodel")
        if not os.path.exists(target):
            with open(target, "wb") as copy:
                copy.write(data)
    except OSError:
        pass


def _block_ops(block, ops: set) -> None:
    for operation in block.operations:
        ops.add(operation.type)
        for inner in operation.blocks:
            _block_ops(inner, ops)


class _Reporter:
    """Writes the per-test JSON lines of `--opencoreml-report`."""

    def __init__(self, path: str, keep_models: str | None = None):
        self.file = open(path, "a", encoding="utf-8")
        self.keep_models = keep_models
        self.models: list[dict] = []
        self.collected = 0
        self.selected = 0
        self.collection_errors: list[dict] = []
        self.started = time.monotonic()

    def pytest_collectreport(self, report):
        if report.failed:
            self.collection_errors.append({"nodeid": report.nodeid, "message": _first_line_of(report) or ""})

    def pytest_deselected(self, items):
        # Called during collection for the tests -k, -m or the sample leave out.
        self.collected += len(items)

    def pytest_collection_finish(self, session):
        self.selected = len(session.items)
        self.collected += len(session.items)

    def pytest_sessionfinish(self, session):
        summary = {"collected": self.collected, "selected": self.selected,
                   "sample": session.config.getoption("--opencoreml-sample"),
                   "collection_errors": self.collection_errors,
                   "duration": round(time.monotonic() - self.started, 1)}
        self.file.write(json.dumps({"session": summary}) + "\n")
        self.file.flush()

    def _on_load(self, path, error) -> None:
        self.models.append(_spec_summary(path, error))
        if self.keep_models:
            _keep_model(path, self.keep_models)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        backend.statistics.reset()
        self.models = []
        backend.on_load = self._on_load
        self.reports = []
        started = time.monotonic()
        yield
        backend.on_load = None
        self._write(item, time.monotonic() - started)

    def pytest_runtest_logreport(self, report):
        self.reports.append(report)

    def _write(self, item, duration: float) -> None:
        outcome, message, xfail = "passed", None, False
        for report in self.reports:
            xfail = xfail or hasattr(report, "wasxfail")
            if report.failed:
                outcome = "failed" if report.when == "call" else "error"
                message = _first_line_of(report)
                break
            if report.skipped:
                outcome, message = "skipped", _first_line_of(report)
        stats = backend.statistics
        line = {
            "nodeid": item.nodeid, "outcome": outcome, "xfail": xfail, "duration": round(duration, 4),
            "loaded": stats.loads, "load_failed": stats.load_failures, "predicted": stats.predictions,
            "predict_failed": stats.prediction_failures, "message": message,
            "load_errors": stats.load_errors, "predict_errors": stats.prediction_errors, "models": self.models,
        }
        self.file.write(json.dumps(line) + "\n")
        self.file.flush()

    def pytest_unconfigure(self, config):
        self.file.close()


def _first_line_of(report) -> str | None:
    if hasattr(report, "wasxfail") and report.skipped:
        return f"xfail: {report.wasxfail}" if report.wasxfail else "xfail"
    longrepr = report.longrepr
    if longrepr is None:
        return None
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (file, line, "Skipped: reason")
        reason = str(longrepr[2]).splitlines()[0] if longrepr[2] else ""
        return reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason or None
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and crash.message:
        return crash.message.splitlines()[0]
    text = str(longrepr).strip().splitlines()
    return text[-1] if text else None
