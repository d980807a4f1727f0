#!/usr/bin/env bash
# The binary wheel on a GPU machine, as a user installs it: no compiler, no
# network, the CUDA libraries from NVIDIA's pip wheels (those PyTorch
# installed: nvidia-cublas, -cusolver, -cusparse, -cuda-runtime, -nvjitlink).
# Run from the repository root:
#
#   OUT=/tmp/wgc PYTHON=/path/to/python3 bash scripts/wheel-gpu-check.sh [--allow-cpu]
#
#   1. the one linsolve-*.whl in WHEEL_DIR: name, size, sha256 (and the
#      commit it was built from, when WHEEL.commit lies beside it)
#   2. a fresh venv on PYTHON with --system-site-packages. When PYTHON is
#      itself a venv's (PyTorch's often is), --system-site-packages reaches
#      only the base interpreter's site-packages, not that venv's, where
#      torch, NumPy and NVIDIA's wheels are: a .pth file then adds that
#      venv's site-packages after the new venv's own.
#   3. pytest and its dependencies from WHEEL_DIR, offline (pip --no-index;
#      pip itself as said below)
#   4. the linsolve wheel with `pip install --no-index --no-deps`, timed
#   5. from a scratch folder (so the installed package is what is imported):
#      linsolve.show_config(), which names every CUDA library loaded and its
#      path; the CUDA backend must be available (--allow-cpu: only noted)
#   6. python/tests with pytest, GPU tests included (they skip without a
#      CUDA device; the report counts how many of test_gpu*.py ran), under
#      a time limit
# Everything goes to $OUT/wheel-gpu-check.txt (pytest's output, also on its
# own as it runs, to wheel-gpu-check-pytest.txt, its JUnit XML to
# wheel-gpu-check-pytest.xml); one summary line to stdout.
#
# Settings (environment):
#   OUT            the report's folder (required)
#   PYTHON         the CPython the wheel is for (default python3)
#   WHEEL_DIR      where the wheels are (default .whl)
#   LS_GIT_COMMIT  the commit of this tree, when `git rev-parse` cannot tell
#                  (no .git); else the file LS_COMMIT_FILE (default COMMIT)
#   LS_TEST_TIMEOUT_S  pytest's limit in seconds (default 420: the whole
#                  run stays within a 10-minute job); SIGKILL 20 s later
#   LS_VENV_WITHOUT_PIP=1  make the venv without pip, as happens anyway when
#                  PYTHON lacks ensurepip (a test of that path)
# pip: the venv's own; without ensurepip, PYTHON's venv's pip, else a
# pip-*.whl in WHEEL_DIR.
# --allow-cpu: no CUDA backend is not a failure (a dry run without a GPU).
# Exit status: 0 all passed; 1 a step failed (the report says which);
# 2 wrong use.
set -uo pipefail
allow_cpu=0
for a; do
  case $a in
    --allow-cpu) allow_cpu=1 ;;
    *) echo "wheel-gpu-check: unknown argument $a (only --allow-cpu)"; exit 2 ;;
  esac
