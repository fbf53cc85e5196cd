"""haze: certified fuzzy computing on GPUs, with a CPU path that runs everywhere.

The package binds the haze C library:

* :mod:`haze.fuzzy` - certified interval and fuzzy arithmetic (alpha-cuts in
  lower-upper, midpoint-radius and midpoint-increment encodings);
* :mod:`haze.fis` - Mamdani and Sugeno inference from MATLAB ``.fis`` and
  fuzzylite ``.fll`` files, or built in code;
* :mod:`haze.edge` - the FIRE fuzzy edge detector;
* :mod:`haze.cluster` - fuzzy c-means and Gustafson-Kessel, as a
  scikit-learn-style estimator;
* :mod:`haze.fnn` - the SONFIN neuro-fuzzy network, as an estimator;
* :mod:`haze.prec` - the static rounding-error analyser (Gappa and FPCore);
* :mod:`haze.plot` - matplotlib pictures (optional: needs matplotlib).

Every computation runs on a :class:`Context` (``backend="auto"``, ``"cpu"``
or ``"cuda"``); see :func:`default_context`.
"""

from . import _ext
from ._core import (Context, CudaError, DomainError, HazeError, HazeIOError, InternalError,
                    InvalidArgumentError, MismatchError, NoDeviceError, OutOfMemoryError,
                    ParseError, RangeError, UnsupportedError, VersionError, build_info,
                    default_context, device_info)
from ._demo import demo
from .io import Table, TableWriter, read_table, read_table_blocks, write_table
from . import cluster, edge, fis, fnn, fuzzy, prec  # noqa: E402 (the submodules)
from .cluster import FCM, DegenerateClusteringWarning, cmeans, cmeans_predict
from .edge import EdgeDetector, edges, load_image, save_image
from .fis import FIS
from .fnn import SONFINClassifier, SONFINRegressor
from .fuzzy import (FuzzyArray, FuzzyNumber, FuzzyOverflowWarning, axpy, crisp, fuzzy_options,
                    gauss, interval, trap, tri)
from .prec import PrecGoal, PrecResult, PrecScript, analyse, analyze

__version__ = _ext.build_info()["version"]

__all__ = [
    "Context", "default_context", "build_info", "device_info", "HazeError",
    "InvalidArgumentError", "ParseError", "HazeIOError", "OutOfMemoryError", "CudaError",
    "UnsupportedError", "NoDeviceError", "DomainError", "RangeError", "MismatchError",
    "VersionError", "InternalError", "demo", "Table", "read_table", "write_table",
    "read_table_blocks", "TableWriter", "__version__",
    "FCM", "DegenerateClusteringWarning", "cmeans", "cmeans_predict", "EdgeDetector", "edges",
    "load_image", "save_image", "FIS", "SONFINClassifier", "SONFINRegressor", "FuzzyArray",
    "FuzzyNumber", "FuzzyOverflowWarning", "axpy", "crisp", "fuzzy_options", "gauss", "interval",
    "trap", "tri", "PrecGoal", "PrecResult", "PrecScript", "analyse", "analyze",
]
