"""`activity_classifier.util.random_split_by_session`: a random split that keeps each session whole."""

from __future__ import annotations

import numbers

import numpy as np

from .._errors import ToolkitTypeError, ToolkitValueError


def random_split_by_session(dataset, session_id, fraction=0.9, seed=None):
    """Two SFrames: the rows of about `fraction` of the sessions (each session drawn on its own),
    and the rest; a session is never split. `seed` makes the draw repeatable."""
    from .._sframe import SFrame

    if not isinstance(dataset, SFrame):
        raise ToolkitTypeError(f"dataset must be an SFrame, not {type(dataset).__name__}")
    if session_id not in dataset.column_names():
        raise ToolkitValueError(f"session_id: column '{session_id}' is not in the dataset")
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0 < fraction < 1:
        raise ToolkitValueError(f"fraction must lie strictly between 0 and 1, got {fraction!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise ToolkitTypeError(f"seed must be an integer or None, not {type(seed).__name__}")
    sessions = dataset[session_id].unique().sort()
    draws = np.random.default_rng(seed).random(len(sessions))
    chosen = [value for value, draw in zip(sessions, draws) if draw < fraction]
    training = dataset.filter_by(chosen, session_id) if chosen else dataset[0:0]
    rest = dataset.filter_by(chosen, session_id, exclude=True) if chosen else dataset
    return training, rest
