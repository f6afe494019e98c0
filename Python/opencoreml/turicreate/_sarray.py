"""`SArray`: one typed column on an Apache Arrow array, with Turi Create's names.

Types are Turi's: `int` (int64), `float` (float64), `str`, `array` (a list of floats per row,
Arrow `list<double>`), `list` (a list of other values, such as `aggregate.CONCAT` of text) and
`Image` (the encoded file, decoded on demand) and `dict` (an Arrow map: keys all str or all int,
values all numbers or all str), each with missing values (`None`). Comparisons and `&`/`|` give `int` arrays
of 0 and 1, as in Turi Create, and such an array selects rows of an `SFrame`.
"""

from __future__ import annotations

import array as _pyarray
import math
import numbers
import operator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._errors import ToolkitTypeError, ToolkitValueError
from ._image import IMAGE_ARROW_TYPE, Image, _from_struct, _to_struct

_ARROW_TYPES = {int: pa.int64(), float: pa.float64(), str: pa.string(), _pyarray.array: pa.list_(pa.float64()), Image: IMAGE_ARROW_TYPE}


def _arrow_type(dtype):
    if dtype in _ARROW_TYPES:
        return _ARROW_TYPES[dtype]
    raise ToolkitTypeError(f"dtype {dtype!r} is not supported (int, float, str, array.array or list)")


def _python_type(arrow_type):
    if pa.types.is_integer(arrow_type) or pa.types.is_boolean(arrow_type):
        return int
    if pa.types.is_floating(arrow_type):
        return float
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return str
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type) or pa.types.is_fixed_size_list(arrow_type):
        element = arrow_type.value_type
        return _pyarray.array if pa.types.is_floating(element) or pa.types.is_integer(element) or pa.types.is_null(element) else list
    if pa.types.is_map(arrow_type):
        return dict
    if pa.types.is_null(arrow_type):
        return float
    if arrow_type == IMAGE_ARROW_TYPE:
        return Image
    raise ToolkitTypeError(f"a column of Arrow type {arrow_type} is not supported")


def _infer_type(values):
    """The Turi type of a list of Python values (None ignored); mixed kinds are an error."""
    kinds = set()
    for value in values:
        if value is None or (isinstance(value, float) and math.isnan(value)):
            continue
        if isinstance(value, (bool, np.bool_)) or isinstance(value, numbers.Integral):
            kinds.add(int)
        elif isinstance(value, numbers.Real):
            kinds.add(float)
        elif isinstance(value, str):
            kinds.add(str)
        elif isinstance(value, Image):
            kinds.add(Image)
        elif isinstance(value, dict):
            kinds.add(dict)
        elif isinstance(value, (np.ndarray, _pyarray.array)):
            kinds.add(_pyarray.array)
        elif isinstance(value, (list, tuple)):
            numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value)
            kinds.add(_pyarray.array if numeric else list)
        else:
            raise ToolkitTypeError(f"values of type {type(value).__name__} are not supported in an SArray")
    if kinds == {int, float}:
        return float
    if kinds == {_pyarray.array, list}:
        return list
    if len(kinds) > 1:
        names = ", ".join(sorted(k.__name__ if k is not _pyarray.array else "array" for k in kinds))
        raise ToolkitTypeError(f"an SArray holds one type; these values mix {names}")
    return kinds.pop() if kinds else float


def _to_arrow(values, dtype=None):
    if isinstance(values, SArray):
        data = values._data
        return data if dtype is None else data.cast(_arrow_type(dtype))
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        data = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
        _python_type(data.type)
        return data if dtype is None else data.cast(_arrow_type(dtype))
    if isinstance(values, np.ndarray):
        if values.ndim == 2:
            return pa.array([row.astype(float).tolist() for row in values], type=pa.list_(pa.float64()))
        if values.ndim != 1:
            raise ToolkitValueError(f"an SArray is made from a 1-D array (or 2-D for array rows), not {values.ndim}-D")
        if values.dtype.kind in "iub":
            data = pa.array(values.astype(np.int64))
        elif values.dtype.kind == "f":
            data = pa.array(values.astype(np.float64), from_pandas=True)
        else:
            return _to_arrow(values.tolist(), dtype)
        return data if dtype is None else data.cast(_arrow_type(dtype))
    if hasattr(values, "to_numpy") and hasattr(values, "dtype") and not isinstance(values, (list, tuple)):  # pandas Series
        return _to_arrow(values.to_numpy() if values.dtype.kind in "iufb" else values.tolist(), dtype)
    values = list(values)
    kind = dtype if dtype is not None else _infer_type(values)
    if kind is Image:
        if not all(value is None or isinstance(value, Image) for value in values):
            raise ToolkitTypeError("an Image SArray holds Image values (or None)")
        return _to_struct(values)
    if kind is dict:
        return _dicts_to_arrow(values)
    cleaned = []
    for value in values:
        if value is None or (isinstance(value, float) and math.isnan(value) and kind is not float):
            cleaned.append(None)
        elif kind is _pyarray.array:
            cleaned.append([float(v) for v in value])
        elif kind is list:
            cleaned.append(list(value))
        elif kind is float:
            cleaned.append(float(value))
        elif kind is int:
            cleaned.append(int(value))
        else:
            cleaned.append(value if isinstance(value, str) else str(value))
    if kind is list:
        try:
            return pa.array(cleaned)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
            raise ToolkitTypeError(f"list values must hold one type each: {error}") from None
    return pa.array(cleaned, type=_arrow_type(kind))


