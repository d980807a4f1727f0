"""linsolve.show_config(): the libraries behind the package and where each
was loaded from, as numpy.show_config() tells of NumPy's.

Importing this module (linsolve's __init__ does) opens the CUDA libraries of
NVIDIA's wheels when they are installed (_cuda_libs.preload), before any
context can load the CUDA plugin.
"""
import os
import sys

from . import _cuda_libs

_cuda_libs.preload()

# The shared objects worth naming, by the start of their file name
# (libscipy_openblas and libls_openblas_names: the manylinux_2_28 wheel's
# OpenBLAS and its plain LAPACK names, see cmake/wheel-zig.sh).
_BLAS = ("libopenblas", "libscipy_openblas", "libls_openblas", "libblas", "liblapack",
         "libmkl", "libflexiblas", "libblis", "libumfpack", "libgomp", "libomp", "libiomp5",
         "libgfortran")
_OPENMP = ("libgomp", "libomp", "libiomp5")
_CUDA = ("libcuda.so", "libcudart", "libcublas", "libcusolver", "libcusparse", "libnvJitLink",
         "libcudss", "libnvrtc")


def _mapped():
    """The files mapped into this process (Linux's /proc/self/maps), in order."""
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) == 6 and parts[5].startswith("/"):
                    p = parts[5].strip()
                    if p not in paths:
                        paths.append(p)
    except OSError:
        pass
    return paths


def _named(paths, prefixes):
    return [p for p in paths if os.path.basename(p).startswith(prefixes)]


def _wheel_versions():
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # Python 3.7
        return {}
    out = {}
    for name in _cuda_libs.WHEELS:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def _sparse_direct(liblinsolve):
    """Whether liblinsolve was built with UMFPACK (a binary wheel may lack it)."""
    if not liblinsolve:
        return "unknown: liblinsolve not found among the loaded files"
    import ctypes
    try:
        have = ctypes.CDLL(liblinsolve).ls_csr_direct_available()
    except (OSError, AttributeError) as e:
        return f"unknown: {e}"
    return ("yes: UMFPACK" if have else
            "no: built without UMFPACK (sparse iterative methods only; a source "
            "build with SuiteSparse has it)")


def config():
    """What show_config prints, as a dict (show_config(mode="dicts"))."""
    from . import __version__, _core
    from ._info import info
    here = os.path.dirname(os.path.abspath(__file__))
    i = info()  # a context per backend: each plugin there is gets opened
    maps = _mapped()
    plugins = {}
    for b in i.backends:
        if b.name in ("auto", "cpu"):
            continue
        files = _named(maps, (f"liblinsolve_{b.name}.so",))
        shipped = os.path.join(here, f"liblinsolve_{b.name}.so")
        plugins[b.name] = {
            "available": b.available,
            "device": b.device,
            "why not": b.error,
            "loaded from": files[0] if files else None,
            "in the package": os.path.exists(shipped),
        }
    if "opencl" in plugins:  # the ICD loader: the wheel's (grafted) or the system's
        plugins["opencl"]["loader"] = (_named(maps, ("libOpenCL",)) or [None])[0]
    lib = (_named(maps, ("liblinsolve.so",)) or [None])[0]
    return {
        "linsolve": {"version": __version__, "library version": i.library_version,
                     "package": here, "python": sys.version.split()[0]},
        "library": {"liblinsolve": lib,
                    "_core": os.path.abspath(_core.__file__),
                    "sparse direct": _sparse_direct(lib),
                    "OpenMP runtime": (_named(maps, _OPENMP) or [None])[0]},
        "backends": {b.name: (f"yes: {b.device}" + (f" [{b.note}]" if b.note else "")
                              if b.available else f"no: {b.error}") for b in i.backends},
        "plugins": plugins,
        # every BLAS in the process, NumPy's too; "lapack" is liblinsolve's
        "blas": {"lapack": i.lapack, "loaded": _named(maps, _BLAS)},
        "cuda": {"loaded": _named(maps, _CUDA),
                 "nvidia wheels": _wheel_versions(),
                 "wheel folders": _cuda_libs.wheel_dirs(),
                 "preload": _cuda_libs.summary,
                 "preloaded": dict(_cuda_libs.loaded)},
    }


def _lines(d, indent=""):
    out = []
    for key, value in d.items():
        if isinstance(value, dict):
            out.append(f"{indent}{key}:")
            out.extend(_lines(value, indent + "  ") if value else [indent + "  (none)"])
        elif isinstance(value, list):
            out.append(f"{indent}{key}:" + ("" if value else " (none)"))
            out.extend(f"{indent}  {v}" for v in value)
        else:
            out.append(f"{indent}{key}: {value}")
    return out


def show_config(mode="stdout"):
    """Print the library, plugins, BLAS and CUDA libraries behind linsolve.

    Each shared library is named by the path it was loaded from (read from
    ``/proc/self/maps`` after a context has been made for every backend), so
    the output tells a wheel's bundled OpenBLAS from the system's, and the
    cuBLAS of NVIDIA's wheels from the CUDA toolkit's. A backend that is not
    available says why (no driver, no device, a library not found).

    Parameters
    ----------
    mode : {"stdout", "dicts"}
        "stdout" prints the text; "dicts" returns it as nested dicts instead.

    Returns
    -------
    dict or None
        The configuration when ``mode="dicts"``, else None.
    """
    if mode not in ("stdout", "dicts"):
        raise ValueError(f"mode must be 'stdout' or 'dicts', not {mode!r}")
    d = config()
    if mode == "dicts":
        return d
    print("\n".join(_lines(d)))
    return None
