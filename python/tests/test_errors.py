"""Errors as Python users expect them: singular, shapes, non-finite, backends."""
import numpy as np
import pytest

import linsolve


def test_singular_names_the_column():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    a[:, 1] = 0.0  # an exactly zero column: the zero pivot is column 1
    with pytest.raises(np.linalg.LinAlgError) as e:
        linsolve.solve(a, np.ones(3), method="lu", backend="cpu")
    err = e.value
    assert isinstance(err, linsolve.SingularMatrixError)
    assert err.column == 1 and err.info == 2 and err.index is None
    assert "Singular matrix" in str(err) and "column 1" in str(err)


def test_singular_in_a_stack_names_the_system():
    a = np.stack([np.eye(3)] * 4)
    a[2, :, 0] = 0.0
    with pytest.raises(linsolve.SingularMatrixError) as e:
        linsolve.solve(a.reshape(2, 2, 3, 3), np.ones((2, 2, 3, 1)), backend="cpu")
    assert e.value.index == (1, 0) and e.value.column == 0
    assert "(1, 0)" in str(e.value)


def test_singular_all_zero():
    with pytest.raises(linsolve.SingularMatrixError):
        linsolve.solve(np.zeros((4, 4)), np.ones(4))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input(bad):
    a = np.eye(3)
    a[1, 2] = bad
    with pytest.raises(ValueError) as e:
        linsolve.solve(a, np.ones(3))
    assert isinstance(e.value, linsolve.NonFiniteError)
    assert e.value.status_name == "LS_ENONFINITE" and "not finite" in str(e.value)
    b = np.ones(3)
    b[0] = bad
    with pytest.raises(linsolve.NonFiniteError):
        linsolve.solve(np.eye(3), b)


@pytest.mark.parametrize("a_shape,b_shape,words", [
    ((3,), (3,), "at least two-dimensional"),
    ((3, 4), (3,), "square"),
    ((3, 3), (4,), "core dimension"),
    ((3, 3), (4, 2), "4 rows"),
    ((2, 3, 3), (5, 3, 1), "could not be broadcast"),
    ((3, 3), (), "at least one-dimensional"),
])
def test_bad_shapes(a_shape, b_shape, words):
    with pytest.raises(ValueError, match=words) as e:
        linsolve.solve(np.ones(a_shape), np.ones(b_shape))
    assert isinstance(e.value, np.linalg.LinAlgError)  # as NumPy raises for these too


def test_bad_options():
    a, b = np.eye(2), np.ones(2)
    with pytest.raises(ValueError, match="unknown method"):
        linsolve.solve(a, b, method="magic")
    with pytest.raises(ValueError, match="backend"):
        linsolve.solve(a, b, backend="tpu")
    with pytest.raises(ValueError, match="check"):
        linsolve.solve(a, b, check="maybe")


def test_missing_backend_is_a_runtime_error():
    if linsolve.info().backend("cuda").available:
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(RuntimeError) as e:
        linsolve.solve(np.eye(2), np.ones(2), backend="cuda")
    assert isinstance(e.value, linsolve.BackendUnavailableError)
    assert "CUDA" in str(e.value) or "cuda" in str(e.value)


def test_unsupported_method_on_backend():
    with pytest.raises(linsolve.LinsolveError) as e:
        linsolve.solve(np.eye(2), np.ones(2), method="ge-naive", backend="cpu")
    assert isinstance(e.value, ValueError)


def test_cuda_array_without_cuda_is_a_clear_error():
    """An object that claims device memory reaches the device path, which
    says why it cannot run instead of reading the pointer on the host."""
    if linsolve.info().backend("cuda").available:
        pytest.skip("this machine has a CUDA device")

    class FakeDeviceArray:
        __cuda_array_interface__ = {"shape": (2, 2), "typestr": "<f8", "data": (8, False),
                                    "version": 3}

        def __dlpack_device__(self):
            return (2, 0)

    fake = FakeDeviceArray()
    with pytest.raises((RuntimeError, TypeError)):
        linsolve.solve(fake, fake)
