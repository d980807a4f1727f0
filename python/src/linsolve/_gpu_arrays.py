"""The array libraries behind the device path: PyTorch and CuPy, each as
an adapter with one interface (working copies from the library's caching
allocator, its current stream, the reduction of info, one read-back, events),
so that _gpu.py speaks to either the same way."""
import numpy as np


def _module(x):
    return type(x).__module__.split(".")[0]


class _Torch:
    name = "torch"

    def __init__(self):
        import torch
        self.t = torch
        self._np = {torch.float64: np.dtype(np.float64), torch.float32: np.dtype(np.float32),
                    torch.float16: np.dtype(np.float16), torch.bool: np.dtype(bool),
                    torch.int8: np.dtype(np.int8), torch.uint8: np.dtype(np.uint8),
                    torch.int16: np.dtype(np.int16), torch.int32: np.dtype(np.int32),
                    torch.int64: np.dtype(np.int64)}

    def take(self, x):
        if _module(x) == "torch":
            return x
        if hasattr(x, "__dlpack__"):
            return self.t.from_dlpack(x)
        return self.t.as_tensor(x, device="cuda")  # __cuda_array_interface__, no copy

    def device(self, x):
        return x.device.index if x.device.index is not None else self.t.cuda.current_device()

    def dtype(self, x):
        dt = self._np.get(x.dtype)
        if dt is not None:
            return dt
        if x.is_complex():
            return np.dtype(np.complex128)
        raise TypeError(f"linsolve: array type {x.dtype} is unsupported (float32, float64, "
                        "integers and booleans are)")

    def tdtype(self, dt):
        return self.t.float32 if dt == np.float32 else self.t.float64

    def colmajor(self, x, batch, rows, cols, dt, dev):
        out = self.t.empty(batch + (cols, rows), dtype=self.tdtype(dt),
                           device=f"cuda:{dev}").transpose(-1, -2)
        out.copy_(x)  # broadcasts and converts on the device
        return out

    def is_colmajor(self, x):
        """Matrices stored column by column (Fortran order), not row by row."""
        return not x.is_contiguous() and x.mT.is_contiguous()

    def copy(self, x, shape, dt, row):
        """A working copy of shape, row- or column-major matrices, from the
        caller's caching allocator; a plain clone when nothing changes."""
        tdt = self.tdtype(dt)
        if row:
            if x.dtype == tdt and tuple(x.shape) == shape and x.is_contiguous():
                return x.clone()
            out = self.t.empty(shape, dtype=tdt, device=x.device)
        else:
            out = self.t.empty(shape[:-2] + (shape[-1], shape[-2]), dtype=tdt,
                               device=x.device).mT
        out.copy_(x)  # broadcasts and converts on the device
        return out

    def ints(self, shape, dev):
        return self.t.zeros(shape, dtype=self.t.int32, device=f"cuda:{dev}")

    def int_buffer(self, count, like):
        return self.t.empty((count,), dtype=self.t.int32, device=like.device)

    def doubles(self, count, like):
        """count float64 on like's device, uninitialised (the check writes them)."""
        return self.t.empty((count,), dtype=self.t.float64, device=like.device)

    def ptr(self, x):
        return x.data_ptr()

    def stream(self, dev):
        return self.t.cuda.current_stream(dev).cuda_stream

    def host(self, x):
        return x.cpu().numpy()

    def cast(self, x, dt):
        return x.to(self.tdtype(dt))

    def unsqueeze(self, x):
        return x.unsqueeze(-1)

    def reshape(self, x, shape):
        return x.reshape(shape)

    def pivots1(self, piv, batch, n, count):
        p = (piv.to(self.t.int32) + 1).broadcast_to(batch + (n,))
        return p.reshape(max(count, 1), n).contiguous()

    def diag_zero(self, lu):
        return self.host((self.t.diagonal(lu, dim1=-2, dim2=-1) == 0).reshape(-1, lu.shape[-1]))

    def first_failure(self, info):
        """(info of the first system whose info is not 0, its index), both
        on the device; (0, 0) when every system succeeded. argmax returns
        the first of equal maxima; bool is viewed as uint8 (same size), which
        argmax takes."""
        i = self.t.ne(info, 0).view(self.t.uint8).argmax()
        v = info.gather(0, i.reshape(1))
        # read() stacks the scalars with type promotion: float32 would round
        # an index past 2^24, float64 does not
        return v, (i.double() if info.numel() > 1 << 24 else i)

    def read(self, scalars):
        """Device scalars to Python numbers: one copy, one wait (the stack
        promotes int32/int64 and float to the float type)."""
        return self.t.stack([s.reshape(()) for s in scalars]).tolist()

    def start_timer(self):
        e = (self.t.cuda.Event(enable_timing=True), self.t.cuda.Event(enable_timing=True))
        e[0].record()
        return e

    def stop_timer(self, e):
        e[1].record()

    def seconds(self, e):
        e[1].synchronize()
        return e[0].elapsed_time(e[1]) * 1e-3