def _dicts_to_arrow(values):
    """A dict column as an Arrow map: keys all str or all int, values all numbers (int, float) or all str."""
    keys, items = set(), set()
    for value in values:
        if value is None:
            continue
        if not isinstance(value, dict):
            raise ToolkitTypeError(f"a dict SArray holds dicts (or None), not {type(value).__name__}")
        for key, item in value.items():
            keys.add(str if isinstance(key, str) else int if isinstance(key, numbers.Integral) and not isinstance(key, bool) else type(key))
            if item is None:
                continue
            items.add(float if isinstance(item, numbers.Real) and not isinstance(item, numbers.Integral)
                      else int if isinstance(item, numbers.Integral) else str if isinstance(item, str) else type(item))
    if not keys <= {str} and not keys <= {int}:
        raise ToolkitTypeError(f"a dict column's keys must be all str or all int; these are {', '.join(sorted(k.__name__ for k in keys))}")
    if items == {int, float}:
        items = {float}
    if len(items) > 1 or not items <= {int, float, str}:
        raise ToolkitTypeError(f"a dict column's values must be all numbers or all str; these are {', '.join(sorted(k.__name__ for k in items))}")
    key_type = pa.int64() if keys == {int} else pa.string()
    item_type = {int: pa.int64(), float: pa.float64(), str: pa.string()}.get(next(iter(items), float))
    return pa.array([None if value is None else list(value.items()) for value in values], type=pa.map_(key_type, item_type))


