"""What every toolkit's model shares: Turi's attributes (`model.classes`, `model.training_time`, ...)
read from its state, `save` / `tc.load_model` (a folder holding the Core ML model files, the state
as JSON and a version, written to a temporary folder and renamed into place), `export_coreml`, and
a summary `repr` as Turi prints it.

Turi Create's own saved models (its `dir_archive` folders) are not read: they hold Turi's C++
objects, not Core ML models."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import weakref

from ._errors import ToolkitValueError

_FORMAT = "opencoreml-turicreate-model"
_VERSION = 1
_STATE_FILE = "state.json"

# Class name -> class, filled by each toolkit module as it is imported.
_MODEL_CLASSES = {}


def register(cls):
    _MODEL_CLASSES[cls.__name__] = cls
    return cls


class _Model:
    """A trained model: `_state` holds Turi's fields (JSON values), `_files` the folder of its
    Core ML files (removed with the object)."""

    # Files of `_files` that `save` keeps.
    _FILES = ("model.mlmodel",)

    def __init__(self, state, files=None):
        self.__dict__["_state"] = dict(state)
        if files is None:
            files = tempfile.mkdtemp(prefix="opencoreml-model-")
            weakref.finalize(self, shutil.rmtree, files, True)
        self.__dict__["_files"] = files

    # Turi's fields as attributes, and its accessors.

    def __getattr__(self, name):
        state = self.__dict__.get("_state", {})
        if name in state:
            return state[name]
        raise AttributeError(f"'{type(self).__name__}' has no attribute or field '{name}' (fields: {', '.join(sorted(state))})")

    def _get(self, field):
        return getattr(self, field)

    def get(self, field):
        return getattr(self, field)

    def _list_fields(self):
        return sorted(self._state)

    def _file(self, name="model.mlmodel"):
        return os.path.join(self._files, name)

    _core_ml = None

    @property
    def _mlmodel(self):
        """The Core ML model, loaded by the OpenCoreML library once."""
        if self.__dict__.get("_core_ml") is None:
            from ..model import MLModel

            self.__dict__["_core_ml"] = MLModel(self._file())
        return self.__dict__["_core_ml"]

    # Saving and exporting

    def _loaded(self):
        """Called on a model `load_model` made, after its files are in place."""

    def _state_for_saving(self):
        return self._state

    def save(self, location):
        """Saves the model as a folder (replacing one at `location`); read back with `tc.load_model`."""
        location = os.path.abspath(os.path.expanduser(os.fspath(location)))
        parent = os.path.dirname(location) or "."
        if not os.path.isdir(parent):
            raise ToolkitValueError(f"save: the folder '{parent}' does not exist")
        staging = tempfile.mkdtemp(prefix=".opencoreml-save-", dir=parent)
        try:
            for name in self._FILES:
                shutil.copyfile(self._file(name), os.path.join(staging, name))
            with open(os.path.join(staging, _STATE_FILE), "w", encoding="utf-8") as file:
                json.dump({"format": _FORMAT, "version": _VERSION, "class": type(self).__name__, "state": self._state_for_saving()},
                          file, indent=1, sort_keys=True)
            if os.path.isdir(location) and os.path.isfile(os.path.join(location, _STATE_FILE)):
                old = location + ".old-" + os.path.basename(staging)
                os.rename(location, old)
                os.rename(staging, location)
                shutil.rmtree(old, ignore_errors=True)
            elif os.path.exists(location):
                raise ToolkitValueError(f"save: '{location}' exists and is not a saved model; not replacing it")
            else:
                os.rename(staging, location)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def export_coreml(self, filename):
        """Writes the Core ML model (`.mlmodel`), atomically."""
        _copy_atomically(self._file(), filename)

    # Summary

    def _summary_sections(self):
        """[(title, [(label, value), ...]), ...] of the repr after the class line."""
        return []

    def __repr__(self):
        lines = [f"Class                          : {type(self).__name__}", ""]
        for title, rows in self._summary_sections():
            lines += [title, "-" * len(title)]
            lines += [f"{label:<31}: {value}" for label, value in rows]
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"

    def __str__(self):
        return self.__repr__()

    def summary(self):
        print(repr(self))


def _copy_atomically(source, destination):
    destination = os.path.abspath(os.path.expanduser(os.fspath(destination)))
    directory = os.path.dirname(destination)
    if not os.path.isdir(directory):
        raise ToolkitValueError(f"export_coreml: the folder '{directory}' does not exist")
    handle, temporary = tempfile.mkstemp(prefix=".opencoreml-", dir=directory)
    os.close(handle)
    try:
        shutil.copyfile(source, temporary)
        os.replace(temporary, destination)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def load_model(location):
    """Loads a model saved by `model.save` (of this package; Turi Create's own saved models hold
    its C++ objects and are not read).

    A saved folder is read as untrusted: its state must be a JSON object of this package's format
    no larger than `_MAX_STATE_BYTES`, with Turi's fields of the right types, and its files must
    lie in the folder (a link out of it is refused); anything else is one ToolkitValueError."""
    location = os.path.abspath(os.path.expanduser(os.fspath(location)))
    state_path = os.path.join(location, _STATE_FILE)
    if not os.path.isfile(state_path):
        if os.path.isdir(location) and os.path.exists(os.path.join(location, "dir_archive.ini")):
            raise ToolkitValueError(f"load_model: '{location}' is a model saved by Turi Create itself, which OpenCoreML does not read; "
                                    "train it again with opencoreml.turicreate (or load its exported .mlmodel with opencoreml.MLModel)")
        raise ToolkitValueError(f"load_model: '{location}' is not a saved model (no {_STATE_FILE})")
    _inside(location, _STATE_FILE)
    size = os.path.getsize(state_path)
    if size > _MAX_STATE_BYTES:
        raise ToolkitValueError(f"load_model: '{state_path}' is too large ({size} bytes; a saved state is at most "
                                f"{_MAX_STATE_BYTES})")
    try:
        with open(state_path, encoding="utf-8") as file:
            saved = json.load(file)
    except (OSError, ValueError, RecursionError) as error:
        raise ToolkitValueError(f"load_model: '{state_path}' cannot be read: {type(error).__name__}: {str(error)[:200]}") from None
    if not isinstance(saved, dict) or saved.get("format") != _FORMAT or not isinstance(saved.get("state"), dict):
        raise ToolkitValueError(f"load_model: '{state_path}' is not an OpenCoreML Turi Create model")
    if saved.get("version") != _VERSION:
        raise ToolkitValueError(f"load_model: '{location}' was saved in format version {saved.get('version')!r:.40}; this package reads {_VERSION}")
    # Import every toolkit so that each model class is registered.
    from . import activity_classifier, image_classifier, _supervised  # noqa: F401

    name = saved.get("class")
    cls = _MODEL_CLASSES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ToolkitValueError(f"load_model: '{location}' holds a '{name!s:.80}', which this package does not know")
    _check_fields(location, saved["state"])
    model = cls.__new__(cls)
    _Model.__init__(model, saved["state"])
    for name in cls._FILES:
        source = os.path.join(location, name)
        if not os.path.isfile(source):
            raise ToolkitValueError(f"load_model: '{location}' lacks its file {name}")
        _inside(location, name)
        shutil.copyfile(source, model._file(name))
    try:
        model._loaded()
        model._mlmodel  # noqa: B018 - a corrupt model file is reported here, not at the first prediction
    except Exception as error:
        raise ToolkitValueError(f"load_model: the model in '{location}' cannot be loaded: {error}") from None
    return model


# The largest state.json `load_model` reads: states hold Turi's fields (a few numbers, names,
# classes, a linear model's coefficients), far smaller.
_MAX_STATE_BYTES = 64 * 1024 * 1024

# Turi's fields that every toolkit reads, and the JSON types they must have.
_FIELD_CHECKS = {
    "target": lambda value: isinstance(value, str),
    "feature": lambda value: isinstance(value, str),
    "features": lambda value: isinstance(value, list) and all(isinstance(item, str) for item in value),
    "classes": lambda value: isinstance(value, list) and all(isinstance(item, (str, int)) for item in value),
}


def _check_fields(location, state):
    for field, check in _FIELD_CHECKS.items():
        if field in state and not check(state[field]):
            raise ToolkitValueError(f"load_model: '{location}' has a state whose field '{field}' is {state[field]!r:.80}, "
                                    "not what a saved model holds")


def _inside(location, name):
    """Refuses a file of a saved folder that is a link to somewhere outside the folder."""
    folder = os.path.realpath(location)
    target = os.path.realpath(os.path.join(location, name))
    if os.path.commonpath([folder, target]) != folder:
        raise ToolkitValueError(f"load_model: '{name}' in '{location}' links to '{target}', outside the saved folder")
