"""`SFrame`: a table of named `SArray` columns on an Apache Arrow table, with Turi Create's names.

Saved SFrames are folders holding `data.parquet` (Arrow's columnar file, memory-mapped when read
back) and `sframe.json` (format and version); they are written into a temporary folder and renamed
into place, so a failed save leaves nothing half-written. Turi Create's own binary SFrame folders
are not read.
"""

from __future__ import annotations

import base64
import html
import json
import numbers
import os
import shutil
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from . import aggregate as _aggregate
from ._errors import ToolkitError, ToolkitTypeError, ToolkitValueError
from ._sarray import SArray, _arrow_type, _mask, _python_type, _to_arrow

_FORMAT = "opencoreml-sframe"
_VERSION = 1


class SFrame:
    """A table: named columns of equal length, each an `SArray`."""

    def __init__(self, data=None, format="auto"):
        if data is None:
            self._table = pa.table({})
        elif isinstance(data, SFrame):
            self._table = data._table
        elif isinstance(data, pa.Table):
            self._table = data
        elif isinstance(data, (str, os.PathLike)):
            path = os.fspath(data)
            if format == "csv" or (format == "auto" and os.path.isfile(path)):
                self._table = SFrame.read_csv(path, verbose=False)._table
            else:
                self._table = _load(path)
        elif isinstance(data, dict):
            columns = {str(name): _to_arrow(values) for name, values in data.items()}
            lengths = {len(values) for values in columns.values()}
            if len(lengths) > 1:
                sizes = ", ".join(f"'{name}': {len(values)}" for name, values in columns.items())
                raise ToolkitValueError(f"the columns of an SFrame must be as long ({sizes})")
            self._table = pa.table(columns)
        elif hasattr(data, "columns") and hasattr(data, "to_dict"):  # a pandas DataFrame
            self._table = pa.table({str(name): _to_arrow(data[name]) for name in data.columns})
        else:
            raise ToolkitTypeError(f"an SFrame is made from a dict of columns, a pandas DataFrame, a CSV file or a saved SFrame, "
                                   f"not {type(data).__name__}")

    @classmethod
    def _from_table(cls, table):
        frame = cls.__new__(cls)
        frame._table = table
        return frame

    # Reading and writing

    @classmethod
    def read_csv(cls, url, delimiter=",", header=True, column_type_hints=None, na_values=("NA",), usecols=(), nrows=None,
                 skiprows=0, verbose=True, **_):
        """A CSV file as an SFrame, each column typed as its values read (int, float, else str)."""
        if not os.path.isfile(url):
            raise ToolkitValueError(f"read_csv: no file at '{url}'")
        if isinstance(na_values, str):
            na_values = [na_values]
        read = pacsv.ReadOptions(skip_rows=int(skiprows), autogenerate_column_names=not header)
        parse = pacsv.ParseOptions(delimiter=delimiter)
        types = {}
        if isinstance(column_type_hints, dict):
            types = {name: _arrow_type(kind) for name, kind in column_type_hints.items()}
        convert = pacsv.ConvertOptions(column_types=types, null_values=list(na_values) + [""], strings_can_be_null=True,
                                       include_columns=list(usecols) or None)
        try:
            table = pacsv.read_csv(url, read_options=read, parse_options=parse, convert_options=convert)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowKeyError) as error:
            raise ToolkitValueError(f"read_csv '{url}': {error}") from None
        if not header:
            table = table.rename_columns([f"X{index + 1}" for index in range(table.num_columns)])
        if nrows is not None:
            table = table.slice(0, int(nrows))
        if column_type_hints is not None and not isinstance(column_type_hints, dict):
            kinds = column_type_hints if isinstance(column_type_hints, (list, tuple)) else [column_type_hints] * table.num_columns
            table = pa.table({name: table[name].cast(_arrow_type(kind)) for name, kind in zip(table.column_names, kinds)})
        frame = cls._from_table(_supported(table))
        if verbose:
            print(f"Finished parsing file {os.path.abspath(url)}: {frame.num_rows()} rows, {frame.num_columns()} columns")
        return frame

    def save(self, filename, format=None):
        """Writes the SFrame: a folder (`data.parquet`, `sframe.json`), or with `format='csv'` a CSV file."""
        path = os.fspath(filename)
        if format is None:
            format = "csv" if path.endswith(".csv") else "binary"
        if format not in ("binary", "csv"):
            raise ToolkitValueError(f"save: format '{format}' is not 'binary' or 'csv'")
        folder = os.path.dirname(os.path.abspath(path))
        if format == "csv":
            table = pa.table({name: _csv_column(self._table[name]) for name in self._table.column_names})
            descriptor, scratch = tempfile.mkstemp(prefix=".sframe-", suffix=".csv", dir=folder)
            os.close(descriptor)
            try:
                pacsv.write_csv(table, scratch)
                os.replace(scratch, path)
            except BaseException:
                os.unlink(scratch)
                raise
            return
        scratch = tempfile.mkdtemp(prefix=".sframe-", dir=folder)
        try:
            pq.write_table(self._table, os.path.join(scratch, "data.parquet"))
            with open(os.path.join(scratch, "sframe.json"), "w", encoding="utf-8") as meta:
                json.dump({"format": _FORMAT, "version": _VERSION, "columns": self.column_names(),
                           "rows": self.num_rows()}, meta)
            if os.path.isdir(path):
                old = path + ".replaced"
                os.replace(path, old)
                os.replace(scratch, path)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(scratch, path)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise

    def to_dataframe(self):
        """The table as a pandas DataFrame."""
        return self._table.to_pandas()

    to_pandas = to_dataframe

    # Shape and columns

    def num_rows(self):
        return self._table.num_rows

    def num_columns(self):
        return self._table.num_columns

    @property
    def shape(self):
        return (self.num_rows(), self.num_columns())

    def __len__(self):
        return self.num_rows()

    def column_names(self):
        return list(self._table.column_names)

    def column_types(self):
        return [_python_type(column.type) for column in self._table.columns]

    def _column(self, name):
        if name not in self._table.column_names:
            raise ToolkitValueError(f"no column '{name}'; the SFrame has {self.column_names()}")
        return self._table[name].combine_chunks()

    def select_column(self, column_name):
        return SArray._from_arrow(self._column(column_name))

    def select_columns(self, column_names):
        return SFrame._from_table(pa.table({name: self._column(name) for name in column_names}))

    def __getitem__(self, key):
        if isinstance(key, str):
            return self.select_column(key)
        if isinstance(key, (list, tuple)):
            return self.select_columns(key)
        if isinstance(key, SArray):
            return SFrame._from_table(self._table.filter(_mask(key, self.num_rows())))
        if isinstance(key, slice):
            start, stop, step = key.indices(self.num_rows())
            if step == 1:
                return SFrame._from_table(self._table.slice(start, max(stop - start, 0)))
            return SFrame._from_table(self._table.take(pa.array(range(start, stop, step), type=pa.int64())))
        if isinstance(key, numbers.Integral):
            position = key + self.num_rows() if key < 0 else key
            if not 0 <= position < self.num_rows():
                raise IndexError(f"SFrame row {key} is out of range for {self.num_rows()} rows")
            return {name: self.select_column(name)[position] for name in self.column_names()}
        raise ToolkitTypeError(f"an SFrame is indexed by a column name, a list of names, a row number, a slice or an SArray mask, "
                               f"not {type(key).__name__}")

    def __setitem__(self, name, value):
        column = self._column_values(value, str(name))
        if name in self._table.column_names:
            self._table = self._table.set_column(self._table.column_names.index(name), str(name), column)
        else:
            self._table = self._table.append_column(str(name), column)

    def __delitem__(self, name):
        self._table = self.remove_column(name)._table

    def _column_values(self, value, name):
        rows = self.num_rows()
        if isinstance(value, (SArray, list, tuple, np.ndarray, pa.Array, pa.ChunkedArray)):
            column = _to_arrow(value)
            if self.num_columns() and len(column) != rows:
                raise ToolkitValueError(f"column '{name}' has {len(column)} values; the SFrame has {rows} rows")
            return column
        return _to_arrow([value] * rows)

    def add_column(self, data, column_name="", inplace=False):
        name = column_name or f"X{self.num_columns() + 1}"
        if name in self._table.column_names:
            raise ToolkitValueError(f"add_column: the SFrame already has a column '{name}'")
        frame = self if inplace else SFrame._from_table(self._table)
        frame[name] = data
        return frame

    def add_columns(self, data, column_names=None, inplace=False):
        frame = self if inplace else SFrame._from_table(self._table)
        if isinstance(data, SFrame):
            pairs = [(name, data[name]) for name in data.column_names()]
        else:
            if column_names is None or len(column_names) != len(data):
                raise ToolkitValueError("add_columns: give one name per column (column_names)")
            pairs = list(zip(column_names, data))
        for name, column in pairs:
            frame.add_column(column, name, inplace=True)
        return frame

    def remove_column(self, column_name, inplace=False):
        self._column(column_name)
        table = self._table.drop_columns([column_name])
        if inplace:
            self._table = table
            return self
        return SFrame._from_table(table)

    def remove_columns(self, column_names, inplace=False):
        frame = self if inplace else SFrame._from_table(self._table)
        for name in column_names:
            frame.remove_column(name, inplace=True)
        return frame

    def rename(self, names, inplace=False):
        if not isinstance(names, dict):
            raise ToolkitTypeError("rename takes a dict of old name → new name")
        for old in names:
            self._column(old)
        table = self._table.rename_columns([names.get(name, name) for name in self._table.column_names])
        if len(set(table.column_names)) != table.num_columns:
            raise ToolkitValueError(f"rename: the new names {table.column_names} repeat a name")
        if inplace:
            self._table = table
            return self
        return SFrame._from_table(table)

    # Rows

    def head(self, n=10):
        return self[:n]

    def tail(self, n=10):
        return self[max(self.num_rows() - n, 0):]

    def __iter__(self):
        names = self.column_names()
        columns = [self.select_column(name) for name in names]
        values = [list(column) for column in columns]
        for row in range(self.num_rows()):
            yield {name: column[row] for name, column in zip(names, values)}

    def filter_by(self, values, column_name, exclude=False):
        """The rows whose `column_name` is (or, with `exclude`, is not) among `values`."""
        if isinstance(values, (str, numbers.Number)):
            values = [values]
        column = self._column(column_name)
        keep = pc.is_in(column, value_set=_to_arrow(list(values)).cast(column.type))
        if exclude:
            keep = pc.invert(keep)
        return SFrame._from_table(self._table.filter(pc.fill_null(keep, False)))

    def sort(self, key_column_names, ascending=True):
        """Rows ordered by one column, several, or `[(column, ascending), …]`; missing values last."""
        if isinstance(key_column_names, str):
            keys = [(key_column_names, ascending)]
        else:
            keys = [key if isinstance(key, tuple) else (key, ascending) for key in key_column_names]
        for name, _ in keys:
            self._column(name)
        order = pc.sort_indices(self._table, sort_keys=[(name, "ascending" if up else "descending", "at_end") for name, up in keys])
        return SFrame._from_table(self._table.take(order))

    def random_split(self, fraction, seed=None, exact=False):
        """Two SFrames: each row goes to the first with probability `fraction` (exactly that share of
        the rows, chosen at random, with `exact`), the rest to the second, in row order."""
        if not isinstance(fraction, numbers.Real) or not 0 <= fraction <= 1:
            raise ToolkitValueError(f"random_split: fraction {fraction!r} is not between 0 and 1")
        generator = np.random.default_rng(seed)
        rows = self.num_rows()
        if exact:
            chosen = np.zeros(rows, dtype=bool)
            chosen[generator.permutation(rows)[: int(round(fraction * rows))]] = True
        else:
            chosen = generator.random(rows) < fraction
        mask = pa.array(chosen)
        return SFrame._from_table(self._table.filter(mask)), SFrame._from_table(self._table.filter(pc.invert(mask)))

    def groupby(self, key_column_names, operations):
        """One row per distinct key: the keys, then one column per operation (`{name: aggregate.X(column)}`)."""
        keys = [key_column_names] if isinstance(key_column_names, str) else list(key_column_names)
        for name in keys:
            self._column(name)
        if isinstance(operations, _aggregate._Aggregate):
            operations = [operations]
        if isinstance(operations, (list, tuple)):
            operations = {f"{op.kind}_of_{op.column}" if op.column else "Count": op for op in operations}
        functions = {"SUM": "sum", "MEAN": "mean", "MIN": "min", "MAX": "max", "STD": "stddev", "VAR": "variance",
                     "COUNT_DISTINCT": "count_distinct", "CONCAT": "list", "SELECT_ONE": "first"}
        requests, names = [], []
        for name, op in operations.items():
            if not isinstance(op, _aggregate._Aggregate):
                raise ToolkitTypeError(f"groupby: operation '{name}' is not an aggregate (use tc.aggregate.COUNT(), SUM(column), …)")
            if op.kind == "COUNT":
                requests.append(([], "count_all"))
            else:
                self._column(op.column)
                options = pc.VarianceOptions(ddof=0) if op.kind in ("STD", "VAR") else None
                requests.append((op.column, functions[op.kind], options) if options else (op.column, functions[op.kind]))
            names.append(name)
        grouped = self._table.group_by(keys, use_threads=False).aggregate(requests)
        # Arrow names each result "<column>_<function>" beside the keys; they come in the requests' order.
        results = [index for index, column in enumerate(grouped.column_names) if column not in keys]
        result = pa.table({**{key: grouped[key] for key in keys},
                           **{name: grouped.columns[index] for index, name in zip(results, names)}})
        return SFrame._from_table(_supported(result))

    def apply(self, fn, dtype=None):
        """`fn` of every row (a dict of column name → value), as an SArray."""
        if not callable(fn):
            raise ToolkitTypeError("apply needs a function")
        return SArray([fn(row) for row in self], dtype=dtype)

    def append(self, other):
        if not isinstance(other, SFrame):
            raise ToolkitTypeError("append takes an SFrame")
        if self.num_columns() == 0:
            return other
        if other.column_names() != self.column_names() or other.column_types() != self.column_types():
            raise ToolkitValueError(f"append: the columns differ ({self.column_names()} against {other.column_names()}, "
                                    "with their types)")
        return SFrame._from_table(pa.concat_tables([self._table, other._table.cast(self._table.schema)]))

    def unique(self):
        """The distinct rows (the first of each, in row order)."""
        if self.num_columns() == 0:
            return self
        grouped = self._table.group_by(self.column_names(), use_threads=False).aggregate([])
        return SFrame._from_table(grouped.select(self.column_names()))

    def dropna(self, columns=None, how="any"):
        names = self.column_names() if columns is None else ([columns] if isinstance(columns, str) else list(columns))
        valid = [pc.is_valid(self._column(name)) for name in names]
        if not valid:
            return self
        keep = valid[0]
        for other in valid[1:]:
            keep = pc.and_(keep, other) if how == "any" else pc.or_(keep, other)
        return SFrame._from_table(self._table.filter(keep))

    # Showing

    def _rows_text(self, num_rows, max_column_width=30):
        names = self.column_names()
        rows = [[_cell(value, max_column_width) for value in row.values()] for row in self.head(num_rows)]
        widths = [max([len(name)] + [len(row[index]) for row in rows]) for index, name in enumerate(names)]
        rule = "+" + "+".join("-" * (width + 2) for width in widths) + "+"
        lines = [rule, "| " + " | ".join(name.ljust(width) for name, width in zip(names, widths)) + " |", rule]
        lines += ["| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths)) + " |" for row in rows]
        lines.append(rule)
        if self.num_rows() > num_rows:
            lines.append(f"[{self.num_rows()} rows x {self.num_columns()} columns]")
            lines.append("Note: Only the head of the SFrame is printed.")
        else:
            lines.append(f"[{self.num_rows()} rows x {self.num_columns()} columns]")
        return "\n".join(lines)

    def print_rows(self, num_rows=10, num_columns=40, max_column_width=30, max_row_width=80, output_file=None):
        frame = self.select_columns(self.column_names()[:num_columns]) if self.num_columns() > num_columns else self
        print(frame._rows_text(num_rows, max_column_width), file=output_file)

    def __repr__(self):
        types = ", ".join(f"{name}: {'array' if kind.__name__ == 'array' else kind.__name__}"
                          for name, kind in zip(self.column_names(), self.column_types()))
        return f"Columns:\n\t{types}\n\nRows: {self.num_rows()}\n\nData:\n{self._rows_text(10)}"

    __str__ = __repr__

    def _repr_html_(self, num_rows=10):
        head = "".join(f"<th>{html.escape(name)}</th>" for name in self.column_names())
        body = "".join("<tr>" + "".join(f"<td>{_html_cell(value)}</td>" for value in row.values()) + "</tr>"
                       for row in self.head(num_rows))
        more = f"<p>{self.num_rows()} rows × {self.num_columns()} columns</p>"
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"

    def explore(self, title=None):
        """The table as an HTML page: shown inline in Jupyter, else written to a file whose path is printed."""
        try:
            from IPython import get_ipython
            from IPython.display import HTML, display

            if get_ipython() is not None:
                display(HTML(self._repr_html_(num_rows=1000)))
                return None
        except ImportError:
            pass
        descriptor, path = tempfile.mkstemp(prefix="sframe-", suffix=".html")
        with os.fdopen(descriptor, "w", encoding="utf-8") as page:
            page.write(f"<!doctype html><meta charset='utf-8'><title>{html.escape(title or 'SFrame')}</title>"
                       + self._repr_html_(num_rows=1000))
        print(f"SFrame written to {path}")
        return path


def load_sframe(filename):
    """A saved SFrame (a folder written by `SFrame.save`)."""
    return SFrame(filename)


def _load(path):
    meta_path = os.path.join(path, "sframe.json")
    if not os.path.isfile(meta_path):
        raise ToolkitValueError(f"'{path}' is not a saved SFrame (no sframe.json); Turi Create's own SFrame folders are not read")
    try:
        with open(meta_path, encoding="utf-8") as meta:
            description = json.load(meta)
        if description.get("format") != _FORMAT or int(description.get("version", 0)) > _VERSION:
            raise ToolkitValueError(f"'{path}': sframe.json describes format {description.get('format')!r} "
                                    f"version {description.get('version')!r}, not {_FORMAT} {_VERSION}")
        table = pq.read_table(os.path.join(path, "data.parquet"), memory_map=True)
    except (OSError, ValueError, pa.ArrowException) as error:
        if isinstance(error, ToolkitError):
            raise
        raise ToolkitValueError(f"'{path}' is not a readable saved SFrame: {error}") from None
    if table.num_rows != description.get("rows", table.num_rows):
        raise ToolkitValueError(f"'{path}': data.parquet holds {table.num_rows} rows, sframe.json says {description.get('rows')}")
    return _supported(table)


def _supported(table):
    """`table` with every column of a type SArray holds (booleans as int, other integers as int64)."""
    columns = {}
    for name, column in zip(table.column_names, table.columns):
        kind = _python_type(column.type)
        columns[name] = column if kind in (list, dict) or column.type == _arrow_type(kind) else column.cast(_arrow_type(kind))
    return pa.table(columns) if columns else table


def _csv_column(column):
    if pa.types.is_map(column.type):
        return pa.array([None if row is None else "{" + ", ".join(f"{k!r}: {v!r}" for k, v in row) + "}" for row in column.to_pylist()],
                        type=pa.string())
    if pa.types.is_list(column.type):
        return pa.array([None if row is None else "[" + " ".join(repr(v) for v in row) + "]" for row in column.to_pylist()],
                        type=pa.string())
    return column


def _html_cell(value):
    """A table cell: pictures as thumbnails of their own bytes, everything else as escaped text."""
    if hasattr(value, "pixel_data"):
        kind = "png" if value._format == "PNG" else "jpeg"
        return f'<img src="data:image/{kind};base64,{base64.b64encode(value._bytes).decode()}" style="max-height:64px">'
    return html.escape(_cell(value, 60))


def _cell(value, width):
    if hasattr(value, "pixel_data"):
        text = f"Image ({value.path})" if value.path else "Image"
        return text if len(text) <= width else "Image (..." + text[-(width - 11):] + ")"
    text = "None" if value is None else (("[" + ", ".join(f"{v:g}" for v in value) + "]") if hasattr(value, "typecode") else str(value))
    return text if len(text) <= width else text[: width - 3] + "..."
