#!/bin/sh
# linsolve solve on stacks written by NumPy: C- and Fortran-order A,
# B of shape (batch, n) and (batch, n, k), float64 and float32, a stack
# with singular systems (exit 3, their indices in --json, NaN in X), and
# malformed stacks refused with the file named. X is checked against
# numpy.linalg.solve. Skips (77) without a python3 that has NumPy.
# usage: cli_batched.sh LINSOLVE WORKDIR
set -u
LS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
WORK=$2
PY=
for cand in ${LS_PYTHON:-} python3 /usr/bin/python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import numpy' >/dev/null 2>&1; then
        PY=$cand
        break
    fi
done
if [ -z "$PY" ]; then
    echo "skipped: no python3 with NumPy (Debian: python3-numpy)"
    exit 77
fi
mkdir -p "$WORK" && cd "$WORK" || exit 1
fails=0
check() { # label, then a command that must succeed
    label=$1
    shift
    if "$@"; then echo "$label ... ok"; else echo "$label ... FAILED"; fails=$((fails + 1)); fi
}

"$PY" - <<'PYEOF' || exit 1
import numpy as np
rng = np.random.default_rng(7)
def stack(batch, n, dtype, order):
    a = rng.uniform(-1, 1, (batch, n, n)).astype(dtype)
    return np.asfortranarray(a) if order == "F" else np.ascontiguousarray(a)
for name, batch, n, k, dt, order in [("c64", 50, 5, 0, "f8", "C"), ("f64", 40, 33, 3, "f8", "F"),
                                     ("c32", 30, 12, 2, "f4", "C"), ("c1", 7, 1, 0, "f8", "C"),
                                     ("mix", 9, 40, 2, "f8", "F")]:
    A = stack(batch, n, dt, order)
    B = rng.uniform(-1, 1, (batch, n) if k == 0 else (batch, n, k)).astype(dt)
    if name == "mix":
        B = np.ascontiguousarray(B)
    np.save(name + "_A.npy", A)
    np.save(name + "_B.npy", B)
S = stack(6, 4, "f8", "C")
S[1][:, 2] = 0
S[4][:] = 0
np.save("sing_A.npy", S)
np.save("sing_B.npy", rng.uniform(-1, 1, (6, 4)))
np.save("bad_B.npy", rng.uniform(-1, 1, (5, 4)))
np.save("rect_A.npy", rng.uniform(-1, 1, (3, 4, 5)))
with open("cut_A.npy", "wb") as f:  # a header promising more data than the file has
    np.save(f, np.zeros((4, 3, 3)))
raw = open("cut_A.npy", "rb").read()
open("cut_A.npy", "wb").write(raw[:-8])
PYEOF

verify() { # name tolerance: X from linsolve against numpy.linalg.solve
    "$PY" - "$1" "$2" <<'PYEOF'
import sys, numpy as np
name, tol = sys.argv[1], float(sys.argv[2])
A, B, X = (np.load(f"{name}_{s}.npy") for s in "ABX")
ok = X.shape == B.shape and X.dtype == (np.float32 if A.dtype == np.float32 else np.float64)
ref = np.linalg.solve(A.astype(np.float64), B.astype(np.float64)[..., None] if B.ndim == 2 else B.astype(np.float64))
ref = ref[..., 0] if B.ndim == 2 else ref
err = np.max(np.abs(X - ref)) / max(1.0, np.max(np.abs(ref)))
print(f"  {name}: shape {X.shape} {X.dtype}, max difference {err:.2e}")
sys.exit(0 if ok and err < tol else 1)
PYEOF
}

for name in c64 f64 c1 mix; do
    check "solve $name" "$LS" solve ${name}_A.npy ${name}_B.npy -o ${name}_X.npy --backend cpu --quiet
    check "verify $name" verify $name 1e-8
done
check "solve c32" "$LS" solve c32_A.npy c32_B.npy -o c32_X.npy --backend cpu --quiet
check "verify c32 (single)" verify c32 1e-3

"$LS" solve sing_A.npy sing_B.npy -o sing_X.npy --backend cpu --json > sing.json
check "singular stack exits 3" test $? -eq 3
check "singular indices in JSON" "$PY" -c '
import json, sys, numpy as np
j = json.load(open("sing.json"))
X = np.load("sing_X.npy")
ok = j["singular"] == 2 and j["singular_indices"] == [1, 4] and j["batch"] == 6
ok = ok and np.isnan(X[1]).all() and np.isnan(X[4]).all() and np.isfinite(X[[0, 2, 3, 5]]).all()
ok = ok and j["systems_per_s"] > 0 and j["gbps"] > 0
sys.exit(0 if ok else 1)'
"$LS" solve c64_A.npy c64_B.npy --backend cpu > human.txt
check "report names systems/s and GB/s" grep -q "systems/s" human.txt

"$LS" solve c64_A.npy bad_B.npy --backend cpu 2> bad.err
check "mismatched B exits 2" test $? -eq 2
check "mismatch message names B" grep -q "bad_B.npy" bad.err
"$LS" solve rect_A.npy c64_B.npy --backend cpu 2> rect.err
check "non-square stack exits 2" test $? -eq 2
"$LS" solve cut_A.npy c64_B.npy --backend cpu 2> cut.err
check "truncated stack exits 2" test $? -eq 2
check "truncation message names file and byte" grep -q "cut_A.npy: byte" cut.err
echo "$fails failure(s)"
exit $fails
