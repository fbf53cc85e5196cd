"""Reading and writing tables: CSV and NumPy ``.npy`` through haze's readers.

These are the readers the command line uses: exact, locale-free numbers,
multi-threaded CSV parsing, ``.npy`` read straight into the array, and errors
that name the file, line and column.
"""

from dataclasses import dataclass, field

import numpy as np

from . import _ext
from ._core import _as_matrix, _ctx, _fspath

__all__ = ["Table", "read_table", "write_table"]


@dataclass
class Table:
    """A table read from a file: ``data`` (rows x columns, float64 or, for a
    float32 ``.npy`` read with ``keep_float32``, float32), ``columns`` (the
    header's names, or None) and ``labels`` (the text column's values, or
    None)."""

    data: np.ndarray
    columns: list = None
    labels: list = None
    label_column: int = -1
    path: str = field(default=None, repr=False)

    def __repr__(self):
        r, c = self.data.shape
        return (f"haze.Table({r} x {c} {self.data.dtype}, columns={self.columns!r}"
                + (f", labels: {len(self.labels)}" if self.labels is not None else "") + ")")


def read_table(path, header=None, text_column=None, allow_nonfinite=False,
               keep_float32=False, ctx=None, backend=None):
    """Reads a CSV or ``.npy`` file.

    Parameters
    ----------
    header : bool or None
        Whether the first CSV line names the columns; None detects it.
    text_column : str or int or None
        A column (name or 0-based index) that may hold text such as class
        labels; its values come back in ``Table.labels``.
    allow_nonfinite : bool
        Accept NaN and infinities (an error by default).
    keep_float32 : bool
        A float32 ``.npy`` file stays float32 (no widening); other files are
        read as float64.
    """
    c = _ctx(ctx, backend)
    h = -1 if header is None else (1 if header else 0)
    tc = None if text_column is None else str(text_column)
    path = _fspath(path)
    buf, prec, rows, cols, names, text, tcol = _ext.table_read(
        c._h, path, h, tc, bool(allow_nonfinite), bool(keep_float32))
    dtype = np.float32 if prec == _ext.F32 else np.float64
    data = np.frombuffer(buf, dtype=dtype).reshape(rows, cols)
    return Table(data, names, text, tcol, path)


def write_table(path, data, columns=None, ctx=None, backend=None):
    """Writes a 2-D array as CSV (shortest round-trip numbers, a decimal point
    whatever the locale), with a header when ``columns`` is given. The file
    is replaced only once it is complete."""
    c = _ctx(ctx, backend)
    a = _as_matrix(data, (np.float64,), "data")
    if columns is not None:
        columns = [str(n) for n in columns]
    _ext.table_write(c._h, _fspath(path), a, columns)
