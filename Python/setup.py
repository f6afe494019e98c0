"""Builds libOpenCoreMLC.so with SwiftPM and packages it in the wheel, repaired by the standard tools.

The Swift package is the parent of this folder (the folder holding Package.swift), or the
folder named by OPENCOREML_SOURCE. Setting OPENCOREML_LIBRARY=/path/libOpenCoreMLC.so skips the
build and packages that file instead (its resources, the built-in feature extractor, are taken
from the `OpenCoreML_OpenCreateML.resources` folder beside it).

The wheel is built as a plain `linux_<arch>` (or macOS) wheel holding opencoreml/_lib/libOpenCoreMLC.so
and opencoreml/_lib/resources/, then repaired: `auditwheel repair` on Linux (bundles the system
libraries a manylinux wheel may not expect, sets their RUNPATH, and gives the manylinux_2_X tag)
and `delocate-wheel` on macOS. Both are build requirements (pyproject.toml), so
`pip install ./Python` stays the one command.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = "libOpenCoreMLC.so" if sys.platform != "darwin" else "libOpenCoreMLC.dylib"
RESOURCES = "OpenCoreML_OpenCreateML.resources"


def swift_source() -> str:
    source = os.environ.get("OPENCOREML_SOURCE") or os.path.dirname(HERE)
    if not os.path.isfile(os.path.join(source, "Package.swift")):
        raise SystemExit(f"opencoreml: no Package.swift in {source!r}; set OPENCOREML_SOURCE to the "
                         "OpenCoreML repository, or OPENCOREML_LIBRARY to a built libOpenCoreMLC.so")
    return source


def built_library() -> str:
    """The path of libOpenCoreMLC.so: OPENCOREML_LIBRARY, or a fresh release build."""
    given = os.environ.get("OPENCOREML_LIBRARY")
    if given:
        if not os.path.isfile(given):
            raise SystemExit(f"opencoreml: OPENCOREML_LIBRARY={given!r} is not a file")
        return given
    source = swift_source()
    # A build folder of its own: the static-stdlib flag would otherwise make the next ordinary
    # `swift build -c release` (the README's demo) rebuild everything, and this one after it.
    scratch = os.path.join(source, ".build-static")
    command = ["swift", "build", "-c", "release", "--product", "OpenCoreMLC", "-Xswiftc", "-static-stdlib",
               "--scratch-path", scratch]
    print("opencoreml: running", " ".join(command), "in", source, flush=True)
    subprocess.run(command, cwd=source, check=True)
    path = os.path.join(scratch, "release", LIBRARY)
    if not os.path.isfile(path):
        raise SystemExit(f"opencoreml: the build finished but {path} does not exist")
    return path


class BuildPyWithLibrary(build_py):
    """build_py, then the library and its resources into opencoreml/_lib/."""

    def run(self):
        super().run()
        destination = os.path.join(self.build_lib, "opencoreml", "_lib")
        os.makedirs(destination, exist_ok=True)
        library = built_library()
        copy = os.path.join(destination, LIBRARY)
        shutil.copyfile(library, copy)
        os.chmod(copy, 0o755)
        resources = os.path.join(os.path.dirname(library), RESOURCES)
        if not os.path.isdir(resources):
            raise SystemExit(f"opencoreml: the library's resources are not beside it ({resources})")
        target = os.path.join(destination, "resources")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(resources, target)


class BdistWheelRepaired(bdist_wheel):
    """A platform wheel (ctypes, no CPython extension), repaired by auditwheel / delocate."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, platform_tag = super().get_tag()
        return "py3", "none", platform_tag

    def run(self):
        before = set(glob.glob(os.path.join(self.dist_dir, "*.whl")))
        super().run()
        built = sorted(set(glob.glob(os.path.join(self.dist_dir, "*.whl"))) - before)
        for wheel in built:
            repaired = tempfile.mkdtemp(prefix="opencoreml-repair-")
            try:
                if sys.platform == "darwin":
                    command = [sys.executable, "-m", "delocate.cmd.delocate_wheel", "-w", repaired, wheel]
                else:
                    command = [sys.executable, "-m", "auditwheel", "repair", "-w", repaired, wheel]
                print("opencoreml: running", " ".join(command), flush=True)
                subprocess.run(command, check=True)
                results = glob.glob(os.path.join(repaired, "*.whl"))
                if len(results) != 1:
                    raise SystemExit(f"opencoreml: the repair made {len(results)} wheels, expected 1")
                os.unlink(wheel)
                shutil.move(results[0], os.path.join(self.dist_dir, os.path.basename(results[0])))
            finally:
                shutil.rmtree(repaired, ignore_errors=True)


class DistributionWithLibrary(Distribution):
    """Marks the distribution as platform-specific, so the package lands in platlib (the wheel's root)."""

    def has_ext_modules(self):
        return True


setup(distclass=DistributionWithLibrary,
      cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": BdistWheelRepaired})
