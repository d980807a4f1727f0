#!/usr/bin/env bash
# lu against cuSOLVER under several driver / leaf / panel settings, one
# process per setting (bench --lu-vs-cusolver: device time, matrix on the
# device, median of REPEAT). For tuning the choices in src/cuda/lu/getrf.c.
# Usage: scripts/lu-variants.sh LINSOLVE OUTFILE SIZES "NAME=ENV ..." ...
# e.g.   scripts/lu-variants.sh build/bin/linsolve v.txt 256,1024 \
#          "default=" "recursive=LS_CUDA_LU_DRIVER=recursive"
set -u
LS=$1 OUTF=$2 SIZES=$3
shift 3
for v in "$@"; do
  name=${v%%=*} envs=${v#*=}
  echo "## $name ($envs)" >>"$OUTF"
  env $envs "$LS" bench --lu-vs-cusolver --sizes "$SIZES" --precision double,single \
    --repeat ${REPEAT:-5} >>"$OUTF" 2>&1
  echo "rc $?" >>"$OUTF"
done
# compact table: setting, n, precision, lu_ms, cusolver_ms, ratio
awk '/^## /{name=$2} /^[0-9]+ +(double|single) /{printf "%-14s %6s %-6s %9s %9s %6s %s\n", name, $1, $2, $3, $4, $5, $NF}' "$OUTF"