class SArray:
    """One column of values of a single type (`int`, `float`, `str` or `array`), missing values as None."""

    def __init__(self, data=None, dtype=None):
        self._data = _to_arrow([] if data is None else data, dtype)

    @classmethod
    def _from_arrow(cls, data):
        result = cls.__new__(cls)
        result._data = data.combine_chunks() if isinstance(data, pa.ChunkedArray) else data
        return result

    # Size, type, values

    @property
    def dtype(self):
        """The Python type of the values: int, float, str or array.array."""
        return _python_type(self._data.type)

    def __len__(self):
        return len(self._data)

    def size(self):
        return len(self)

    def __iter__(self):
        return iter(self._python_values())

    def _python_values(self):
        values = self._data.to_pylist()
        if self.dtype is Image:
            return [_from_struct(v) for v in values]
        if self.dtype is _pyarray.array:
            return [None if v is None else _pyarray.array("d", v) for v in values]
        if self.dtype is dict:
            return [None if v is None else dict(v) for v in values]
        return values

    def to_numpy(self):
        """The values as a numpy array (float for numbers with missing values; object for text)."""
        if self.dtype is _pyarray.array:
            return np.array([np.asarray(v, dtype=float) for v in self._data.to_pylist()], dtype=object)
        return self._data.to_numpy(zero_copy_only=False)

    def __array__(self, dtype=None, copy=None):
        values = self.to_numpy()
        return values if dtype is None else values.astype(dtype)

    def __getitem__(self, index):
        if isinstance(index, SArray):
            return SArray._from_arrow(self._data.filter(_mask(index, len(self))))
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1:
                return SArray._from_arrow(self._data.slice(start, max(stop - start, 0)))
            return SArray._from_arrow(self._data.take(pa.array(range(start, stop, step), type=pa.int64())))
        if isinstance(index, numbers.Integral):
            position = index + len(self) if index < 0 else index
            if not 0 <= position < len(self):
                raise IndexError(f"SArray index {index} is out of range for {len(self)} values")
            value = self._data[position].as_py()
            if self.dtype is Image:
                return _from_struct(value)
            if value is not None and self.dtype is dict:
                return dict(value)
            return _pyarray.array("d", value) if value is not None and self.dtype is _pyarray.array else value
        raise ToolkitTypeError(f"an SArray is indexed by an int, a slice or an SArray mask, not {type(index).__name__}")

    def head(self, n=10):
        return self[:n]

    def tail(self, n=10):
        return self[max(len(self) - n, 0):]

    # Elementwise

    def _binary(self, other, function, name):
        if isinstance(other, SArray):
            if len(other) != len(self):
                raise ToolkitValueError(f"{name} of SArrays of {len(self)} and {len(other)} values; they must be as long")
            right = other._data
        elif isinstance(other, (numbers.Number, str)):
            right = pa.scalar(other)
        else:
            return NotImplemented
        try:
            return SArray._from_arrow(function(self._data, right))
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError) as error:
            raise ToolkitTypeError(f"{name} is not defined between {self.dtype.__name__} and {type(other).__name__} values: {error}") from None

    def _compare(self, other, function, name):
        result = self._binary(other, function, name)
        return result if result is NotImplemented else SArray._from_arrow(result._data.cast(pa.int64()))

    def __eq__(self, other):
        return self._compare(other, pc.equal, "==")

    def __ne__(self, other):
        return self._compare(other, pc.not_equal, "!=")

    def __lt__(self, other):
        return self._compare(other, pc.less, "<")

    def __le__(self, other):
        return self._compare(other, pc.less_equal, "<=")

    def __gt__(self, other):
        return self._compare(other, pc.greater, ">")

    def __ge__(self, other):
        return self._compare(other, pc.greater_equal, ">=")

    __hash__ = None

    def _logical(self, other, function, name):
        if not isinstance(other, SArray):
            return NotImplemented
        left, right = _truth(self), _truth(other)
        if len(left) != len(right):
            raise ToolkitValueError(f"{name} of SArrays of {len(left)} and {len(right)} values; they must be as long")
        return SArray._from_arrow(function(left, right).cast(pa.int64()))

    def __and__(self, other):
        return self._logical(other, pc.and_kleene, "&")

    def __or__(self, other):
        return self._logical(other, pc.or_kleene, "|")

    def __invert__(self):
        return SArray._from_arrow(pc.invert(_truth(self)).cast(pa.int64()))

    def __add__(self, other):
        if self.dtype is str:
            return self._binary(other, lambda a, b: pc.binary_join_element_wise(a, b, ""), "+")
        return self._binary(other, pc.add, "+")

    def __radd__(self, other):
        if self.dtype is str:
            return SArray._from_arrow(pc.binary_join_element_wise(pa.scalar(other), self._data, ""))
        return self._binary(other, lambda a, b: pc.add(b, a), "+")

    def __sub__(self, other):
        return self._binary(other, pc.subtract, "-")

    def __rsub__(self, other):
        return self._binary(other, lambda a, b: pc.subtract(b, a), "-")

    def __mul__(self, other):
        return self._binary(other, pc.multiply, "*")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary(other, lambda a, b: pc.divide(pc.cast(a, pa.float64()), pc.cast(b, pa.float64())), "/")

    def __rtruediv__(self, other):
        return self._binary(other, lambda a, b: pc.divide(pc.cast(b, pa.float64()), pc.cast(a, pa.float64())), "/")

    def __neg__(self):
        return SArray._from_arrow(pc.negate(self._data))

    def apply(self, fn, dtype=None, skip_na=True, seed=None):
        """`fn` of every value (None stays None when `skip_na`), typed `dtype` or by what `fn` returns."""
        if not callable(fn):
            raise ToolkitTypeError("apply needs a function")
        results = [None if (value is None and skip_na) else fn(value) for value in self]
        return SArray(results, dtype=dtype)

    def filter(self, fn, skip_na=True, seed=None):
        return self[SArray([0 if (value is None and skip_na) else int(bool(fn(value))) for value in self])]

    def astype(self, dtype, undefined_on_failure=False):
        if dtype is self.dtype:
            return self
        if self.dtype is str and dtype in (int, float):
            converted = []
            for value in self:
                try:
                    converted.append(None if value is None else dtype(value))
                except ValueError:
                    if not undefined_on_failure:
                        raise ToolkitValueError(f"astype({dtype.__name__}): '{value}' is not a number") from None
                    converted.append(None)
            return SArray(converted, dtype=dtype)
        if dtype is str:
            return SArray([None if v is None else str(v) for v in self], dtype=str)
        return SArray._from_arrow(self._data.cast(_arrow_type(dtype)))

    def fillna(self, value):
        return SArray._from_arrow(self._data.fill_null(pa.scalar(value).cast(self._data.type)))

    def dropna(self):
        return SArray._from_arrow(self._data.drop_null())

    def countna(self):
        return self._data.null_count

    num_missing = countna

    def is_in(self, other):
        return SArray._from_arrow(pc.is_in(self._data, value_set=_to_arrow(list(other))).cast(pa.int64()))

    def contains(self, item):
        return SArray([None if v is None else int(item in v) for v in self], dtype=int)

    # Aggregates

    def _numbers(self, name):
        if self.dtype not in (int, float):
            raise ToolkitTypeError(f"{name} needs numbers; the SArray holds {self.dtype.__name__} values")
        return self._data.drop_null()

    def sum(self):
        values = self._numbers("sum")
        return pc.sum(values).as_py() if len(values) else 0

    def mean(self):
        values = self._numbers("mean")
        return pc.mean(values).as_py() if len(values) else None

    def std(self, ddof=0):
        values = self._numbers("std")
        return pc.stddev(values, ddof=ddof).as_py() if len(values) else None

    def var(self, ddof=0):
        values = self._numbers("var")
        return pc.variance(values, ddof=ddof).as_py() if len(values) else None

    def min(self):
        values = self._data.drop_null()
        return pc.min(values).as_py() if len(values) else None

    def max(self):
        values = self._data.drop_null()
        return pc.max(values).as_py() if len(values) else None

    def nnz(self):
        return int(pc.sum(pc.not_equal(self._numbers("nnz"), 0)).as_py() or 0)

    def any(self):
        return bool(pc.any(_truth(self)).as_py())

    def all(self):
        return bool(pc.all(_truth(self)).as_py())

    def unique(self):
        """The distinct values, missing values left out."""
        return SArray._from_arrow(pc.unique(self._data.drop_null()))

    def sort(self, ascending=True):
        order = pc.sort_indices(self._data, sort_keys=[("", "ascending" if ascending else "descending", "at_end")])
        return SArray._from_arrow(self._data.take(order))

    def value_counts(self):
        """An SFrame of `value` and `count`, most frequent first."""
        from ._sframe import SFrame

        counts = pc.value_counts(self._data.drop_null())
        values, numbers_ = counts.field("values"), counts.field("counts").cast(pa.int64())
        frame = SFrame._from_table(pa.table({"value": values, "count": numbers_}))
        return frame.sort([("count", False), ("value", True)])

    def summary(self):
        """Turi's sketch of the column: length, missing, distinct values and the usual statistics."""
        return _Summary(self)

    def __repr__(self):
        shown = self.head(100)._python_values()
        more = "" if len(self) <= 100 else ", ... (showing first 100)"
        name = "array" if self.dtype is _pyarray.array else self.dtype.__name__
        return f"dtype: {name}\nRows: {len(self)}\n{shown!r}{more}"

    __str__ = __repr__


