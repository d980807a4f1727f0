"""The installed package: its stubs match the code, and the libraries a wheel
bundles are the ones that load."""
import ast
import inspect
import os
import pathlib

import pytest

import linsolve

PKG = pathlib.Path(linsolve.__file__).parent


def _stubs():
    tree = ast.parse((PKG / "__init__.pyi").read_text())
    return {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def test_typed_package():
    assert (PKG / "py.typed").exists()
    assert (PKG / "__init__.pyi").exists()


def test_stub_covers_public_names():
    stubs = _stubs()
    missing = [n for n in linsolve.__all__ if n not in stubs]
    assert not missing, f"__init__.pyi lacks {missing}"
    extra = [n for n in stubs if not n.startswith("_") and n not in linsolve.__all__]
    assert not extra, f"__init__.pyi has {extra}, which linsolve does not export"


def _stub_params(fn):
    a = fn.args
    out = [(p.arg, "POSITIONAL_ONLY") for p in a.posonlyargs]
    out += [(p.arg, "POSITIONAL_OR_KEYWORD") for p in a.args]
    out += [(p.arg, "KEYWORD_ONLY") for p in a.kwonlyargs]
    pos_defaults = len(a.defaults)
    required = {p.arg for p in (a.posonlyargs + a.args)[:len(a.posonlyargs + a.args) - pos_defaults]}
    required |= {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is None}
    return out, required


@pytest.mark.parametrize("name", [n for n in linsolve.__all__
                                  if inspect.isfunction(getattr(linsolve, n))])
def test_stub_signatures(name):
    fn = _stubs()[name]
    params, required = _stub_params(fn)
    sig = inspect.signature(getattr(linsolve, name))
    real = [(p.name, p.kind.name) for p in sig.parameters.values()]
    real_required = {p.name for p in sig.parameters.values() if p.default is p.empty}
    assert params == real, f"{name}: stub {params} != code {real}"
    assert required == real_required, f"{name}: required {required} != {real_required}"


def test_public_functions_have_numpy_docstrings():
    for name in ("solve", "solve_ex", "lu_factor", "lu_solve", "info"):
        doc = inspect.getdoc(getattr(linsolve, name)) or ""
        assert "Returns\n-------" in doc, f"{name} has no NumPy-style Returns section"


def _loaded(name_part):
    with open("/proc/self/maps") as f:
        return {line.split()[-1] for line in f if name_part in line and "/" in line}


def _core_library():
    linsolve.info()  # makes a context per backend: every plugin there is opens
    paths = {pathlib.Path(p).resolve() for p in _loaded("liblinsolve.so")}
    assert len(paths) == 1, paths
    return paths.pop()


def test_plugins_beside_the_library_load():
    """Each plugin beside liblinsolve loads from Python too (it may still
    find no device): Python opens extensions RTLD_LOCAL, and a plugin that
    needs liblinsolve's symbols must see them all the same."""
    lib = _core_library()
    info = linsolve.info()
    names = {b.name for b in info.backends}
    for plugin in sorted(lib.parent.glob("liblinsolve_*.so")):
        backend = plugin.name[len("liblinsolve_"):-len(".so")]
        if backend not in names:
            continue  # the LAPACK drop-in, not a plugin
        err = info.backend(backend).error
        assert "cannot load" not in err, err
        assert {pathlib.Path(p).resolve() for p in _loaded(plugin.name)} == {plugin.resolve()}


@pytest.mark.skipif(os.environ.get("LS_PY_MODE") != "bundled",
                    reason="only for a wheel that bundles liblinsolve (LS_PY_MODE=bundled)")
def test_bundled_library_is_the_one_loaded():
    libs = sorted(p.name for p in PKG.glob("liblinsolve*.so*"))
    assert [n for n in libs if n.startswith("liblinsolve.so.")], libs
    assert _core_library().parent == PKG.resolve()
