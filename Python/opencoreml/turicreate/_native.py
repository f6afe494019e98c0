"""The bridge to the Swift trainers: SFrame columns handed to the C interface as `ocm_table`s
(Arrow buffers read in place where their layout allows), training and feature extraction run on
a worker thread so that Ctrl-C reaches Python (which asks the library to stop and keeps what it
has trained), and progress events turned into Turi Create's printed tables."""

from __future__ import annotations

import array as _pyarray
import ctypes
import json
import os
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import _capi
from .._inputs import c_string
from ..errors import Error, consume
from ._errors import ToolkitError, ToolkitTypeError, ToolkitValueError
from ._image import IMAGE_ARROW_TYPE


class _Table:
    """An `ocm_table` holding copies of some columns of an SFrame (freed with the object)."""

    def __init__(self, sframe, columns):
        lib = _capi.lib()
        self.handle = ctypes.c_void_p(lib.ocm_table_create())
        try:
            for name in columns:
                if name not in sframe.column_names():
                    raise ToolkitValueError(f"column '{name}' is not in the SFrame (its columns: {', '.join(sframe.column_names())})")
                self._add(name, sframe._table.column(name).combine_chunks())
        except BaseException:
            self.close()
            raise

    def _add(self, name, data):
        lib = _capi.lib()
        error = ctypes.c_void_p()
        count = len(data)
        missing = np.ascontiguousarray(np.asarray(data.is_null(), dtype=np.uint8)) if data.null_count else None
        missing_pointer = missing.ctypes.data if missing is not None else None
        kind = data.type
        encoded = c_string(name, f"column {name!r}")
        if pa.types.is_integer(kind) or pa.types.is_boolean(kind):
            values = np.ascontiguousarray(data.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64))
            status = lib.ocm_table_add_int64s(self.handle, encoded, values.ctypes.data, missing_pointer, count, ctypes.byref(error))
        elif pa.types.is_floating(kind) or pa.types.is_null(kind):
            values = np.ascontiguousarray(data.cast(pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64))
            status = lib.ocm_table_add_doubles(self.handle, encoded, values.ctypes.data, missing_pointer, count, ctypes.byref(error))
        elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
            text = data.cast(pa.large_string())
            buffers = text.buffers()
            offsets = np.frombuffer(buffers[1], dtype=np.int64)[text.offset:text.offset + count + 1]
            offsets = np.ascontiguousarray(offsets)
            data_pointer = buffers[2].address if buffers[2] is not None and buffers[2].size else None
            status = lib.ocm_table_add_strings(self.handle, encoded, offsets.ctypes.data, data_pointer, missing_pointer, count,
                                               ctypes.byref(error))
        elif pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
            lengths = pc.list_value_length(data).fill_null(0).to_numpy(zero_copy_only=False)
            present = lengths[np.asarray(data.is_valid())] if data.null_count else lengths
            widths = np.unique(present)
            if len(widths) != 1 or widths[0] == 0:
                raise ToolkitValueError(f"column '{name}': every array must hold the same positive number of values "
                                        f"(found lengths {', '.join(str(int(w)) for w in widths[:5])})")
            width = int(widths[0])
            filled = data.fill_null(pa.scalar([0.0] * width, type=pa.list_(pa.float64()))) if data.null_count else data
            flat = pc.list_flatten(filled)
            if not (pa.types.is_floating(flat.type) or pa.types.is_integer(flat.type)):
                raise ToolkitTypeError(f"column '{name}' holds lists of {flat.type}; a feature must hold numbers")
            values = np.ascontiguousarray(flat.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
            status = lib.ocm_table_add_vectors(self.handle, encoded, values.ctypes.data, width, missing_pointer, count,
                                               ctypes.byref(error))
        elif kind == IMAGE_ARROW_TYPE:
            raise ToolkitTypeError(f"column '{name}' holds images; use image_classifier or extract features first")
        else:
            raise ToolkitTypeError(f"column '{name}' holds {kind} values, which this toolkit cannot use (int, float, str or array)")
        if status != _capi.OK:
            raise _toolkit_error(consume(error))

    def close(self):
        handle, self.handle = getattr(self, "handle", None), None
        if handle is not None and handle.value:
            _capi.lib().ocm_table_free(handle)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _toolkit_error(error):
    """A library error as Turi's exception type (a ToolkitError that is also a ValueError)."""
    if isinstance(error, ToolkitError):
        return error
    return ToolkitValueError(str(error))


def _run_interruptible(work, stop):
    """Runs `work()` on a thread while this one waits, so that Ctrl-C is seen here: it sets
    `stop` (the progress callback then asks the library to stop) and waits for the work to end.
    Returns (result, interrupted)."""
    outcome = {}
    done = threading.Event()

    def target():
        try:
            outcome["result"] = work()
        except BaseException as error:  # handed to the waiting thread
            outcome["error"] = error
        finally:
            done.set()

    thread = threading.Thread(target=target, name="opencoreml-train", daemon=True)
    thread.start()
    interrupted = False
    # An Event, not Thread.join: a KeyboardInterrupt inside join can leave the thread marked as
    # finished while it still runs.
    while not done.is_set():
        try:
            done.wait(0.1)
        except KeyboardInterrupt:
            if interrupted:
                raise
            interrupted = True
            stop.set()
            print("Interrupted: stopping after the current iteration and keeping the model so far "
                  "(press Ctrl-C again to abandon it).", file=sys.stderr, flush=True)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"], interrupted


class _ProgressTable:
    """Turi Create's per-iteration table, printed as the library reports each iteration."""

    def __init__(self, regression, validation, verbose):
        self.verbose = verbose
        metric = "RMSE" if regression else "Accuracy"
        self.columns = ["Iteration", "Elapsed Time", f"Training {metric}"] + ([f"Validation {metric}"] if validation else [])
        self.widths = [max(len(c), 10) for c in self.columns]
        self.started = False

    def _line(self):
        return "+" + "+".join("-" * (w + 2) for w in self.widths) + "+"

    def _row(self, cells):
        return "|" + "|".join(f" {str(c):<{w}} " for c, w in zip(cells, self.widths)) + "|"

    def iteration(self, event):
        if not self.verbose:
            return
        if not self.started:
            print(self._line())
            print(self._row(self.columns))
            print(self._line(), flush=True)
            self.started = True
        cells = [event["iteration"], f"{event['seconds']:.6f}", _number(event.get("training_metric"))]
        if len(self.columns) == 4:
            cells.append(_number(event.get("validation_metric")))
        print(self._row(cells), flush=True)

    def finish(self):
        if self.verbose and self.started:
            print(self._line(), flush=True)


def _number(value):
    return "nan" if value is None else f"{value:.6f}"


class _Bar:
    """A one-line progress bar on stderr (for feature extraction and activity-classifier steps)."""

    def __init__(self, title, verbose):
        self.title, self.verbose, self.last = title, verbose, 0.0

    def show(self, done, total, extra=""):
        if not self.verbose:
            return
        now = time.monotonic()
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r{self.title} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}{extra}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def train(toolkit, dataset, columns, options, validation=None, verbose=True, regression=False, model_path=None):
    """Trains `toolkit` (ocm_train's name) on the `columns` of `dataset` (and `validation`, an
    SFrame or None) with `options`; writes the Core ML model to `model_path`. Returns the
    library's report (a dict), with "interrupted" set when Ctrl-C stopped training early."""
    if len(dataset) == 0:
        raise ToolkitValueError("dataset: the SFrame has no rows")
    training = _Table(dataset, columns)
    checked = None
    if validation is not None:
        if len(validation) == 0:
            validation = None
        else:
            checked = _Table(validation, [c for c in columns if c in validation.column_names()])
    options = dict(options)
    options.setdefault("validation", "table" if checked is not None else "none")
    stop = threading.Event()
    table = _ProgressTable(regression, validation is not None or options["validation"] == "auto", verbose)
    bar = _Bar("Training", verbose)

    def on_event(_context, raw):
        try:
            event = json.loads(raw.decode("utf-8"))
            if event.get("kind") == "iteration":
                table.iteration(event)
            elif event.get("kind") == "step":
                bar.show(event["step"], event["of"], f"  iteration {event['iteration']}  loss {event['loss'] or float('nan'):.4f}")
        except Exception:
            pass
        return 1 if stop.is_set() else 0

    callback = _capi.PROGRESS_FN(on_event)

    def work():
        error = ctypes.c_void_p()
        raw = _capi.lib().ocm_train(toolkit.encode(), training.handle, checked.handle if checked is not None else None,
                                    json.dumps(options).encode(), callback, None, os.fspath(model_path).encode(),
                                    ctypes.byref(error))
        if not raw:
            raise _toolkit_error(consume(error, toolkit))
        try:
            return json.loads(ctypes.string_at(raw).decode("utf-8"))
        finally:
            _capi.lib().ocm_string_free(raw)

    try:
        report, interrupted = _run_interruptible(work, stop)
    finally:
        table.finish()
        training.close()
        if checked is not None:
            checked.close()
    report["interrupted"] = interrupted
    return report


