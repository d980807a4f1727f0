"""Report: what the library said about a solve (``ls_report``), in Python."""
from dataclasses import dataclass, field, fields
from typing import List, Optional, Tuple


def _ms(t):
    return f"{t * 1e3:.3g} ms"


@dataclass(frozen=True)
class Report:
    """What ``solve_ex`` ran and how it went.

    For a stack of systems the times, flops and bytes are sums over the
    stack, ``residual`` and ``iterations`` the worst, and ``message``,
    ``info`` and ``index`` speak of the worst (or the failing) system.

    Attributes
    ----------
    path, why : str
        The planner's path that ran ("dense", "batched", "mixed",
        "sparse-direct", "sparse-krylov", ...) and why it was chosen.
    method, backend, precision, device : str
        What actually ran (``method="auto"`` resolved), and where.
    n, nrhs : int
        Order of A and right-hand sides per solve.
    batch : int
        Number of systems in the stack (1 for a single system).
    status, status_name : int, str
        The library status of the call (0, ``"LS_OK"`` when solved).
    info : int
        LAPACK's info of the factorization (> 0: the zero pivot's column).
    t_h2d, t_factor, t_solve, t_d2h, t_total : float
        Seconds: transfers, factorization, substitution, whole call.
    flops, bytes, gflops, gbps : float
        LAPACK's exact flop count, modelled device traffic, and the rates.
    residual : float
        ``||B - AX||inf / (n ||A||inf ||X||inf eps)``; at most 30 is good.
    iterations : int
        Iterations (iterative methods) or steps of iterative refinement.
    history : list of float or None
        Relative residual per iteration of an iterative method.
    message : str
        The library's plain-words account (refinement, fallbacks, ...).
    where : str
        Source location of a failure, when there was one.
    note : str
        Why ``backend="auto"`` chose this backend (e.g. no CUDA device).
    index : tuple or None
        Batch index that ``message`` speaks of, for a stack.
    """

    path: str = ""
    why: str = ""
    method: str = "auto"
    backend: str = "auto"
    precision: str = "double"
    device: str = ""
    n: int = 0
    nrhs: int = 0
    batch: int = 0
    status: int = 0
    status_name: str = "LS_OK"
    info: int = 0
    t_h2d: float = 0.0
    t_factor: float = 0.0
    t_solve: float = 0.0
    t_d2h: float = 0.0
    t_total: float = 0.0
    flops: float = 0.0
    bytes: float = 0.0
    gflops: float = 0.0
    gbps: float = 0.0
    residual: float = float("nan")
    iterations: int = 0
    history: Optional[List[float]] = field(default=None, repr=False)
    message: str = ""
    where: str = ""
    note: str = ""
    index: Optional[Tuple[int, ...]] = None

    @classmethod
    def _from_core(cls, d, index=None):
        names = {f.name for f in fields(cls)}
        kw = {k: v for k, v in d.items() if k in names}
        kw["index"] = index
        return cls(**kw)

    @property
    def refinement_steps(self):
        """Steps of iterative refinement (0 for iterative methods)."""
        return 0 if self.method == "bicgstab" else self.iterations

    @property
    def ok(self):
        """True when the call succeeded (status 0)."""
        return self.status == 0

    def as_dict(self):
        """The fields as a plain dict."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __repr__(self):
        what = f"{self.method} on {self.backend}"
        if self.device:
            what += f" ({self.device})"
        shape = f"n={self.n}, nrhs={self.nrhs}" + (f", batch={self.batch}" if self.batch != 1 else "")
        lines = [
            f"Report({what}, {self.precision}, {shape}",
            f"  path       {self.path or '-'}: {self.why or '-'}",
            f"  status     {self.status_name}: {self.message or '-'}",
            f"  residual   {self.residual:.3g} (||b-Ax||/(n ||A|| ||x|| eps); <= 30 is good)",
            f"  time       {_ms(self.t_total)} total; factor {_ms(self.t_factor)}, "
            f"solve {_ms(self.t_solve)}, h2d {_ms(self.t_h2d)}, d2h {_ms(self.t_d2h)}",
            f"  rate       {self.gflops:.3g} GFLOP/s ({self.flops:.4g} flops)"
            + (f", {self.gbps:.3g} GB/s" if self.gbps else ""),
        ]
        if self.method == "bicgstab":
            lines.append(f"  iterations {self.iterations}")
        else:
            lines.append(f"  refinement {self.iterations} step(s)")
        if self.note:
            lines.append(f"  note       {self.note}")
        if self.where:
            lines.append(f"  where      {self.where}")
        if self.index is not None:
            lines.append(f"  system     {self.index}")
        return "\n".join(lines) + ")"

    __str__ = __repr__
