"""Shared helpers: seeded generators and the residual bar the library uses."""
import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(20240614)


def scaled_residual(a, x, b):
    """||b - a x||inf / (n ||a||inf ||x||inf eps), per system, worst of a stack."""
    a, x, b = np.asarray(a, np.float64), np.asarray(x, np.float64), np.asarray(b, np.float64)
    if x.ndim == a.ndim - 1 and b.ndim == a.ndim - 1:
        x, b = x[..., None], b[..., None]
    n = a.shape[-1]
    r = b - a @ x
    eps = np.finfo(np.float64).eps
    num = np.abs(r).max(axis=(-2, -1))
    den = n * np.abs(a).sum(-1).max(-1) * np.abs(x).max(axis=(-2, -1)) * eps
    return float(np.max(num / den))


def well_conditioned(rng, *shape, dtype=np.float64):
    n = shape[-1]
    a = rng.uniform(-1, 1, shape) + n * np.eye(n) * 0.1
    return a.astype(dtype)
