"""Builds libOpenCoreMLC.so with SwiftPM and bundles it, with the system libraries it needs, in the wheel.

The Swift package is the parent of this folder (the folder holding Package.swift), or the
folder named by OPENCOREML_SOURCE. Setting OPENCOREML_LIBRARY=/path/libOpenCoreMLC.so skips the
build and bundles that file instead.

Bundling follows auditwheel's rules by hand: every library `ldd` resolves that is not one the
manylinux policy lets a wheel expect from the system is copied next to libOpenCoreMLC.so (whose
RUNPATH is $ORIGIN), everything is stripped, and the wheel is tagged manylinux_2_X for the
newest GLIBC_2.X symbol version any bundled file needs (read with `objdump -T`).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel

HERE = os.path.dirname(os.path.abspath(__file__))
LIBRARY = "libOpenCoreMLC.so"

# Libraries a manylinux wheel may take from the system (the manylinux policies' list, plus the
# dynamic loader); anything else `ldd` finds is bundled.
SYSTEM_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libutil.so.1",
    "libresolv.so.2", "libnsl.so.1", "libgcc_s.so.1", "libstdc++.so.6", "libz.so.1",
    "libcrypt.so.1", "libX11.so.6", "libXext.so.6", "libXrender.so.1", "libICE.so.6", "libSM.so.6",
    "libGL.so.1", "libgobject-2.0.so.0", "libgthread-2.0.so.0", "libglib-2.0.so.0",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "linux-vdso.so.1",
}


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


def needed_libraries(path: str) -> dict[str, str]:
    """soname -> resolved path of every library `ldd` lists for `path` (transitively)."""
    output = subprocess.run(["ldd", path], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in output.splitlines():
        match = re.match(r"\s*(\S+)\s+=>\s+(\S+)", line)
        if match:
            if match.group(2) == "not":
                raise SystemExit(f"opencoreml: {path} needs {match.group(1)}, which ldd cannot find")
            found[match.group(1)] = match.group(2)
    return found


def glibc_minor(path: str) -> int:
    """The X of the newest GLIBC_2.X symbol version `path` needs."""
    output = subprocess.run(["objdump", "-T", path], check=True, capture_output=True, text=True).stdout
    versions = [int(minor) for minor in re.findall(r"GLIBC_2\.(\d+)", output)]
    return max(versions, default=5)


def set_runpath_origin(path: str) -> None:
    """Points a bundled library's RUNPATH at its folder, when patchelf is available."""
    patchelf = shutil.which("patchelf")
    if patchelf:
        subprocess.run([patchelf, "--set-rpath", "$ORIGIN", path], check=True)


class BuildPyWithLibrary(build_py):
    """build_py, then the library and its non-system dependencies into opencoreml/_lib/."""

    def run(self):
        super().run()
        destination = os.path.join(self.build_lib, "opencoreml", "_lib")
        os.makedirs(destination, exist_ok=True)
        library = built_library()
        copies = [os.path.join(destination, LIBRARY)]
        shutil.copyfile(library, copies[0])
        for soname, path in sorted(needed_libraries(library).items()):
            if soname in SYSTEM_LIBRARIES:
                continue
            print(f"opencoreml: bundling {soname} from {path}", flush=True)
            copy = os.path.join(destination, soname)
            shutil.copyfile(path, copy)
            copies.append(copy)
        for copy in copies:
            os.chmod(copy, 0o755)
            subprocess.run(["strip", "--strip-unneeded", copy], check=True)
        for copy in copies[1:]:
            set_runpath_origin(copy)
        minor = max(glibc_minor(copy) for copy in copies)
        with open(os.path.join(self.build_lib, "opencoreml", "_lib", "PLATFORM"), "w") as file:
            file.write(f"manylinux_2_{minor}_{platform.machine()}\n")


class BdistWheelManylinux(bdist_wheel):
    """A py3-none-manylinux_2_X wheel: no CPython extension (ctypes), but a native library."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        build_py_command = self.get_finalized_command("build_py")
        marker = os.path.join(build_py_command.build_lib, "opencoreml", "_lib", "PLATFORM")
        if os.path.isfile(marker):
            with open(marker) as file:
                platform_tag = file.read().strip()
        else:
            platform_tag = f"linux_{platform.machine()}"
        return "py3", "none", platform_tag


class DistributionWithLibrary(Distribution):
    """Marks the distribution as platform-specific, so the package lands in platlib (the wheel's root)."""

    def has_ext_modules(self):
        return True


setup(distclass=DistributionWithLibrary,
      cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": BdistWheelManylinux})
