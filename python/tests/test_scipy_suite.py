"""SciPy's own tests of solve, lu_factor and lu_solve, run on linsolve's.

The installed SciPy's test modules (scipy/linalg/tests/test_basic.py and,
by version, test_decomp.py or test_decomp_lu.py) are imported, the names
``solve``, ``lu_factor`` and ``lu_solve`` in each are replaced by
linsolve's, and every test method of the classes that exercise them runs
here, one pytest case each, with SciPy's own setup_method.

linsolve solves real systems only: the cases that pass complex arrays must
end in linsolve's TypeError (its "complex input" message); they are listed
by name and each is checked to raise it. A case that calls none of the
replaced functions (one that tests only scipy.linalg.lu, say) is skipped as
not linsolve's. A case that fails because linsolve.solve does not yet take
one of SciPy's keywords is an expected failure naming the keyword; so are
the SciPy behaviours listed in SCIPY_ONLY, each with why.
"""
import importlib
import inspect
import re
import warnings

import numpy as np
import pytest

import linsolve

pytest.importorskip("scipy")

REPLACED = ("solve", "lu_factor", "lu_solve")

# (module, class, methods or None for all) by SciPy version: 1.10 keeps the
# LU tests in test_decomp.py, later versions in test_decomp_lu.py.
SUITES = [
    ("test_basic", "TestSolve", None),
    ("test_basic", "TestOverwrite", ("test_solve",)),
    ("test_decomp", "TestLU", None),
    ("test_decomp", "TestLUSingle", None),
    ("test_decomp", "TestLUSolve", None),
    ("test_decomp", "TestOverwrite", ("test_lu_factor", "test_lu_solve")),
    ("test_decomp_lu", "TestLU", None),
    ("test_decomp_lu", "TestLUFactor", None),
    ("test_decomp_lu", "TestLUSolve", None),
]

# Cases that pass complex arrays to a replaced function, for at least one of
# their inputs (the real ones before it must pass).
COMPLEX = {
    "TestSolve": {"test_20Feb04_bug", "test_simple_complex", "test_simple_pos_complexb",
                  "test_simple_sym_complexb", "test_simple_sym_complex",
                  "test_simple_her_actuallysym", "test_simple_her", "test_nils_20Feb04",
                  "test_random_complex", "test_random_sym_complex", "test_simple_complex2",
                  "test_hermitian", "test_transposed_notimplemented"},
    "TestOverwrite": {"test_solve", "test_lu_factor", "test_lu_solve"},
    "TestLU": {"test_hrectangular_complex", "test_vrectangular_complex", "test_medium1_complex"},
    "TestLUSingle": {"test_hrectangular_complex", "test_vrectangular_complex",
                     "test_medium1_complex"},
    "TestLUFactor": {"test_hrectangular_complex", "test_vrectangular_complex",
                     "test_medium1_complex"},
}

# SciPy behaviours of solve that linsolve.solve does not have, by case.
SCIPY_ONLY = {
    "TestSolve::test_sym_pos_dep": "the sym_pos keyword (deprecated in SciPy 1.9) is not taken",
    "TestSolve::test_scalar_a_and_1D_b": "a scalar a is not solved as a 1 x 1 system against "
                                         "each entry of b",
    "TestSolve::test_multiple_rhs": "a b of shape (n, k, m) is a stack of (k, m) systems "
                                    "(numpy.linalg.solve's rule), not n x (k*m) right-hand sides",
    "TestSolve::test_ill_condition_warning": "an ill-conditioned a gives no "
                                             "scipy.linalg.LinAlgWarning (the residual is checked, "
                                             "not the condition number)",
}

_COMPLEX_MESSAGE = re.compile(r"complex input .* linsolve solves real systems only")


def _collect():
    cases = []
    for modname, clsname, methods in SUITES:
        try:
            with warnings.catch_warnings():  # SciPy's marks (slow, ...) unknown here
                warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
                mod = importlib.import_module(f"scipy.linalg.tests.{modname}")
        except ImportError:
            continue
        cls = getattr(mod, clsname, None)
        if cls is None:
            continue
        names = methods or sorted(n for n in dir(cls) if n.startswith("test"))
        for name in names:
            if hasattr(cls, name):
                cases.append(pytest.param(mod, cls, name, id=f"{modname}::{clsname}::{name}"))
    return cases


CASES = _collect()


def _missing_keywords():
    params = inspect.signature(linsolve.solve).parameters
    return {k for k in ("overwrite_a", "overwrite_b", "check_finite", "assume_a", "transposed",
                        "lower") if k not in params}


def _skip_marked(fn):
    for mark in getattr(fn, "pytestmark", []):
        if mark.name == "skip" or (mark.name == "xfail" and not mark.kwargs.get("run", True)):
            pytest.skip(f"SciPy marks it {mark.name}: {mark.kwargs.get('reason', '')}")


def test_suites_found():
    """The installed SciPy has the tests this file runs."""
    classes = {c.values[1].__name__ for c in CASES}
    assert "TestSolve" in classes and "TestLUSolve" in classes, classes


@pytest.mark.parametrize("mod, cls, name", CASES)
def test_scipy(mod, cls, name, monkeypatch):
    calls = []

    def counted(fn):
        def call(*args, **kwargs):
            calls.append(fn.__name__)
            return fn(*args, **kwargs)
        return call

    for fname in REPLACED:
        if hasattr(mod, fname):
            monkeypatch.setattr(mod, fname, counted(getattr(linsolve, fname)))
    method = getattr(cls, name)
    _skip_marked(method)
    scipy_only = SCIPY_ONLY.get(f"{cls.__name__}::{name}")
    instance = cls()
    if hasattr(instance, "setup_method"):
        instance.setup_method()
    complex_case = name in COMPLEX.get(cls.__name__, ())
    try:
        getattr(instance, name)()
    except TypeError as e:
        missing = [k for k in _missing_keywords() if f"keyword argument '{k}'" in str(e)]
        if missing:
            pytest.xfail(f"linsolve.solve does not take {missing[0]}= yet")
        if complex_case and _COMPLEX_MESSAGE.search(str(e)):
            return  # complex input refused, as it must be
        if scipy_only:
            pytest.xfail(f"{scipy_only} ({type(e).__name__}: {e})")
        raise
    except (Exception, pytest.fail.Exception) as e:  # pytest.raises fails with the latter
        if scipy_only:
            pytest.xfail(f"{scipy_only} ({type(e).__name__}: {e})")
        raise
    finally:
        if hasattr(instance, "teardown_method"):
            instance.teardown_method()
    assert not complex_case, "a case with complex input ran without linsolve's TypeError"
    if not calls:
        pytest.skip("calls none of solve, lu_factor, lu_solve (SciPy's own functions only)")
