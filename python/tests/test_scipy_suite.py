"""SciPy's own tests of solve, lu_factor and lu_solve, run on linsolve's.

The installed SciPy's test modules (scipy/linalg/tests/test_basic.py and,
by version, test_decomp.py or test_decomp_lu.py) are imported, the names
``solve``, ``lu_factor`` and ``lu_solve`` in each are replaced by
linsolve's, and every test method of the classes that exercise them runs
here, one pytest case each, with SciPy's own setup_method. A method that
SciPy parametrizes (``pytest.mark.parametrize``, stacked or not, on the
method or its class) runs once per combination of its parameters, as pytest
would run it there.

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
import traceback
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
                  "test_hermitian", "test_transposed_notimplemented",
                  "test_symmetric_hermitian", "test_pos_fails_sym_complex"},
    "TestOverwrite": {"test_solve", "test_lu_factor", "test_lu_solve"},
    "TestLU": {"test_hrectangular_complex", "test_vrectangular_complex", "test_medium1_complex"},
    "TestLUSingle": {"test_hrectangular_complex", "test_vrectangular_complex",
                     "test_medium1_complex"},
    "TestLUFactor": {"test_hrectangular_complex", "test_vrectangular_complex",
                     "test_medium1_complex"},
}

# SciPy behaviours of solve that linsolve.solve does not have, by case:
# (why, pattern). The case is an expected failure only when its failure
# matches the pattern, searched in "ExceptionType: message" followed by the
# failing line of SciPy's test; any other failure is a failure.
_ILL = ("an ill-conditioned a gives no scipy.linalg.LinAlgWarning (linsolve checks the scaled "
        "residual of the answer, not the reciprocal condition number SciPy estimates)",
        r"DID NOT (WARN|RAISE).*LinAlgWarning")
_ZERO_ENTRY = ("an entry of U that is exactly zero in exact arithmetic is rounding noise that "
               "linsolve's LAPACK and SciPy's round differently (compared with atol=0)",
               r"Not equal to tolerance rtol=1e-07, atol=0 .*Mismatched elements: 1 /")
SCIPY_ONLY = {
    "TestSolve::test_sym_pos_dep": ("the sym_pos keyword (deprecated in SciPy 1.9) is not taken",
                                    r"unexpected keyword argument 'sym_pos'"),
    "TestSolve::test_scalar_a_and_1D_b": ("a scalar a is not solved as a 1 x 1 system against "
                                          "each entry of b", r"ShapeError"),
    "TestSolve::test_multiple_rhs": ("a b of shape (n, k, m) is a stack of (k, m) systems "
                                     "(numpy.linalg.solve's rule), not n x (k*m) right-hand "
                                     "sides", r"ShapeError"),
    "TestSolve::test_ill_condition_warning": _ILL,
    "TestSolve::test_diagonal": _ILL,        # SciPy >= 1.15: assume_a="diagonal"
    "TestSolve::test_tridiagonal": _ILL,     # SciPy >= 1.15: assume_a="tridiagonal"
    "TestSolve::test_banded": _ILL,          # SciPy >= 1.15: assume_a="banded"
    "TestSolve::test_posdef_not_posdef": (
        "assume_a='pos' is solved by the general LU, which solves a symmetric matrix that is "
        "not positive definite instead of failing as SciPy's Cholesky factorization does",
        r"DID NOT RAISE.*LinAlgError"),
    # A singular 3 x 4 matrix: U's last entry is zero in exact arithmetic and
    # rounding noise in both factorizations, where linsolve's LAPACK (the
    # system's) and SciPy's bundled one may round differently; SciPy
    # compares the factors with atol=0. The other entries must still agree.
    "TestLUFactor::test_hrectangular": _ZERO_ENTRY,
    "TestLU::test_hrectangular": _ZERO_ENTRY,
    "TestSolve::test_overwrite_args": (
        "overwrite_a=True lets linsolve overwrite a but its one-system path factors a copy, "
        "where SciPy's test asserts that an F-ordered float a is overwritten",
        r"AssertionError.*\n.*\(a == a_ref\)\.all\(\) != a_inplace"),
}

_COMPLEX_MESSAGE = re.compile(r"complex input .* linsolve solves real systems only")


def _marks(obj):
    return list(getattr(obj, "pytestmark", []))


def _param_id(value, argname, i):
    if value is None or isinstance(value, (bool, int, float, str)):
        return str(value)[:20]
    if isinstance(value, (type, np.dtype)):
        return getattr(value, "__name__", str(value))
    return f"{argname}{i}"


def _expansions(marks):
    """[(id, {argname: value}, marks of the chosen pytest.param)] over the
    product of the parametrize marks, as pytest expands them."""
    combos = [("", {}, [])]
    for mark in (m for m in marks if m.name == "parametrize"):
        names = mark.args[0]
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        ids = mark.kwargs.get("ids")
        rows = []
        for i, value in enumerate(mark.args[1]):
            pmarks, pid = [], None
            if type(value).__name__ == "ParameterSet":
                value, pmarks, pid = value.values, list(value.marks), value.id
                value = value if len(names) > 1 else value[0]
            values = value if len(names) > 1 else (value,)
            if pid is None and isinstance(ids, (list, tuple)) and i < len(ids):
                pid = str(ids[i])
            if pid is None:
                pid = "-".join(_param_id(v, n, i) for n, v in zip(names, values))
            rows.append((pid, dict(zip(names, values)), pmarks))
        combos = [(f"{cid}-{rid}" if cid else rid, {**ckw, **rkw}, cm + rm)
                  for cid, ckw, cm in combos for rid, rkw, rm in rows]
    return combos


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
            if not hasattr(cls, name):
                continue
            seen = set()
            for pid, kwargs, pmarks in _expansions(_marks(cls) + _marks(getattr(cls, name))):
                case_id = f"{modname}::{clsname}::{name}" + (f"[{pid}]" if pid else "")
                while case_id in seen:  # pytest, too, makes repeated ids unique
                    case_id += "_"
                seen.add(case_id)
                cases.append(pytest.param(mod, cls, name, kwargs, pmarks, id=case_id))
    return cases


CASES = _collect()


def _missing_keywords():
    params = inspect.signature(linsolve.solve).parameters
    return {k for k in ("overwrite_a", "overwrite_b", "check_finite", "assume_a", "transposed",
                        "lower") if k not in params}


def _skip_marked(marks):
    for mark in marks:
        skipif = mark.name == "skipif" and mark.args and mark.args[0] is True
        if (mark.name == "skip" or skipif
                or (mark.name == "xfail" and not mark.kwargs.get("run", True))):
            pytest.skip(f"SciPy marks it {mark.name}: {mark.kwargs.get('reason', '')}")


def _is_complex(value):
    """A complex dtype among a case's parameters (SciPy's dtype axes)."""
    if isinstance(value, (list, tuple)):
        return any(map(_is_complex, value))
    if not isinstance(value, (type, np.dtype)):  # not a string: "F" is a memory order
        return False
    try:
        return np.dtype(value).kind == "c"
    except TypeError:
        return False


def _xfail_if_scipy_only(scipy_only, e):
    """xfail a SCIPY_ONLY case whose failure is the one named there."""
    if not scipy_only:
        return
    why, pattern = scipy_only
    frames = traceback.extract_tb(e.__traceback__)
    text = f"{type(e).__name__}: {e}".replace("\n", " ") + "\n" + \
        (frames[-1].line or "" if frames else "")
    # the failing line of SciPy's test (the last frame in its module)
    for fr in reversed(frames):
        if "scipy/linalg/tests" in fr.filename.replace("\\", "/"):
            text += "\n" + (fr.line or "")
            break
    if re.search(pattern, text, re.S):
        pytest.xfail(f"{why} ({type(e).__name__}: {str(e)[:200]})")


def test_suites_found():
    """The installed SciPy has the tests this file runs."""
    classes = {c.values[1].__name__ for c in CASES}
    assert "TestSolve" in classes and "TestLUSolve" in classes, classes


@pytest.mark.parametrize("mod, cls, name, kwargs, pmarks", CASES)
def test_scipy(mod, cls, name, kwargs, pmarks, monkeypatch):
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
    _skip_marked(_marks(cls) + _marks(method) + pmarks)
    scipy_only = SCIPY_ONLY.get(f"{cls.__name__}::{name}")
    instance = cls()
    if hasattr(instance, "setup_method"):
        instance.setup_method()
    complex_case = name in COMPLEX.get(cls.__name__, ()) or any(map(_is_complex, kwargs.values()))
    try:
        getattr(instance, name)(**kwargs)
    except TypeError as e:
        missing = [k for k in _missing_keywords() if f"keyword argument '{k}'" in str(e)]
        if missing:
            pytest.xfail(f"linsolve.solve does not take {missing[0]}= yet")
        if complex_case and _COMPLEX_MESSAGE.search(str(e)):
            return  # complex input refused, as it must be
        _xfail_if_scipy_only(scipy_only, e)
        raise
    except (Exception, pytest.fail.Exception) as e:  # pytest.raises fails with the latter
        _xfail_if_scipy_only(scipy_only, e)
        raise
    finally:
        if hasattr(instance, "teardown_method"):
            instance.teardown_method()
    assert not complex_case, "a case with complex input ran without linsolve's TypeError"
    if not calls:
        pytest.skip("calls none of solve, lu_factor, lu_solve (SciPy's own functions only)")
