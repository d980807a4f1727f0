"""Build of linsolve._core: finds liblinsolve, then compiles csrc/*.c.

Where liblinsolve comes from, first match wins:
  LINSOLVE_BUILD_DIR  a CMake build tree of this repository (lib/ in it,
                      the header from the source tree it was configured from)
  LINSOLVE_PREFIX     an install prefix (include/ and lib*/ under it)
  pkg-config          `pkg-config linsolve` (set PKG_CONFIG_PATH for a
                      prefix pkg-config does not search)
The extension records the library's folder as its run path, so it loads
without LD_LIBRARY_PATH. LINSOLVE_WERROR=1 makes warnings errors.
"""
import glob
import os
import re
import shlex
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def _fail(why):
    raise SystemExit(
        "linsolve: cannot find liblinsolve (" + why + ").\n"
        "  Build it (cmake -S . -B build && cmake --build build) and set\n"
        "  LINSOLVE_BUILD_DIR=/path/to/build, or install it and set LINSOLVE_PREFIX=/prefix\n"
        "  or PKG_CONFIG_PATH=/prefix/lib/pkgconfig.")


def _source_dir_of(build):
    """The source tree a CMake build tree was configured from."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(r"linsolve_SOURCE_DIR:STATIC=(.*)", line.strip())
                if m:
                    return m.group(1)
    except OSError:
        pass
    return os.path.dirname(HERE)


def _has_lib(d):
    return bool(glob.glob(os.path.join(d, "liblinsolve.so*")) or
                glob.glob(os.path.join(d, "liblinsolve.dylib")))


def _from_build(build):
    build = os.path.abspath(build)
    lib = os.path.join(build, "lib")
    inc = os.path.join(_source_dir_of(build), "include")
    if not _has_lib(lib):
        _fail(f"no liblinsolve in {lib}")
    if not os.path.exists(os.path.join(inc, "linsolve.h")):
        _fail(f"no linsolve.h in {inc}")
    return [inc], [lib]


def _from_prefix(prefix):
    prefix = os.path.abspath(prefix)
    inc = os.path.join(prefix, "include")
    for sub in ("lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"):
        lib = os.path.join(prefix, sub)
        if _has_lib(lib):
            return [inc], [lib]
    _fail(f"no liblinsolve under {prefix}/lib*")


def _from_pkg_config():
    try:
        cflags = subprocess.check_output(["pkg-config", "--cflags", "linsolve"], text=True)
        libs = subprocess.check_output(["pkg-config", "--libs-only-L", "linsolve"], text=True)
    except (OSError, subprocess.CalledProcessError):
        _fail("LINSOLVE_BUILD_DIR and LINSOLVE_PREFIX are unset and pkg-config has no linsolve")
    incs = [f[2:] for f in shlex.split(cflags) if f.startswith("-I")]
    libdirs = [os.path.realpath(f[2:]) for f in shlex.split(libs) if f.startswith("-L")]
    return incs, libdirs


def find_linsolve():
    if os.environ.get("LINSOLVE_BUILD_DIR"):
        return _from_build(os.environ["LINSOLVE_BUILD_DIR"])
    if os.environ.get("LINSOLVE_PREFIX"):
        return _from_prefix(os.environ["LINSOLVE_PREFIX"])
    return _from_pkg_config()


incs, libdirs = find_linsolve()
warn = ["-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"]
if os.environ.get("LINSOLVE_WERROR") == "1":
    warn.append("-Werror")

core = Extension(
    "linsolve._core",
    sources=sorted(os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "csrc", "*.c"))),
    include_dirs=incs,
    library_dirs=libdirs,
    runtime_library_dirs=libdirs,
    libraries=["linsolve"],
    extra_compile_args=["-std=c11"] + warn,
    depends=glob.glob(os.path.join(HERE, "csrc", "*.h")),
)

class always_build_ext(build_ext):
    """Rebuild every time: an up-to-date object from an earlier build may
    carry another liblinsolve's run path (the sources did not change, the
    library's location did)."""

    def finalize_options(self):
        super().finalize_options()
        self.force = True


setup(ext_modules=[core], cmdclass={"build_ext": always_build_ext})
