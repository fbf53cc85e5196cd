"""Every Python block of README.md runs as written: each in a scratch folder
that sees the repository's data/, examples/ and tests/ (the README's
commands run from the repository's root), with exit status 0."""

import os
import re
import subprocess
import sys

import pytest

import haze
from conftest import ROOT

with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
    BLOCKS = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)


def test_readme_has_python_twins():
    assert len(BLOCKS) >= 6  # fuzzy, fis/edge, fcm, fnn, prec, pictures


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_runs(i, tmp_path):
    code = BLOCKS[i]
    if "plot" in code or "savefig" in code:
        pytest.importorskip("matplotlib")
    for d in ("data", "examples", "tests"):
        os.symlink(os.path.join(ROOT, d), tmp_path / d)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(haze.__file__)))
    path = os.pathsep.join(p for p in (pkg, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=path)
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, f"README block {i}:\n{code}\n{r.stdout}\n{r.stderr}"