class _Cupy:
    name = "cupy"

    def __init__(self):
        import cupy
        self.cp = cupy

    def take(self, x):
        if _module(x) == "cupy":
            return x
        if hasattr(x, "__dlpack__"):
            return self.cp.from_dlpack(x)
        return self.cp.asarray(x)  # __cuda_array_interface__, no copy

    def device(self, x):
        return x.device.id

    def dtype(self, x):
        return np.dtype(x.dtype)

    def colmajor(self, x, batch, rows, cols, dt, dev):
        with self.cp.cuda.Device(dev):
            out = self.cp.empty(batch + (cols, rows), dtype=dt).swapaxes(-1, -2)
            out[...] = x
        return out

    def is_colmajor(self, x):
        return not x.flags.c_contiguous and x.swapaxes(-1, -2).flags.c_contiguous

    def copy(self, x, shape, dt, row):
        with self.cp.cuda.Device(x.device.id):
            if row:
                if x.dtype == dt and x.shape == shape and x.flags.c_contiguous:
                    return x.copy()
                out = self.cp.empty(shape, dtype=dt)
            else:
                out = self.cp.empty(shape[:-2] + (shape[-1], shape[-2]), dtype=dt)
                out = out.swapaxes(-1, -2)
            out[...] = x
        return out

    def ints(self, shape, dev):
        with self.cp.cuda.Device(dev):
            return self.cp.zeros(shape, dtype=np.int32)

    def int_buffer(self, count, like):
        with self.cp.cuda.Device(like.device.id):
            return self.cp.empty((count,), dtype=np.int32)

    def doubles(self, count, like):
        with self.cp.cuda.Device(like.device.id):
            return self.cp.empty((count,), dtype=np.float64)

    def ptr(self, x):
        return x.data.ptr

    def stream(self, dev):
        with self.cp.cuda.Device(dev):
            return self.cp.cuda.get_current_stream().ptr

    def host(self, x):
        return self.cp.asnumpy(x)

    def cast(self, x, dt):
        return x.astype(dt, copy=False)

    def unsqueeze(self, x):
        return x[..., None]

    def reshape(self, x, shape):
        return x.reshape(shape)

    def pivots1(self, piv, batch, n, count):
        p = self.cp.broadcast_to(piv.astype(np.int32) + 1, batch + (n,))
        return self.cp.ascontiguousarray(p.reshape(max(count, 1), n))

    def diag_zero(self, lu):
        d = self.cp.diagonal(lu, axis1=-2, axis2=-1)
        return self.host((d == 0).reshape(-1, lu.shape[-1]))

    def first_failure(self, info):
        cp = self.cp
        i = cp.argmax((info != 0).view(cp.uint8))
        return info.take(i), i

    def read(self, scalars):
        cp = self.cp
        return cp.stack([s.reshape(()) for s in scalars]).get().tolist()

    def start_timer(self):
        e = (self.cp.cuda.Event(), self.cp.cuda.Event())
        e[0].record()
        return e

    def stop_timer(self, e):
        e[1].record()

    def seconds(self, e):
        e[1].synchronize()
        return self.cp.cuda.get_elapsed_time(e[0], e[1]) * 1e-3


def _scaled(num, den):
    """(For the tests' stand-in of the device path.) num / den, where a
    zero denominator means 0 for a zero residual and
    inf otherwise (x = 0 solves b = 0 exactly)."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num / den
    return np.where(den > 0, r, np.where(num == 0, 0.0, np.inf))
