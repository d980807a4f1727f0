"""Exceptions and warnings, and the map from a library status to them.

Every error that comes from a library status carries it as ``status`` and
``status_name``; classes also derive from the built-in or NumPy exception a
Python user would catch (``numpy.linalg.LinAlgError``, ``ValueError``,
``RuntimeError``, ``MemoryError``).
"""
from numpy.linalg import LinAlgError

from . import _core

__all__ = [
    "LinsolveError", "SingularMatrixError", "NonFiniteError", "ConvergenceError",
    "InaccurateError", "BackendUnavailableError", "DeviceError", "InvalidArgumentError",
    "OutOfMemoryError", "ShapeError", "InaccurateWarning", "SingularMatrixWarning",
]


class LinsolveError(Exception):
    """Base class of the errors that carry a liblinsolve status.

    Attributes
    ----------
    status : int
        The library's status code (``linsolve.status`` names them).
    status_name : str
        Its symbolic name, e.g. ``"LS_ENONFINITE"``.
    index : tuple or None
        For a stack, the batch index of the system that failed.
    report : Report or None
        What the library reported about the failed solve, when it did.
    """

    def __init__(self, message, status=0, index=None, report=None):
        super().__init__(message)
        self.status = status
        self.status_name = _core.status_name(status)
        self.index = index
        self.report = report


class SingularMatrixError(LinsolveError, LinAlgError):
    """A is singular: an exactly zero pivot in ``column`` (0-based).

    ``info`` is LAPACK's 1-based column, as the C API returns it.
    """

    def __init__(self, message, status=0, index=None, report=None):
        super().__init__(message, status, index, report)
        self.info = status
        self.column = status - 1


class NonFiniteError(LinsolveError, ValueError):
    """The input holds NaN or Inf (``LS_ENONFINITE``)."""


class ConvergenceError(LinsolveError, LinAlgError):
    """An iterative method did not converge or broke down."""


class InaccurateError(LinsolveError, LinAlgError):
    """The scaled residual exceeds 30 (raised with ``check="raise"``)."""


class BackendUnavailableError(LinsolveError, RuntimeError):
    """The backend or device asked for is not there (``LS_EUNAVAIL``)."""


class DeviceError(LinsolveError, RuntimeError):
    """A device, driver, kernel or internal failure."""


class InvalidArgumentError(LinsolveError, ValueError):
    """An argument or option the library refused."""


class OutOfMemoryError(LinsolveError, MemoryError):
    """Host or device memory ran out."""


class ShapeError(LinAlgError, ValueError):
    """Arrays of the wrong shape; both LinAlgError (as NumPy raises for a
    non-square matrix) and ValueError (as for mismatched dimensions)."""


class InaccurateWarning(RuntimeWarning):
    """The answer was computed but its scaled residual exceeds 30."""


class SingularMatrixWarning(RuntimeWarning):
    """lu_factor met an exactly zero pivot (the factors are still returned,
    as LAPACK and scipy.linalg.lu_factor do)."""


def _where(index):
    return f" (system {index} of the stack)" if index is not None and index != () else ""


def error_for(status, message, index=None, report=None):
    """The exception for a library status (not raised here)."""
    where = _where(index)
    if 0 < status < _core.NOT_CONVERGED:
        c = status - 1
        text = (f"Singular matrix: the pivot in column {c} (0-based; LAPACK info = {status}) "
                f"is exactly zero: a singular matrix{where}")
        return SingularMatrixError(text, status, index, report)
    text = message or _core.strerror(status)
    text = f"{_core.status_name(status)}: {text}{where}"
    if status == _core.ENONFINITE:
        return NonFiniteError("array must not contain infs or NaNs: " + text, status, index, report)
    if status in (_core.NOT_CONVERGED, _core.BREAKDOWN):
        return ConvergenceError(text, status, index, report)
    if status == _core.INACCURATE:
        return InaccurateError(text, status, index, report)
    if status == _core.EUNAVAIL:
        return BackendUnavailableError(text, status, index, report)
    if status in (_core.ENOMEM, _core.EDEVMEM):
        return OutOfMemoryError(text, status, index, report)
    if status in (_core.EDEVICE, _core.EINTERNAL):
        return DeviceError(text, status, index, report)
    return InvalidArgumentError(text, status, index, report)


def from_core(err):
    """Turn a ``_core.Error(status, index, message, where)`` into ours."""
    status, index, message = err.args[0], err.args[1], err.args[2]
    return error_for(status, message, None if index < 0 else index)
