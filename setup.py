"""Builds the Python package through the project's CMake build.

``pip install . --no-build-isolation`` runs CMake on this source tree (in
$HAZE_BUILD_DIR, or build-python/), builds the library and the extension
module haze._ext, and installs the CMake component "python": the package's
.py files, the module and a copy of libhaze.so beside it (the module finds
it through $ORIGIN, so the installed package needs nothing from the build).
Set HAZE_CMAKE_ARGS to pass options, e.g. "-DHAZE_CUDA=OFF".
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.abspath(os.environ.get("HAZE_BUILD_DIR") or os.path.join(HERE, "build-python"))
        args = ["cmake", "-S", HERE, "-B", build, "-DHAZE_PYTHON=ON",
                f"-DPython3_EXECUTABLE={sys.executable}"]
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            args += ["-DCMAKE_BUILD_TYPE=Release", "-DHAZE_TESTS=OFF", "-DHAZE_BENCH=OFF"]
        args += shlex.split(os.environ.get("HAZE_CMAKE_ARGS", ""))
        subprocess.check_call(args)
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build, "--target", "haze_python", "-j", jobs])
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.check_call(["cmake", "--install", build, "--component", "python",
                                   "--prefix", tmp])
            dest = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
            os.makedirs(dest, exist_ok=True)
            for name in os.listdir(os.path.join(tmp, "haze")):
                if name.endswith(".so") or ".so." in name:
                    shutil.copy2(os.path.join(tmp, "haze", name), os.path.join(dest, name))

    def get_ext_filename(self, fullname):
        # the stable ABI: one module for every Python from 3.11 on
        return os.path.join(*fullname.split(".")) + ".abi3.so"


setup(
    packages=["haze"],
    package_dir={"haze": "python/haze"},
    ext_modules=[Extension("haze._ext", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
