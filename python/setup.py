"""Builds libhopgemm.so with the repository's Makefile (nvcc needed) and ships
it inside the package. HOPGEMM_LIBRARY=/path/to/libhopgemm.so.0 ships that
one instead. An editable install ships nothing: the package then loads the
repository's build/libhopgemm.so (run `make` there first)."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        if self.editable_mode:
            return
        lib = os.environ.get("HOPGEMM_LIBRARY")
        if not lib:
            jobs = str(os.cpu_count() or 2)
            subprocess.check_call(["make", "-C", REPO, "-j" + jobs, "build/libhopgemm.so"])
            lib = os.path.join(REPO, "build", "libhopgemm.so")
        dest = os.path.join(self.build_lib, "hopgemm", "libhopgemm.so")
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.realpath(lib), dest)


setup(cmdclass={"build_py": BuildWithLibrary})
