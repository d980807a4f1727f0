#!/usr/bin/env bash
# `linsolve solve --distributed --gen` against the serial `linsolve gen` +
# `linsolve solve` of the same matrix: X equal to rounding, on 1x1, 1x2
# and 2x2 grids with nb 2 and 32.
#   gen_vs_serial.sh MPIEXEC LINSOLVE
set -uo pipefail
mpiexec=$1 cli=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
for kind in random; do
    for n in 1 7 64 255; do
        "$cli" gen $kind -n $n --seed 5 -o "$dir/A.mtx" &&
            "$cli" solve "$dir/A.mtx" -o "$dir/Xs.mtx" --quiet || { echo "FAILED: serial $kind $n"; fail=1; continue; }
        for g in 1x1:1 1x2:2 2x2:4; do
            for nb in 2 32; do
                grid=${g%:*} np=${g#*:}
                out=$("$mpiexec" -np $np --oversubscribe "$cli" solve --distributed --gen $kind -n $n \
                      --seed 5 --grid $grid --nb $nb -o "$dir/Xd.mtx" --json) || { echo "FAILED: $kind n=$n $grid nb=$nb: $out"; fail=1; continue; }
                # max |Xd - Xs| / max |Xs| over the data lines (after the header)
                d=$(paste <(grep -v '^%' "$dir/Xd.mtx" | tail -n +2) <(grep -v '^%' "$dir/Xs.mtx" | tail -n +2) |
                    awk '{ e = $1 - $2; if (e < 0) e = -e; s = $2 < 0 ? -$2 : $2; if (e > d) d = e; if (s > m) m = s }
                         END { printf "%.3g", (m > 0 ? d / m : d) }')
                res=$(sed -E 's/.*"residual": ([^,]*),.*/\1/' <<< "$out")
                ok=$(awk -v d="$d" -v r="$res" 'BEGIN { print (d <= 1e-9 && r <= 30) ? "ok" : "failed" }')
                echo "$kind n=$n grid=$grid nb=$nb: max|Xd-Xs|/max|Xs| = $d residual = $res $ok"
                [ "$ok" = ok ] || fail=1
            done
        done
    done
done
exit $fail
