"""Reading and writing tables: CSV and NumPy ``.npy`` through haze's readers.

These are the readers the command line uses: exact, locale-free numbers,
multi-threaded CSV parsing, ``.npy`` read straight into the array, and errors
that name the file, line and column.
"""

import threading
from dataclasses import dataclass, field

import numpy as np

from . import _ext
from ._core import _as_matrix, _ctx, _fspath

__all__ = ["Table", "read_table", "write_table", "read_table_blocks", "TableWriter"]


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


def _text_column(text_column):
    if text_column is None:
        return None
    if isinstance(text_column, bool) or not isinstance(text_column, (str, int, np.integer)):
        raise TypeError("text_column must be one column: a name (str) or a 0-based number "
                        f"(int), got {type(text_column).__name__}")
    return str(text_column)


def _column_list(v, what):
    """A list of columns as the reader takes it: a str passes as it is (the
    tool's syntax: "a,b,2-5"), a name or number or a sequence of them is
    joined with commas."""
    if v is None or isinstance(v, str):
        return v
    items = [v] if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else list(v)
    out = []
    for c in items:
        if isinstance(c, str):
            if "," in c:
                raise ValueError(f"{what}: a name with a comma cannot be given ({c!r}); give "
                                 "the column's 0-based number")
            out.append(c)
        elif isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if c < 0:
                raise ValueError(f"{what}: column numbers count from 0, got {int(c)}")
            out.append(str(int(c)))
        else:
            raise TypeError(f"{what}: column names (str) or 0-based numbers (int), got "
                            f"{type(c).__name__}")
    return ",".join(out)


def read_table(path, header=None, text_column=None, allow_nonfinite=False,
               keep_float32=False, columns=None, drop=None, missing=False, ctx=None,
               backend=None):
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
    columns : list of str or int, or str, or None
        The columns to keep, in this order (header names, 0-based numbers;
        a str is the tool's list, "a,b,2-5"); None keeps every column.
    drop : list of str or int, or str, or None
        Columns to leave out (ids, labels, dates): they are not read as
        numbers, so they may hold text.
    missing : bool
        Read missing values -- empty fields, pandas' markers (NA, N/A, NaN,
        null, None, ...) and '?' -- as NaN instead of refusing them (drop
        them with ``data[~np.isnan(data).any(axis=1)]``).
    """
    c = _ctx(ctx, backend)
    h = -1 if header is None else (1 if header else 0)
    tc = _text_column(text_column)
    path = _fspath(path)
    return _table(_ext.table_read(c._h, path, h, tc, bool(allow_nonfinite),
                                  bool(keep_float32), _column_list(columns, "columns"),
                                  _column_list(drop, "drop"), bool(missing)), path)


def _table(res, path):
    buf, prec, rows, cols, names, text, tcol = res
    dtype = np.float32 if prec == _ext.F32 else np.float64
    data = np.frombuffer(buf, dtype=dtype).reshape(rows, cols)
    return Table(data, names, text, tcol, path)


def read_table_blocks(path, block_bytes=None, header=None, text_column=None,
                      allow_nonfinite=False, columns=None, drop=None, missing=False, ctx=None,
                      backend=None):
    """Reads a CSV file in blocks of rows: yields a :class:`Table` for each
    block of about ``block_bytes`` of text (None: 64 MiB), whole lines, in
    the file's order, so that a file larger than memory can be worked
    through. The values, column names, labels and errors are those of
    :func:`read_table` (an error names the file's own line, and comes when
    its block is read). A ``.npy`` file, standard input or a pipe comes
    whole, as one block. The other parameters are :func:`read_table`'s."""
    c = _ctx(ctx, backend)
    h = -1 if header is None else (1 if header else 0)
    tc = _text_column(text_column)
    path = _fspath(path)
    r = _ext.table_reader_open(c._h, path, h, tc, bool(allow_nonfinite),
                               int(block_bytes or 0), _column_list(columns, "columns"),
                               _column_list(drop, "drop"), bool(missing))
    while True:
        res = _ext.table_reader_next(c._h, r)
        if res is None:
            return
        yield _table(res, path)


class TableWriter:
    """A CSV file written in blocks of rows: the bytes :func:`write_table`
    writes for all the rows at once. Nothing appears under ``path`` before
    :meth:`commit`; :meth:`abort` (or leaving a ``with`` block by an
    exception, or dropping the writer uncommitted) leaves no file::

        with haze.TableWriter("out.csv", columns=["y"]) as w:
            for block in haze.read_table_blocks("in.csv"):
                w.append(f.eval(block.data))
    """

    def __init__(self, path, columns=None, ncols=None, ctx=None, backend=None):
        self._c = _ctx(ctx, backend)
        if columns is not None:
            columns = [str(n) for n in columns]
            ncols = len(columns) if ncols is None else ncols
        if ncols is None:
            raise ValueError("TableWriter needs columns or ncols")
        self.ncols = int(ncols)
        self.path = _fspath(path)
        # one call at a time (the library's writer is not shared between
        # threads; the calls release the GIL)
        self._lock = threading.Lock()
        self._w = _ext.table_writer_open(self._c._h, self.path, self.ncols, columns)

    def append(self, data):
        """Appends the rows of a 2-D array (or a 1-D array for one column)."""
        a = _as_matrix(data, (np.float64,), "data", columns=self.ncols)
        with self._lock:
            _ext.table_writer_append(self._c._h, self._w, a)

    def commit(self):
        """Puts the file in place (atomically)."""
        with self._lock:
            _ext.table_writer_commit(self._c._h, self._w)

    def abort(self):
        """Drops what was written; nothing is left under the path."""
        with self._lock:
            _ext.table_writer_abort(self._w)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.commit()
        else:
            self.abort()
        return False


def write_table(path, data, columns=None, ctx=None, backend=None):
    """Writes a 2-D array as CSV (each number as printf's ``%.17g``, which
    reads back to the same bits; a decimal point whatever the locale), with
    a header when ``columns`` is given. The file is replaced only once it is
    complete."""
    c = _ctx(ctx, backend)
    a = _as_matrix(data, (np.float64,), "data")
    if columns is not None:
        columns = [str(n) for n in columns]
    _ext.table_write(c._h, _fspath(path), a, columns)
