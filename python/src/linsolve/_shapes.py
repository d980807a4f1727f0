"""Shape and dtype rules, shared by the NumPy and the device paths.

They follow ``numpy.linalg.solve``: float32 stays float32, float64 stays
float64, integers and booleans become float64, a mix goes to float64;
complex and other types are refused by name. Whether a b of shape (..., n)
is a stack of vectors follows the installed NumPy (1.x: when
``b.ndim == a.ndim - 1``; 2.x: only when b is 1-D).
"""
import numpy as np

from ._errors import ShapeError

NUMPY2 = int(np.__version__.split(".")[0]) >= 2


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


def rhs_is_vector(a_ndim, b_ndim):
    """Is b a (stack of) vector(s), as numpy.linalg.solve decides?"""
    if b_ndim == 1:
        return True
    return (not NUMPY2) and b_ndim == a_ndim - 1


def broadcast_batch(fname, *named_batches):
    """np.broadcast_shapes over the batch parts, with a message that names them."""
    try:
        return tuple(np.broadcast_shapes(*(s for _, s in named_batches)))
    except ValueError:
        parts = " and ".join(f"{s} of {n}" for n, s in named_batches)
        raise ShapeError(f"{fname}: batch shapes {parts} could not be broadcast together") \
            from None


def solve_shapes(fname, a_shape, b_shape, a_name="a"):
    """Shapes for A X = B: (batch, n, k, vector) with b seen as (..., n, k)."""
    check_matrix(fname, a_name, a_shape)
    n = a_shape[-1]
    if len(b_shape) == 0:
        raise ShapeError(f"{fname}: b must be at least one-dimensional")
    vector = rhs_is_vector(len(a_shape), len(b_shape))
    core = b_shape[-1:] + (1,) if vector else b_shape[-2:]
    if core[0] != n:
        raise ShapeError(
            f"{fname}: b has {core[0]} rows but {a_name} is {n} x {n} (mismatch in core "
            f"dimension 0 of b; b of shape {tuple(b_shape)} is read as "
            + ("a stack of vectors)" if vector else "a stack of (n, k) matrices)"))
    b_batch = b_shape[:-1] if vector else b_shape[:-2]
    batch = broadcast_batch(fname, (a_name, tuple(a_shape[:-2])), ("b", tuple(b_batch)))
    return batch, n, core[1], vector
