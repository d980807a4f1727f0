#!/usr/bin/env bash
# The drop-in exports LAPACK's six routines and nothing else (everything of
# its own is hidden, so it cannot clash with the program or its libraries).
set -euo pipefail
got=$(nm -D --defined-only "$1" | awk '$2 ~ /^[TDBRVWi]$/ { print $3 }' | sort | tr '\n' ' ')
want="dgesv_ dgetrf_ dgetrs_ sgesv_ sgetrf_ sgetrs_ "
echo "exported: $got"
[ "$got" = "$want" ] || { echo "FAILED: expected exactly: $want"; exit 1; }