def image_features(pictures, extractor_path=None, output_name=None, verbose=True, cache=True):
    """The features of `pictures` (a list of encoded JPEG/PNG bytes) by the extractor (None: the
    built-in one), as a float32 matrix, one row per picture; cached per picture and extractor."""
    lib = _capi.lib()
    count = len(pictures)
    # Pointers into the bytes objects themselves (read-only in the library; `pictures` keeps them alive).
    pointers = (ctypes.c_void_p * max(count, 1))(*[ctypes.cast(ctypes.c_char_p(p), ctypes.c_void_p) for p in pictures])
    sizes = (ctypes.c_size_t * max(count, 1))(*[len(p) for p in pictures])
    directory = _cache_directory() if cache else ""
    stop = threading.Event()
    bar = _Bar("Extracting image features", verbose)

    def on_event(_context, raw):
        try:
            event = json.loads(raw.decode("utf-8"))
            bar.show(event["completed"], event["total"], f"  ({event['cached']} from cache)" if event.get("cached") else "")
        except Exception:
            pass
        return 1 if stop.is_set() else 0

    callback = _capi.PROGRESS_FN(on_event)

    def work():
        features, width, error = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_void_p()
        status = lib.ocm_image_features(extractor_path.encode() if extractor_path else None,
                                        output_name.encode() if output_name else None, pointers, sizes, count,
                                        directory.encode(), callback, None, ctypes.byref(features), ctypes.byref(width),
                                        ctypes.byref(error))
        if status != _capi.OK:
            failure = consume(error, "feature extraction")
            if status == _capi.ERROR_CANCELLED:
                raise KeyboardInterrupt(str(failure))
            raise ToolkitValueError(str(failure))
        try:
            values = np.ctypeslib.as_array(ctypes.cast(features, ctypes.POINTER(ctypes.c_float)), shape=(count * width.value,)).copy() \
                if count else np.zeros(0, dtype=np.float32)
        finally:
            lib.ocm_bytes_free(features)
        return values.reshape(count, width.value)

    result, _ = _run_interruptible(work, stop)
    return result


