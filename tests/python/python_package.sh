#!/usr/bin/env bash
# ctest python_package / python_package_bundled: pip-installs python/ (the
# scikit-build-core backend) into a fresh venv, then runs its pytest suite.
#   LS_PY_MODE=buildtree  linked against this build tree (LINSOLVE_BUILD_DIR):
#                         quick, and the tree's CUDA plugin when it has one
#   LS_PY_MODE=bundled    what `pip install ./python` does: the C project built
#                         inside the wheel build (CUDA off: nvcc takes too long
#                         for a test), liblinsolve and plugins bundled
# The build runs without build isolation, so it needs no index but for
# scikit-build-core, which pip fetches into the venv when no Python here has
# it (from PyPI, or offline from PIP_FIND_LINKS=wheelhouse PIP_NO_INDEX=1).
# Exit 77 = skipped: no suitable Python, or no scikit-build-core to be had.
set -euo pipefail
: "${LS_BUILD_DIR:?}" "${LS_SOURCE_DIR:?}" "${LS_WORK_DIR:?}"
mode=${LS_PY_MODE:-buildtree}

# The first Python that can build and test the package: LS_PYTHON if set,
# then python3 on PATH, then the system's (which has Debian's NumPy when a
# python3 earlier on PATH does not).
need='import numpy, pytest, pip, venv, os, sysconfig
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))'
py=""
for cand in ${LS_PYTHON:-} python3 /usr/bin/python3; do
  command -v "$cand" >/dev/null 2>&1 || continue
  if "$cand" -c "$need" >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -z "$py" ]; then
  echo "python_package: skipped: no python3 with NumPy, pytest, pip, venv and Python.h" \
       "(Debian: python3-dev python3-numpy python3-pytest python3-pip python3-venv)"
  exit 77
fi
echo "python_package ($mode): using $(command -v "$py") ($("$py" -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)'))"

rm -rf "$LS_WORK_DIR"
mkdir -p "$LS_WORK_DIR"
# --system-site-packages: NumPy, pytest and SciPy come from the system.
"$py" -m venv --system-site-packages --without-pip "$LS_WORK_DIR/venv"
vpy="$LS_WORK_DIR/venv/bin/python"
# A venv made from another venv's Python sees only the base installation:
# a .pth file brings in that venv's packages too (torch, CuPy on a GPU host).
"$py" -c 'import site, sys; sys.prefix != sys.base_prefix and print("\n".join(site.getsitepackages()))' \
  >"$LS_WORK_DIR/parent.pth"
if [ -s "$LS_WORK_DIR/parent.pth" ]; then
  cp "$LS_WORK_DIR/parent.pth" "$("$vpy" -c 'import site; print(site.getsitepackages()[0])')/"
fi
pip=("$vpy" -m pip --disable-pip-version-check)

# The build backend (pyproject.toml's build-system.requires).
has_skbc='import scikit_build_core, sys; from packaging.version import Version as V
sys.exit(V(scikit_build_core.__version__) < V("0.10"))'
if ! "$vpy" -c "$has_skbc" >/dev/null 2>&1; then
  if ! "${pip[@]}" install -q "scikit-build-core>=0.10" >"$LS_WORK_DIR/skbc.log" 2>&1; then
    cat "$LS_WORK_DIR/skbc.log"
    echo "python_package: skipped: scikit-build-core not installable (offline? point" \
         "PIP_FIND_LINKS at a wheelhouse with scikit-build-core, packaging and pathspec," \
         "and set PIP_NO_INDEX=1)"
    exit 77
  fi
fi
echo "python_package: scikit-build-core $("$vpy" -c 'import scikit_build_core as s; print(s.__version__)')"

# Built in place from the source tree (scikit-build-core writes only to
# build-dir), no dependencies (the venv has them), warnings as errors.
cfg=(--config-settings=build-dir="$LS_WORK_DIR/build")
case $mode in
  buildtree) export LINSOLVE_BUILD_DIR="$LS_BUILD_DIR"; unset LINSOLVE_PREFIX ;;
  bundled) unset LINSOLVE_BUILD_DIR LINSOLVE_PREFIX
           cfg+=(--config-settings=cmake.define.LS_WITH_CUDA=OFF) ;;
  *) echo "python_package: LS_PY_MODE=$mode is not buildtree or bundled"; exit 2 ;;
esac
export LINSOLVE_WERROR=1 CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
if ! "${pip[@]}" install --no-build-isolation --no-deps --no-index --no-cache-dir -v \
     "${cfg[@]}" "$LS_SOURCE_DIR/python" >"$LS_WORK_DIR/pip.log" 2>&1; then
  tail -60 "$LS_WORK_DIR/pip.log"
  echo "python_package: pip install failed (whole log: $LS_WORK_DIR/pip.log)"
  exit 1
fi
grep -E "linsolve python:|Installing: .*/linsolve/" "$LS_WORK_DIR/pip.log" | sed 's/^ *//'

# Run from the work dir (not python/) so that the installed package is tested.
cd "$LS_WORK_DIR"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE} LS_PY_MODE=$mode
exec "$vpy" -m pytest -q -rs -p no:cacheprovider "$LS_SOURCE_DIR/python/tests"