class _Summary:
    """What `SArray.summary()` shows: printed as a small table, readable as attributes."""

    def __init__(self, column):
        self.size = len(column)
        self.num_missing = column.countna()
        self.num_unique = len(column.unique()) if column.dtype in (int, float, str) else None
        self.dtype = column.dtype
        numbers_ = column.dtype in (int, float)
        self.min, self.max = (column.min(), column.max()) if numbers_ else (None, None)
        self.mean, self.std = (column.mean(), column.std()) if numbers_ else (None, None)
        counts = column.value_counts().head(10) if column.dtype in (int, str) else None
        self.frequent_items = [] if counts is None else list(zip(counts["value"], counts["count"]))

    def __repr__(self):
        lines = [f"length: {self.size}", f"missing: {self.num_missing}"]
        if self.num_unique is not None:
            lines.append(f"unique (exact): {self.num_unique}")
        if self.mean is not None:
            lines += [f"min: {self.min}", f"max: {self.max}", f"mean: {self.mean:.6g}", f"std: {self.std:.6g}"]
        if self.frequent_items:
            lines.append("most frequent items:")
            width = max(len(str(value)) for value, _ in self.frequent_items)
            lines += [f"  {str(value):<{width}}  {count}" for value, count in self.frequent_items]
        return "\n".join(lines)


def _truth(column):
    """A column's values as Arrow booleans: non-zero numbers, non-empty text and arrays are true."""
    data = column._data
    if pa.types.is_boolean(data.type):
        return data
    if column.dtype in (int, float):
        return pc.not_equal(data, 0)
    return pc.greater(pc.utf8_length(data) if column.dtype is str else pc.list_value_length(data), 0)


def _mask(index, length):
    if len(index) != length:
        raise ToolkitValueError(f"a mask of {len(index)} values selects from {length}; they must be as long")
    return pc.fill_null(_truth(index), False)
