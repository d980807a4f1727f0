#!/usr/bin/env bash
# Every matrix of ../shared/matrices/real through `--precision mixed` on
# CUDA (auto, rbt with fp64 and with tf32x3 factors): status, path and
# residual per run; then compute-sanitizer memcheck and racecheck on the
# butterfly path's kernels (pde900: fp64, tf32x3, fp16 with equilibration).
# Usage: scripts/mixed-real-check.sh LINSOLVE MATRIX_DIR OUT_FILE
set -u
LS=$1 DIR=$2 OUTF=$3
: >"$OUTF"
for f in "$DIR"/*.mtx; do
  for v in "auto:" "rbt-fp64:--pivot rbt --factor fp64" "rbt-tf32x3:--pivot rbt --factor tf32x3"; do
    name=${v%%:*} flags=${v#*:}
    # shellcheck disable=SC2086
    timeout 120 "$LS" solve "$f" --backend cuda --format dense --precision mixed $flags --json \
      >/tmp/mrc.json 2>/tmp/mrc.err
    rc=$?
    python3 - "$f" "$name" "$rc" <<'PY' >>"$OUTF" 2>&1 || echo "$(basename "$f") $name rc=$rc (no report: $(head -c 200 /tmp/mrc.err))" >>"$OUTF"
import json, os, sys
j = json.load(open("/tmp/mrc.json"))
m = j.get("mixed", {})
print(f"{os.path.basename(sys.argv[1]):14s} {sys.argv[2]:11s} rc={sys.argv[3]} n={j.get('n')} "
      f"status={j.get('status')} factor={m.get('factor')} pivot={m.get('pivot')} "
      f"refine={m.get('refinement')} steps={m.get('iterations')} fell_back={m.get('fell_back')} "
      f"residual={j.get('residual')}")
PY
  done
done
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for fac in fp64 tf32x3 fp16; do
  for tool in memcheck racecheck; do
    "$CS" --tool "$tool" --error-exitcode 9 "$LS" solve "$DIR/pde900.mtx" --backend cuda \
      --format dense --precision mixed --pivot rbt --factor "$fac" >/tmp/mrc.san 2>&1
    echo "sanitizer $tool rbt $fac: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/mrc.san | head -1)" >>"$OUTF"
  done
done
