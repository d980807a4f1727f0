"""linsolve: dense linear systems A X = B with liblinsolve.

NumPy arrays are solved by the library's CPU, CUDA or OpenCL backend;
CUDA arrays (PyTorch, CuPy, JAX, DLPack) on their own device, without a
trip through host memory. The functions follow NumPy's and SciPy's:

- :func:`solve` and :func:`solve_ex` (with a :class:`Report`),
- :func:`lu_factor` and :func:`lu_solve` (factor once, solve many),
- :func:`info` and :func:`methods`.
"""
import os

# liblinsolve's OpenMP threads would spin between calls and starve OpenBLAS
# (and NumPy's own BLAS) on small machines; the project's scripts run with
# this setting too. It must be in place before _core loads the library; a
# value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ._api import methods, solve, solve_ex  # noqa: E402
from ._lu import LUFactor, lu_factor, lu_solve  # noqa: E402
from ._errors import (BackendUnavailableError, ConvergenceError, DeviceError,
                      InaccurateError, InaccurateWarning, InvalidArgumentError, LinsolveError,
                      NonFiniteError, OutOfMemoryError, ShapeError, SingularMatrixError,
                      SingularMatrixWarning)
from ._info import BackendInfo, Info, info
from ._report import Report
from ._config import show_config

__version__ = "0.1.0"

__all__ = [
    "solve", "solve_ex", "lu_factor", "lu_solve", "info", "methods", "LUFactor", "Report",
    "Info", "BackendInfo", "LinsolveError", "SingularMatrixError", "NonFiniteError",
    "ConvergenceError", "InaccurateError", "BackendUnavailableError", "DeviceError",
    "InvalidArgumentError", "OutOfMemoryError", "ShapeError", "InaccurateWarning",
    "SingularMatrixWarning", "show_config",
]
