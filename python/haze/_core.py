"""Contexts, errors and array conversion: what every part of the package uses.

A :class:`Context` chooses where computations run (``backend="auto"``,
``"cpu"`` or ``"cuda"``), on which GPU and with how many CPU threads. Every
function and estimator of the package takes ``ctx=`` or ``backend=``; without
either it uses the process's default context for ``"auto"`` (the GPU when
this build has CUDA and a device answers, the CPU otherwise; the environment
variable ``HAZE_BACKEND`` decides ``"auto"`` as it does for the C library).

A context may be shared by threads: haze keeps each thread's last error
apart, and every long call releases the GIL, so threads that share one run
at the same time.
"""

import os
import threading

import numpy as np

from . import _ext

__all__ = [
    "HazeError", "InvalidArgumentError", "ParseError", "HazeIOError", "CudaError",
    "UnsupportedError", "NoDeviceError", "DomainError", "RangeError", "MismatchError",
    "VersionError", "InternalError", "Context", "default_context", "build_info",
    "device_info",
]


class HazeError(Exception):
    """An error reported by the haze library.

    ``str(err)`` is the library's message (it names the file, line and column
    where a file is involved); ``err.status`` is the C status code and
    ``err.code`` its name (``"ERR_PARSE"``...).
    """

    def __init__(self, message, status=-12):
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = _ext.status_name(status)[0]

    def __str__(self):
        return self.message


class InvalidArgumentError(HazeError, ValueError):
    """An argument outside what the function accepts (HAZE_ERR_INVALID)."""


class ParseError(HazeError, ValueError):
    """A file or text that does not follow its format (HAZE_ERR_PARSE)."""


class HazeIOError(HazeError, OSError):
    """A file that cannot be read or written (HAZE_ERR_IO)."""

    def __init__(self, message, status=-3):
        HazeError.__init__(self, message, status)


class OutOfMemoryError(HazeError, MemoryError):
    """Host or device memory ran out (HAZE_ERR_NOMEM)."""


class CudaError(HazeError, RuntimeError):
    """The CUDA runtime failed (HAZE_ERR_CUDA)."""


class UnsupportedError(HazeError, NotImplementedError):
    """An operation this build or backend does not offer (HAZE_ERR_UNSUPPORTED)."""


class NoDeviceError(HazeError, RuntimeError):
    """``backend="cuda"`` where no CUDA device answers (HAZE_ERR_NODEVICE)."""


class DomainError(HazeError, ValueError):
    """An argument outside the domain of the operation (HAZE_ERR_DOMAIN)."""


class RangeError(HazeError, OverflowError):
    """A result out of range (HAZE_ERR_RANGE)."""


class MismatchError(HazeError, ValueError):
    """Operands that do not match in shape, encoding or size (HAZE_ERR_MISMATCH)."""


class VersionError(HazeError, ValueError):
    """A file of a version this library does not read (HAZE_ERR_VERSION)."""


class InternalError(HazeError, RuntimeError):
    """A bug in haze (HAZE_ERR_INTERNAL): please report it."""


_ext._register_errors({
    -1: InvalidArgumentError, -2: OutOfMemoryError, -3: HazeIOError, -4: ParseError,
    -5: CudaError, -6: UnsupportedError, -7: NoDeviceError, -8: DomainError,
    -9: RangeError, -10: MismatchError, -11: VersionError, -12: InternalError,
})


def build_info():
    """What this build of haze holds: ``{"version", "cuda", "openmp", "devices"}``."""
    return _ext.build_info()


def _device_list(devices):
    """Context(devices=...) as a tuple of ids, or None for one device."""
    if devices is None:
        return None
    if isinstance(devices, str):
        if devices.strip().lower() != "all":
            raise ValueError(f"devices={devices!r}: expected 'all', a count or a list of ids")
        n = _ext.build_info()["devices"]
        if n < 1:
            raise NoDeviceError("devices='all': this host has no CUDA device", -7)
        return tuple(range(n))
    if isinstance(devices, bool):
        raise TypeError("devices must be 'all', a count or a list of device ids")
    if isinstance(devices, int):
        if devices < 1:
            raise ValueError(f"devices={devices}: expected at least 1")
        return tuple(range(devices))
    return tuple(int(d) for d in devices)


