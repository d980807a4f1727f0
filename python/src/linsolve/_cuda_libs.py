"""The CUDA libraries of the CUDA plugin, from NVIDIA's wheels.

A binary wheel of linsolve carries the CUDA plugin (liblinsolve_cuda.so) but
not cuBLAS, cuSOLVER, cuSPARSE, nvJitLink or the CUDA runtime: they come from
NVIDIA's own wheels (``pip install 'linsolve[cuda13]'``: nvidia-cublas,
nvidia-cusolver, nvidia-cusparse, nvidia-nvjitlink, nvidia-cuda-runtime), as
PyTorch and CuPy get theirs, or from the system's CUDA toolkit. The wheels
install into ``site-packages/nvidia/cu13/lib`` (CUDA 13) or
``site-packages/nvidia/<name>/lib`` (CUDA 12 and older), a folder the
plugin's run path cannot name, so :func:`preload` opens them by full path
(``RTLD_GLOBAL``) before the library opens the plugin: the dynamic loader
then finds each of the plugin's needed sonames already loaded.

This is done for the binary wheel only (auditwheel's ``linsolve.libs``
folder beside the package): a package built from source keeps the CUDA
toolkit's folder in the plugin's run path and uses that toolkit's
libraries. ``LINSOLVE_CUDA_PRELOAD=1`` preloads for any build, ``=0`` never.
Nothing is loaded either when the wheels are absent (the loader then
searches the system's folders: ldconfig's cache, ``LD_LIBRARY_PATH``) or
when no GPU driver (libcuda.so.1) is installed. The driver is only opened,
never initialised (no ``cuInit``), so importing linsolve does not start
CUDA and a later ``fork`` stays safe.
"""
import ctypes
import glob
import os
import sys

# The CUDA major version the plugin is built against, and the sonames it
# needs from NVIDIA's wheels, each after those it depends on (nvJitLink
# before cuSPARSE, cuBLASLt before cuBLAS, both before cuSOLVER).
CUDA_MAJOR = 13
LIBRARIES = ("libcudart.so.13", "libnvJitLink.so.13", "libcublasLt.so.13", "libcublas.so.13",
             "libcusparse.so.12", "libcusolver.so.12")
# The wheels of the cuda13 extra (pyproject.toml), for show_config's versions.
WHEELS = ("nvidia-cuda-runtime", "nvidia-nvjitlink", "nvidia-cublas", "nvidia-cusparse",
          "nvidia-cusolver")

# What preload() did: soname -> path loaded, and a sentence on the whole.
loaded = {}
summary = "not tried"


def wheel_dirs():
    """The library folders of NVIDIA's wheels on sys.path, CUDA 13's first."""
    found = []
    for base in sys.path:
        if not base or not os.path.isdir(os.path.join(base, "nvidia")):
            continue
        for pattern in (f"nvidia/cu{CUDA_MAJOR}/lib", "nvidia/*/lib"):
            for d in sorted(glob.glob(os.path.join(base, pattern))):
                if d not in found:
                    found.append(d)
    return found


def _find(soname, dirs):
    for d in dirs:
        path = os.path.join(d, soname)
        if os.path.exists(path):
            return path
    return None


def preload():
    """Open the CUDA libraries found in NVIDIA's wheels; see the module's text.

    Returns the sentence also kept in ``summary``.
    """
    global summary
    setting = os.environ.get("LINSOLVE_CUDA_PRELOAD", "")
    if setting == "0":
        summary = "not loaded from NVIDIA's wheels: LINSOLVE_CUDA_PRELOAD=0"
        return summary
    here = os.path.dirname(os.path.abspath(__file__))
    if setting != "1" and not os.path.isdir(os.path.join(os.path.dirname(here), "linsolve.libs")):
        summary = ("not a binary wheel: the plugin's run path finds the CUDA toolkit it was"
                   " built with (LINSOLVE_CUDA_PRELOAD=1 loads NVIDIA's wheels instead)")
        return summary
    dirs = wheel_dirs()
    if not dirs:
        summary = ("NVIDIA's CUDA wheels are not installed (pip install 'linsolve[cuda13]');"
                   " the system's CUDA toolkit serves if the loader finds it")
        return summary
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        summary = f"no GPU driver (libcuda.so.1: {e}); NVIDIA's wheels left unloaded"
        return summary
    missing, failed = [], []
    for soname in LIBRARIES:
        path = _find(soname, dirs)
        if path is None:
            missing.append(soname)
            continue
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            loaded[soname] = path
        except OSError as e:
            failed.append(f"{soname}: {e}")
    summary = f"{len(loaded)} of {len(LIBRARIES)} loaded from NVIDIA's wheels"
    if missing:
        summary += "; not in the wheels: " + ", ".join(missing)
    if failed:
        summary += "; failed: " + "; ".join(failed)
    return summary
