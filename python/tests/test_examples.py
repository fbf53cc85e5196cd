"""Every script under examples/python/ runs as written (a notebook-style
example per capability), from a scratch folder, with exit status 0."""

import glob
import os
import subprocess
import sys

import pytest

from conftest import ROOT

EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "python", "*.py")))


@pytest.mark.parametrize("script", EXAMPLES, ids=[os.path.basename(p) for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", HAZE_EXAMPLES_DIR=os.path.join(ROOT, "examples"))
    r = subprocess.run([sys.executable, script], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, f"{script} failed:\n{r.stdout}\n{r.stderr}"