class Context:
    """Where haze computes.

    Parameters
    ----------
    backend : {"auto", "cpu", "cuda"}
        ``"auto"`` takes the GPU when this build has CUDA and a device answers.
        ``"cuda"`` where there is none raises :class:`NoDeviceError`; haze never
        falls back silently.
    device : int
        CUDA device id; -1 takes ``HAZE_DEVICE`` if set, else 0.
    threads : int
        CPU threads for the CPU backend; 0 takes all (``HAZE_THREADS`` or
        OpenMP's default).
    memory_limit : int
        Bytes haze may allocate on the device (0: no limit); with several
        devices, on each of them.
    devices : None, "all", int or sequence of int
        Several GPUs of this host (the C API's ``haze_ctx_options.devices``):
        ``"all"``, the first ``n``, or a list of device ids such as
        ``[0, 2]``. Fuzzy c-means fits over them and FIS batch evaluation
        shares its rows among them, with one GPU's results; everything else
        runs on the first. A device the host lacks raises
        :class:`NoDeviceError`; one listed twice, or a set with
        ``backend="cpu"``, :class:`InvalidArgumentError`.
    """

    def __init__(self, backend="auto", device=-1, threads=0, memory_limit=0, devices=None):
        if isinstance(backend, Context):
            raise TypeError("backend must be a string; pass a Context as ctx=")
        ids = _device_list(devices)
        self._h = _ext.ctx_new(str(backend), int(device), int(threads), int(memory_limit), ids)

    @property
    def devices(self):
        """The CUDA devices this context runs on, as a tuple (empty on the CPU)."""
        return _ext.ctx_devices(self._h)

    @property
    def backend(self):
        """The backend in use: ``"cpu"`` or ``"cuda"``."""
        return _ext.ctx_info(self._h)[0]

    @property
    def device(self):
        """The CUDA device in use (meaningful with the CUDA backend)."""
        return _ext.ctx_info(self._h)[1]

    @property
    def threads(self):
        """CPU threads used by CPU kernels."""
        return _ext.ctx_info(self._h)[2]

    @threads.setter
    def threads(self, n):
        _ext.ctx_set_threads(self._h, int(n))

    @property
    def memory_limit(self):
        """Bytes haze may allocate on the device (0: no limit)."""
        return _ext.ctx_info(self._h)[3]

    @memory_limit.setter
    def memory_limit(self, n):
        _ext.ctx_set_memory_limit(self._h, int(n))

    def device_info(self, device=None):
        """Properties of a CUDA device (this context's by default) as a dict."""
        return _ext.device_info(self._h, self.device if device is None else int(device))

    # A context is a shared handle: copies (sklearn.base.clone deep-copies an
    # estimator's parameters) are the same context.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        b, d, t, _ = _ext.ctx_info(self._h)
        devs = self.devices
        where = (f"devices={list(devs)}" if len(devs) > 1 else f"device={d}") if b == "cuda" else f"threads={t}"
        return f"haze.Context(backend={b!r}, {where})"


_defaults = {}
_defaults_lock = threading.Lock()


def default_context(backend="auto"):
    """The process's shared context for ``backend`` (made on first use)."""
    key = str(backend).lower()
    if key == "gpu":
        key = "cuda"
    with _defaults_lock:
        ctx = _defaults.get(key)
        if ctx is None:
            ctx = Context(key)
            _defaults[key] = ctx
        return ctx


def device_info(device=0):
    """Properties of CUDA device ``device`` as a dict (NoDeviceError without one)."""
    return default_context("cuda").device_info(device)


def _ctx(ctx=None, backend=None):
    """The context a call runs on: ``ctx`` if given, else the default for
    ``backend`` ("auto" when None)."""
    if ctx is not None:
        if not isinstance(ctx, Context):
            raise TypeError(f"ctx must be a haze.Context, not {type(ctx).__name__}")
        if backend is not None:
            raise TypeError("give ctx= or backend=, not both")
        return ctx
    return default_context("auto" if backend is None else backend)


def _as_matrix(x, dtypes=(np.float64,), name="X", columns=None, owner=None):
    """``x`` as a C-ordered 2-D array of one of ``dtypes`` (the first unless
    x already has another of them): no copy when it already is one, one copy
    otherwise. A 1-D ``x`` is one row per element when ``columns`` is 1 and
    one row otherwise (a single sample)."""
    a = np.asarray(x)
    if a.dtype not in dtypes:
        if a.dtype.kind not in "fiub":
            raise TypeError(f"{name} must hold numbers, not {a.dtype}")
        a = a.astype(dtypes[0])
    if a.ndim == 1:
        a = a.reshape(-1, 1) if columns == 1 else a.reshape(1, -1)
    elif a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (rows x columns), got {a.ndim}-D")
    if columns is not None and a.shape[1] != columns:
        if owner:  # scikit-learn's wording, which its estimator checks look for
            raise ValueError(f"{name} has {a.shape[1]} features, but {owner} is expecting "
                             f"{columns} features as input")
        raise ValueError(f"{name} has {a.shape[1]} columns where {columns} are expected")
    return np.ascontiguousarray(a)


def _fspath(path):
    return os.fspath(path)
