"""Shared fixtures: the backends to test (the CPU always, CUDA where a device
answers), the test data folder and the command-line tool."""

import os

import pytest

import haze

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

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