def feature_count(extractor_path=None, output_name=None):
    count, error = ctypes.c_size_t(), ctypes.c_void_p()
    if _capi.lib().ocm_image_feature_count(extractor_path.encode() if extractor_path else None,
                                           output_name.encode() if output_name else None, ctypes.byref(count),
                                           ctypes.byref(error)) != _capi.OK:
        raise ToolkitValueError(str(consume(error, "feature extractor")))
    return count.value


def _cache_directory():
    """Where extracted features are kept: OPENCOREML_FEATURE_CACHE, else the user's cache folder."""
    given = os.environ.get("OPENCOREML_FEATURE_CACHE")
    if given is not None:
        return given
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "opencoreml", "image-features")


def export_image_classifier(classifier_path, feature_input, path, extractor_path=None, output_name=None, metadata=None):
    error = ctypes.c_void_p()
    if _capi.lib().ocm_image_classifier_export(extractor_path.encode() if extractor_path else None,
                                               output_name.encode() if output_name else None,
                                               os.fspath(classifier_path).encode(), feature_input.encode(),
                                               json.dumps(metadata or {}).encode(), os.fspath(path).encode(),
                                               ctypes.byref(error)) != _capi.OK:
        raise ToolkitValueError(str(consume(error, "export_coreml")))


def activity_windows(model, sframe, columns, session_id):
    """What the activity classifier `model` (an opencoreml.MLModel) predicts per window of `sframe`."""
    table = _Table(sframe, columns)
    try:
        error = ctypes.c_void_p()
        raw = _capi.lib().ocm_activity_predict(model._handle, table.handle, session_id.encode() if session_id else None,
                                               ctypes.byref(error))
        if not raw:
            raise _toolkit_error(consume(error, "activity classifier"))
        try:
            return json.loads(ctypes.string_at(raw).decode("utf-8"))
        finally:
            _capi.lib().ocm_string_free(raw)
    finally:
        table.close()
