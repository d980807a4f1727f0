# Type stubs of the public API (the implementation is in _api.py, _info.py,
# _report.py and _errors.py; arrays may also be CUDA arrays, typed as Any).
from typing import Any, List, Literal, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt
from numpy.linalg import LinAlgError

__version__: str

_Check = Union[bool, Literal["warn", "raise", "off"]]
_Backend = Literal["auto", "cpu", "cuda", "opencl"]
_Precision = Optional[Literal["single", "double", "mixed"]]

class Report:
    path: str
    why: str
    method: str
    backend: str
    precision: str
    device: str
    n: int
    nrhs: int
    batch: int
    status: int
    status_name: str
    info: int
    t_h2d: float
    t_factor: float
    t_solve: float
    t_d2h: float
    t_total: float
    flops: float
    bytes: float
    gflops: float
    gbps: float
    residual: float
    iterations: int
    history: Optional[List[float]]
    message: str
    where: str
    note: str
    index: Optional[Tuple[int, ...]]
    @property
    def refinement_steps(self) -> int: ...
    @property
    def ok(self) -> bool: ...
    def as_dict(self) -> dict: ...

class BackendInfo:
    name: str
    available: bool
    backend: str
    device: str
    note: str
    error: str
    status: int

class Info:
    version: str
    library_version: str
    backends: Tuple[BackendInfo, ...]
    lapack: str
    device_api: Optional[str]
    text: str
    def backend(self, name: str) -> BackendInfo: ...

class LUFactor(Tuple[Any, Any]):
    info: Union[int, npt.NDArray[np.intc]]
    backend: str
    @property
    def lu(self) -> Any: ...
    @property
    def piv(self) -> Any: ...

def solve(a: Any, b: Any, lower: bool = ..., overwrite_a: bool = ..., overwrite_b: bool = ...,
          check_finite: bool = ..., assume_a: str = ..., transposed: bool = ..., *,
          method: str = ..., backend: _Backend = ..., precision: _Precision = ...,
          check: _Check = ..., refine: bool = ...) -> Any: ...
def solve_ex(a: Any, b: Any, lower: bool = ..., overwrite_a: bool = ...,
             overwrite_b: bool = ..., check_finite: bool = ..., assume_a: str = ...,
             transposed: bool = ..., *, method: str = ..., backend: _Backend = ...,
             precision: _Precision = ..., check: _Check = ...,
             refine: bool = ...) -> Tuple[Any, Report]: ...
def lu_factor(a: Any, overwrite_a: bool = ..., check_finite: bool = ..., *,
              backend: _Backend = ...) -> LUFactor: ...
def lu_solve(lu_and_piv: Union[LUFactor, Tuple[Any, Any]], b: Any, trans: Literal[0, 1, 2] = ...,
             overwrite_b: bool = ..., check_finite: bool = ..., *,
             backend: Optional[_Backend] = ...) -> Any: ...
def info() -> Info: ...
def methods() -> List[Tuple[str, str]]: ...
def show_config(mode: Literal["stdout", "dicts"] = ...) -> Optional[dict]: ...

class LinsolveError(Exception):
    status: int
    status_name: str
    index: Optional[Tuple[int, ...]]
    report: Optional[Report]
class SingularMatrixError(LinsolveError, LinAlgError):
    info: int
    column: int
class NonFiniteError(LinsolveError, ValueError): ...
class ConvergenceError(LinsolveError, LinAlgError): ...
class InaccurateError(LinsolveError, LinAlgError): ...
class BackendUnavailableError(LinsolveError, RuntimeError): ...
class DeviceError(LinsolveError, RuntimeError): ...
class InvalidArgumentError(LinsolveError, ValueError): ...
class OutOfMemoryError(LinsolveError, MemoryError): ...
class ShapeError(LinAlgError, ValueError): ...
class InaccurateWarning(RuntimeWarning): ...
class SingularMatrixWarning(RuntimeWarning): ...
