"""The right-hand side rule (linsolve._shapes.rhs_is_vector): a b of shape
(..., n) is read as the caller's own library reads it. The NumPy case is
checked against the installed numpy.linalg.solve, so it holds under NumPy 1
and 2 alike; the others against the rules their sources state."""
import sys
import types

import numpy as np
import pytest

import linsolve
from linsolve._shapes import array_kind, rhs_is_vector, solve_shapes


def test_numpy_rule_is_the_installed_numpys(rng):
    # a (3, 3, 3) with b (3, 3): NumPy 1 reads three vectors, NumPy 2 one 3 x 3 matrix
    a = rng.uniform(-1, 1, (3, 3, 3)) + 3 * np.eye(3)
    b = rng.uniform(-1, 1, (3, 3))
    numpy_vectors = np.linalg.solve(a, b).shape == (3, 3)
    assert rhs_is_vector(a.shape, b.shape) == numpy_vectors
    x = linsolve.solve(a, b)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10)
    # a 1-D b is one vector, and an explicit trailing axis is read alike, everywhere
    for kind in ("numpy", "torch", "cupy", "jax"):
        assert rhs_is_vector((3, 3, 3), (3,), kind)
        assert not rhs_is_vector((3, 3, 3), (3, 3, 1), kind)


def test_torch_rule():
    # torch.linalg.solve: vectors when b is 1-D or b.shape == a.shape[:-1] exactly
    assert rhs_is_vector((4, 5, 5), (4, 5), "torch")
    assert not rhs_is_vector((4, 5, 5), (1, 5), "torch")  # (1, 5): one 1 x 5 matrix
    assert not rhs_is_vector((5, 5), (5, 2), "torch")
    assert solve_shapes("solve", (4, 5, 5), (4, 5), kind="torch") == ((4,), 5, 1, True)
    with pytest.raises(linsolve.ShapeError, match="PyTorch"):
        solve_shapes("solve", (4, 5, 5), (1, 5), kind="torch")


@pytest.mark.parametrize("version,vectors", [("13.6.0", True), ("14.0.0", False)])
def test_cupy_rule_follows_the_installed_cupy(monkeypatch, version, vectors):
    # CuPy 14 took NumPy 2's rule; 13 and earlier read b.ndim == a.ndim - 1 as vectors
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(__version__=version))
    assert rhs_is_vector((4, 5, 5), (4, 5), "cupy") == vectors


def test_array_kind_names_the_library():
    torch_like = type("Tensor", (), {"__module__": "torch"})()
    cupy_like = type("ndarray", (), {"__module__": "cupy._core.core"})()
    assert array_kind(np.ones(2), torch_like) == "torch"
    assert array_kind(cupy_like) == "cupy"
    assert array_kind(np.ones(2), [1.0]) == "numpy"


def test_torch_cpu_tensors_read_as_torch_reads_them(rng):
    torch = pytest.importorskip("torch")
    a = torch.from_numpy(rng.uniform(-1, 1, (3, 3, 3)) + 3 * np.eye(3))
    for b in (torch.from_numpy(rng.uniform(-1, 1, (3, 3))), torch.ones(3, 3, 2, dtype=a.dtype)):
        want = torch.linalg.solve(a, b)
        x = linsolve.solve(a, b)
        assert tuple(x.shape) == tuple(want.shape)
        np.testing.assert_allclose(np.asarray(x), want.numpy(), rtol=1e-10)
