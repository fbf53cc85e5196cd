"""Shared fixtures: the backends to test (the CPU always, CUDA where a device
answers), the test data folder and the command-line tool."""

import os
import shutil

import pytest

import haze

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _cli_path():
    """The haze command line: HAZE_CLI (CTest sets it), else build/haze of the
    source tree, else the one on PATH; None when there is none."""
    p = os.environ.get("HAZE_CLI")
    if p and os.path.exists(p):
        return p
    for cand in (os.path.join(ROOT, "build", "haze"), shutil.which("haze")):
        if cand and os.path.exists(cand):
            return cand
    return None


# the tests that compare with the command line import these
CLI = _cli_path()
needs_cli = pytest.mark.skipif(CLI is None, reason="the haze command line is not built")

BACKENDS = ["cpu"] + (["cuda"] if haze.build_info()["cuda"] and haze.build_info()["devices"] > 0
                      else [])


@pytest.fixture(params=BACKENDS)
def backend(request):
    """Each backend this machine can run ("cpu", and "cuda" with a GPU)."""
    return request.param


@pytest.fixture
def ctx(backend):
    return haze.Context(backend)


@pytest.fixture(scope="session")
def data_dir():
    """tests/data of the source tree."""
    return os.environ.get("HAZE_TEST_DATA", os.path.join(ROOT, "tests", "data"))


@pytest.fixture(scope="session")
def examples_dir():
    return os.path.join(ROOT, "examples")
