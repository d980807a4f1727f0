"""linsolve.info(): backends, devices and the LAPACK underneath."""
from dataclasses import dataclass
from typing import Optional, Tuple

from . import _core


@dataclass(frozen=True)
class BackendInfo:
    """One backend as a context made for it sees itself."""

    name: str          # "auto", "cpu", "cuda" or "opencl": what was asked for
    available: bool
    backend: str       # what it resolved to ("auto" -> "cpu" without GPUs)
    device: str        # e.g. "cuda:0 NVIDIA H100 80GB HBM3 (132 SMs, cc 9.0)"
    note: str          # why "auto" chose what it chose
    error: str         # why it is not available
    status: int


@dataclass(frozen=True)
class Info:
    """What :func:`linsolve.info` found. ``str(info)`` reads as ``linsolve info``."""

    version: str
    library_version: str
    backends: Tuple[BackendInfo, ...]
    lapack: str
    device_api: Optional[str]  # None, or why CUDA arrays cannot be solved
    text: str

    def backend(self, name):
        """The BackendInfo called name."""
        for b in self.backends:
            if b.name == name:
                return b
        raise KeyError(name)

    def __str__(self):
        lines = [f"linsolve {self.version} (liblinsolve {self.library_version})"]
        for b in self.backends:
            state = f"yes: {b.device}" if b.available else f"no: {b.error}"
            extra = f" [{b.note}]" if b.note else ""
            lines.append(f"  {b.name:7s} {state}{extra}")
        lines.append(f"  lapack  {self.lapack}")
        lines.append("  device API: " + ("available" if self.device_api is None
                                          else f"missing ({self.device_api})"))
        return "\n".join(lines) + "\n\n" + self.text


def info():
    """List the backends and devices the library finds here.

    Returns
    -------
    Info
        ``backends`` (one :class:`BackendInfo` each for auto, cpu, cuda and
        opencl), the LAPACK library behind the "lapack" method, whether the
        device API for CUDA arrays is there, and ``text``, the library's own
        description (as ``linsolve info`` prints it). Print it to read it.
    """
    from . import __version__
    d = _core.info()
    backends = tuple(BackendInfo(**b) for b in d["backends"])
    return Info(version=__version__, library_version=".".join(map(str, d["version"])),
                backends=backends, lapack=d["lapack"], device_api=_core.device_api(),
                text=d["text"])
