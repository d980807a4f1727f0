#!/usr/bin/env bash
# ctest python_package: pip-installs python/ into a venv against the build
# tree (LINSOLVE_BUILD_DIR), then runs its pytest suite. Exit 77 = skipped.
set -euo pipefail
: "${LS_BUILD_DIR:?}" "${LS_SOURCE_DIR:?}" "${LS_WORK_DIR:?}"

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
echo "python_package: using $(command -v "$py") ($("$py" -c 'import sys, numpy; print(sys.version.split()[0], "numpy", numpy.__version__)'))"

# Build from a copy, so that the source tree gets no build/ or egg-info.
rm -rf "$LS_WORK_DIR"
mkdir -p "$LS_WORK_DIR"
cp -r "$LS_SOURCE_DIR/python" "$LS_WORK_DIR/pkg"
rm -rf "$LS_WORK_DIR/pkg/build" "$LS_WORK_DIR/pkg/src/"*.egg-info
# --system-site-packages: NumPy, pytest, SciPy and setuptools come from the
# system; the build needs no network (no build isolation, no dependencies).
"$py" -m venv --system-site-packages --without-pip "$LS_WORK_DIR/venv"
vpy="$LS_WORK_DIR/venv/bin/python"
# A venv made from another venv's Python sees only the base installation:
# a .pth file brings in that venv's packages too (torch, CuPy on a GPU host).
"$py" -c 'import site, sys; sys.prefix != sys.base_prefix and print("\n".join(site.getsitepackages()))' \
  >"$LS_WORK_DIR/parent.pth"
if [ -s "$LS_WORK_DIR/parent.pth" ]; then
  cp "$LS_WORK_DIR/parent.pth" "$("$vpy" -c 'import site; print(site.getsitepackages()[0])')/"
fi
LINSOLVE_BUILD_DIR="$LS_BUILD_DIR" LINSOLVE_WERROR=1 \
  "$vpy" -m pip install --no-build-isolation --no-deps --no-index --no-cache-dir \
  --disable-pip-version-check -q "$LS_WORK_DIR/pkg"

cd "$LS_WORK_DIR"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
exec "$vpy" -m pytest -q -rs -p no:cacheprovider "$LS_WORK_DIR/pkg/tests"