done
[ -n "${OUT:-}" ] || { echo "wheel-gpu-check: set OUT to the report's folder"; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
wheel_dir=${WHEEL_DIR:-$root/.whl}
timeout_s=${LS_TEST_TIMEOUT_S:-420}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
report=$OUT/wheel-gpu-check.txt
: >"$report"
log() { printf '%s\n' "$*" >>"$report"; }
section() { log ""; log "== $*"; }
failed=()
fail() { failed+=("$1"); log "FAILED: $1"; }
work=$(mktemp -d "${TMPDIR:-/tmp}/wheel-gpu-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
summary() {  # the one line on stdout, also the report's last
  local verdict=OK
  [ ${#failed[@]} -eq 0 ] || verdict="FAIL (${failed[*]})"
  local line="wheel-gpu-check: $verdict; ${wheel_name:-no wheel}, ${wheel_kib:-?} KiB;"
  line+=" install ${install_s:-?} s; cuda: ${cuda_state:-not checked}; pytest: ${pytest_line:-not run}"
  line+="; gpu tests: ${gpu_tests:-not counted}"
  log ""; log "$line"
  echo "$line"
  [ ${#failed[@]} -eq 0 ]
}

# --- where and what
commit=${LS_GIT_COMMIT:-}
commit_from="LS_GIT_COMMIT"
# only this tree's own repository, not one of a folder above it
if [ -z "$commit" ] && [ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" = "$root" ] &&
   commit=$(git -C "$root" rev-parse HEAD 2>/dev/null); then
  commit_from="git rev-parse"
fi
commit_file=${LS_COMMIT_FILE:-$root/COMMIT}
if [ -z "$commit" ] && [ -f "$commit_file" ]; then
  commit=$(head -1 "$commit_file"); commit_from=$commit_file
fi
[ -n "$commit" ] || { commit=unknown; commit_from="no LS_GIT_COMMIT, git or $commit_file"; }
log "wheel-gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ)"
log "command: OUT=$OUT PYTHON=$py WHEEL_DIR=$wheel_dir LS_TEST_TIMEOUT_S=$timeout_s" \
    "bash scripts/wheel-gpu-check.sh $*"
log "cwd: $PWD"
log "tree commit: $commit ($commit_from)"
log "host: $(uname -srm), $(nproc) cores"
if command -v nvidia-smi >/dev/null 2>&1; then
  log "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -4 | tr '\n' ';')"
else
  log "gpu: no nvidia-smi on PATH"
fi
log "LD_LIBRARY_PATH: ${LD_LIBRARY_PATH:-(unset)}"

# --- 1. the wheel
section "wheel"
shopt -s nullglob
wheels=("$wheel_dir"/linsolve-*.whl)
shopt -u nullglob
if [ ${#wheels[@]} -ne 1 ]; then
  fail "wheel: ${#wheels[@]} linsolve-*.whl in $wheel_dir (want exactly one)"
  summary; exit 1
fi
wheel=${wheels[0]}
wheel_name=$(basename "$wheel")
wheel_kib=$(( ($(stat -c %s "$wheel") + 1023) / 1024 ))
log "file: $wheel_name"
log "size: $(stat -c %s "$wheel") bytes ($wheel_kib KiB)"
log "sha256: $(sha256sum "$wheel" | cut -d' ' -f1)"
if [ -f "$wheel.commit" ]; then
  log "built from: $(tr '\n' ' ' <"$wheel.commit")"
else
  log "built from: unknown (no $wheel_name.commit beside it)"
fi

# --- 2. the venv
section "python"
if ! "$py" -c 'import sys; assert sys.implementation.name == "cpython"' >>"$report" 2>&1; then
  fail "python: $py is not a working CPython"; summary; exit 1
fi
log "$py: $("$py" -c 'import sys; print(sys.version.split()[0], sys.executable)')"
venv=$work/venv
# Without ensurepip (Debian's and Ubuntu's python3 lack it unless
# python3-venv is installed) the venv is made without pip; an installer is
# found below.
venv_args=(--system-site-packages)
[ "${LS_VENV_WITHOUT_PIP:-0}" = 1 ] && venv_args+=(--without-pip)
if ! "$py" -m venv "${venv_args[@]}" "$venv" >"$work/venv.log" 2>&1; then
  cat "$work/venv.log" >>"$report"
  rm -rf "$venv"
  venv_args+=(--without-pip)
  log "retried without pip (no ensurepip?)"
  "$py" -m venv "${venv_args[@]}" "$venv" >>"$report" 2>&1 || {
    fail "venv: $py -m venv ${venv_args[*]}"; summary; exit 1; }
fi
log "venv: $py -m venv ${venv_args[*]}"
vpy=$venv/bin/python
# PYTHON's own site-packages when it runs in a venv (sys.prefix is then not
# sys.base_prefix), for the new venv to see: site.addsitedir also runs the
# .pth files there, as for any site folder.
parent_sites=$("$py" -c '
import site, sys
if sys.prefix != sys.base_prefix:
    print("\n".join(site.getsitepackages()))')
if [ -n "$parent_sites" ]; then
  vsite=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  while IFS= read -r d; do
    printf 'import site; site.addsitedir(%s)\n' "$("$py" -c 'import sys; print(repr(sys.argv[1]))' "$d")"
  done <<<"$parent_sites" >"$vsite/_wheel_gpu_check_parent.pth"
  log "PYTHON is a venv's: its site-packages added to the new venv: $(tr '\n' ' ' <<<"$parent_sites")"
fi

# --- 3. pytest, offline. The installer: the venv's own pip, else PYTHON's
# venv's (through the .pth above; it installs into the running
# interpreter's prefix, the new venv), else pip run from a pip wheel in
# WHEEL_DIR (as ensurepip runs its bundled one).
pip_opts=(--disable-pip-version-check --no-input)
pip=("$vpy" -m pip "${pip_opts[@]}")
if ! "${pip[@]}" --version >/dev/null 2>&1; then
  pip_wheel=$(find "$wheel_dir" -maxdepth 1 -name "pip-*.whl" | sort -V | tail -1)
  [ -n "$pip_wheel" ] || { fail "no pip: none in the venv or PYTHON's, no pip-*.whl in $wheel_dir"
                           summary; exit 1; }
  pip=(env "PYTHONPATH=$pip_wheel" "$vpy" -m pip "${pip_opts[@]}")
fi
log "installer: $("${pip[@]}" --version 2>&1)"
if ! "${pip[@]}" install --no-index --find-links "$wheel_dir" pytest >"$work/pytest-install.log" 2>&1; then
  cat "$work/pytest-install.log" >>"$report"
  fail "pytest install from $wheel_dir"
fi

# --- 4. the wheel, timed
section "install"
t0=$(date +%s.%N)
if env -u PIP_FIND_LINKS "${pip[@]}" install --no-index --no-deps "$wheel" >"$work/install.log" 2>&1; then
  install_s=$("$vpy" -c "print(f'{$(date +%s.%N) - $t0:.2f}')")
  log "pip install --no-index --no-deps $wheel_name: $install_s s"
else
  cat "$work/install.log" >>"$report"
  fail "install of $wheel_name"; summary; exit 1
fi

# --- 5. import and show_config, in a scratch folder, with no build tree or
# plugin folder of the environment steering the library
run=(env -u LINSOLVE_BUILD_DIR -u LINSOLVE_PREFIX -u LS_PLUGIN_DIR
     LS_PY_MODE=bundled "OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}" PYTHONDONTWRITEBYTECODE=1)
mkdir -p "$work/run"
cd "$work/run" || exit 1
section "other GPU packages in reach (informative)"
"${run[@]}" timeout -k 10 120 "$vpy" - >>"$report" 2>&1 <<'EOF'
import importlib
for name in ("numpy", "scipy", "torch", "cupy", "jax"):
    try:
        m = importlib.import_module(name)
    except Exception as e:  # any import failure is only reported
        print(f"{name}: not importable ({type(e).__name__}: {e})")
        continue
    extra = ""
    if name == "torch":
        ok = m.cuda.is_available()
        extra = f", CUDA {m.version.cuda}, device: {m.cuda.get_device_name(0) if ok else 'none'}"
    print(f"{name} {getattr(m, '__version__', '?')} at {m.__file__}{extra}")
EOF
section "linsolve.show_config()"
"${run[@]}" LS_VENV="$venv" ALLOW_CPU=$allow_cpu timeout -k 10 120 "$vpy" - \
  >"$work/config.txt" 2>&1 <<'EOF'
import os, sys
import linsolve
here = os.path.realpath(linsolve.__file__)
if not here.startswith(os.path.realpath(os.environ["LS_VENV"]) + os.sep):
    sys.exit(f"FAILED: import: linsolve came from {here}, not the venv")
linsolve.show_config()
d = linsolve.show_config(mode="dicts")
cuda = d["backends"].get("cuda", "no: not a backend of this build")
loaded = d["cuda"]["loaded"]
print()
print(f"CUDA-STATE: {cuda}")
print(f"CUDA-LIBS: {len(loaded)} loaded")
if not cuda.startswith("yes"):
    sys.exit(0 if os.environ["ALLOW_CPU"] == "1" else 3)
names = [os.path.basename(p) for p in loaded]
# the driver and the plugin's own dependencies (its CUDA runtime is static)
need = ("libcuda.so", "libcublas", "libcusolver", "libcusparse")
lack = [n for n in need if not any(x.startswith(n) for x in names)]
if lack:
    print(f"FAILED: CUDA backend available but not loaded: {', '.join(lack)}")
    sys.exit(4)
EOF
rc=$?
cat "$work/config.txt" >>"$report"
cuda_state=$(sed -n 's/^CUDA-STATE: //p' "$work/config.txt")
cuda_state=${cuda_state:-unknown}
case $rc in
  0) [ $allow_cpu = 1 ] && [[ $cuda_state != yes* ]] && log "(--allow-cpu: no CUDA backend accepted)" ;;
  3) fail "no CUDA backend" ;;
  4) fail "CUDA libraries not all loaded" ;;
  *) fail "import or show_config (exit $rc)" ;;
esac

# --- 6. the package's tests
section "pytest python/tests (limit $timeout_s s)"
junit=$OUT/wheel-gpu-check-pytest.xml
rm -f "$junit"   # never an earlier run's
t0=$(date +%s)
# pytest writes into OUT, so that what ran survives a run killed from outside
ptxt=$OUT/wheel-gpu-check-pytest.txt
"${run[@]}" timeout -k 20 "$timeout_s" "$vpy" -m pytest -q -rsx -p no:cacheprovider \
  --junitxml="$junit" "$root/python/tests" >"$ptxt" 2>&1
rc=$?
cat "$ptxt" >>"$report"
[ -z "$(tail -c1 "$ptxt")" ] || log ""   # a run cut off mid-line
log "pytest exit $rc after $(( $(date +%s) - t0 )) s"
pytest_line=$(grep -E '(passed|failed|error|skipped|no tests ran)' "$ptxt" | tail -1 | sed 's/=//g; s/^ *//; s/ *$//')
[ $rc -eq 124 ] || [ $rc -eq 137 ] && pytest_line="timed out after $timeout_s s"
[ $rc -eq 0 ] || fail "pytest (exit $rc)"
if [ -f "$junit" ]; then
  gpu_tests=$("$vpy" - "$junit" <<'EOF'
import sys, xml.etree.ElementTree as ET
ran = skipped = 0
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if ".test_gpu" not in "." + case.get("classname", ""):
        continue
    if case.find("skipped") is not None:
        skipped += 1
    else:
        ran += 1
print(f"{ran} ran, {skipped} skipped (test_gpu*.py)")
EOF
)
  log "gpu tests: $gpu_tests"
fi
summary
