"""CTest's entry to the Python tests: pytest over this folder, importing the
package staged in the build tree (PYTHONPATH). Exits 77 (skipped) where
pytest or NumPy is missing."""

import os
import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print(f"skipped: {e}")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
args = ["-q", "-p", "no:cacheprovider", here] + sys.argv[1:]
sys.exit(pytest.main(args))
