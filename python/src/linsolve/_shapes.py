"""Shape and dtype rules, shared by the NumPy and the device paths.

They follow ``numpy.linalg.solve``: float32 stays float32, float64 stays
float64, integers and booleans become float64, a mix goes to float64;
complex and other types are refused by name.

Whether a b of shape (..., n) is a stack of vectors or one (n, k) matrix per
system is the one rule that differs between array libraries and versions;
:func:`rhs_is_vector` keeps it, with the array library as an input, so that
linsolve reads b as the caller's own ``solve`` would:

- NumPy 2 (and SciPy >= 1.15, whose batched ``solve`` reads b alike): a
  vector only when b is 1-D (the array API standard's rule);
- NumPy 1: also when ``b.ndim == a.ndim - 1``;
- PyTorch (``torch.linalg.solve``): when b is 1-D, or when
  ``b.ndim == a.ndim - 1`` and ``b.shape == a.shape[:-1]`` exactly;
- CuPy 14 and later: when b is 1-D (NumPy 2's); CuPy 13 and earlier:
  NumPy 1's;
- JAX (``jax.numpy.linalg.solve``): when b is 1-D;
- anything else (other DLPack or ``__cuda_array_interface__`` arrays, the
  device stand-ins of the tests): the installed NumPy's.
"""
import sys

import numpy as np

from ._errors import ShapeError


def _major(version):
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return 0


NUMPY2 = _major(np.__version__) >= 2


def array_kind(*xs):
    """The array library whose solve rule applies to these inputs: the
    first non-NumPy array's top-level module ("torch", "cupy", "jax", ...),
    else "numpy"."""
    for x in xs:
        if isinstance(x, np.ndarray):
            continue
        root = type(x).__module__.split(".")[0]
        if root in ("torch", "cupy", "cupyx", "jax", "jaxlib"):
            return {"cupyx": "cupy", "jaxlib": "jax"}.get(root, root)
    return "numpy"


def _cupy_vectors_only_1d():
    """CuPy 14 took NumPy 2's rule (whatever NumPy is installed)."""
    cupy = sys.modules.get("cupy")
    return cupy is not None and _major(getattr(cupy, "__version__", "0")) >= 14


def rhs_is_vector(a_shape, b_shape, kind="numpy"):
    """Is b a (stack of) vector(s), as the solve of array library `kind`
    decides? Shapes are tuples; kind as :func:`array_kind` names it."""
    b_ndim = len(b_shape)
    if b_ndim == 1:
        return True
    one_less = b_ndim == len(a_shape) - 1
    if kind == "torch":
        return one_less and tuple(b_shape) == tuple(a_shape[:-1])
    if kind == "jax" or (kind == "cupy" and _cupy_vectors_only_1d()):
        return False
    if kind == "cupy":
        return one_less
    return one_less and not NUMPY2


def working_dtype(fname, *dtypes):
    """float32 when every input is float32, float64 otherwise."""
    single = True
    for dt in dtypes:
        dt = np.dtype(dt)
        if dt.kind == "c":
            raise TypeError(f"{fname}: complex input ({dt}) is not supported: "
                            "linsolve solves real systems only")
        if dt.kind == "f" and dt.itemsize in (4, 8):
            single = single and dt.itemsize == 4
        elif dt.kind in "biu":
            single = False
        else:
            raise TypeError(f"{fname}: array type {dt} is unsupported "
                            "(float32, float64, integers and booleans are)")
    return np.dtype(np.float32 if single else np.float64)


def check_matrix(fname, name, shape, square=True):
    if len(shape) < 2:
        raise ShapeError(f"{fname}: {len(shape)}-dimensional array given for {name}. "
                         "Array must be at least two-dimensional")
    if square and shape[-1] != shape[-2]:
        raise ShapeError(f"{fname}: last 2 dimensions of {name} must be square, "
                         f"got {shape[-2]} x {shape[-1]}")


def broadcast_batch(fname, *named_batches):
    """np.broadcast_shapes over the batch parts, with a message that names them."""
    try:
        return tuple(np.broadcast_shapes(*(s for _, s in named_batches)))
    except ValueError:
        parts = " and ".join(f"{s} of {n}" for n, s in named_batches)
        raise ShapeError(f"{fname}: batch shapes {parts} could not be broadcast together") \
            from None


_RULE_NAMES = {"numpy": f"NumPy {np.__version__.split('.')[0]}", "torch": "PyTorch",
               "cupy": "CuPy", "jax": "JAX"}


def solve_shapes(fname, a_shape, b_shape, a_name="a", kind="numpy"):
    """Shapes for A X = B: (batch, n, k, vector) with b seen as (..., n, k),
    b's (..., n) read by the rule of array library `kind`."""
    check_matrix(fname, a_name, a_shape)
    n = a_shape[-1]
    if len(b_shape) == 0:
        raise ShapeError(f"{fname}: b must be at least one-dimensional")
    vector = rhs_is_vector(a_shape, b_shape, kind)
    core = b_shape[-1:] + (1,) if vector else b_shape[-2:]
    if core[0] != n:
        raise ShapeError(
            f"{fname}: b has {core[0]} rows but {a_name} is {n} x {n} (mismatch in core "
            f"dimension 0 of b; b of shape {tuple(b_shape)} is read as "
            + ("a stack of vectors" if vector else "a stack of (n, k) matrices")
            + f", as {_RULE_NAMES.get(kind, kind)}'s solve reads it"
            + ("" if vector else "; give a stack of vectors a trailing axis of length 1")
            + ")")
    b_batch = b_shape[:-1] if vector else b_shape[:-2]
    batch = broadcast_batch(fname, (a_name, tuple(a_shape[:-2])), ("b", tuple(b_batch)))
    return batch, n, core[1], vector
