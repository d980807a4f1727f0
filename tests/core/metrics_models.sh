#!/usr/bin/env bash
# docs/metrics.md's byte-model table against the method table: the models
# that `linsolve solve --help` prints (each with its methods, from the
# `traffic` field of every row of src/core/methods/methods.c) must be the
# models the page's table states, no more and no fewer. A method needs no
# row of its own on the page; a new model needs its formula there.
#
# Usage: metrics_models.sh SOURCE_DIR LINSOLVE
set -euo pipefail
root=${1:?source dir}
cli=${2:?linsolve executable}
doc=$root/docs/metrics.md

help=$("$cli" solve --help)
# the lines under "byte models": "<indent>  MODEL: method, method"
# (indents counted by hand: mawk has no regex intervals)
printed=$(awk '/byte models \(/ { on = 1; next }
               !on { next }
               { match($0, /^ */) }
               RLENGTH == 25 && /: / { sub(/^ +/, ""); sub(/:.*/, ""); print; next }
               RLENGTH == 27 { next }
               { exit }' <<<"$help" | sort)
# the table under "| model | elements moved |": its first column
stated=$(awk -F'|' '/^\| model \| elements moved/ { on = 1; next }
                    on && /^\|---/ { next }
                    on && /^\|/ { gsub(/ /, "", $2); print $2; next }
                    on { exit }' "$doc" | sort)

[ -n "$printed" ] || { echo "FAILED: solve --help prints no byte models"; exit 1; }
[ -n "$stated" ] || { echo "FAILED: $doc has no '| model | elements moved |' table"; exit 1; }
if [ "$printed" != "$stated" ]; then
    echo "FAILED: the byte models of solve --help and of docs/metrics.md differ"
    diff <(echo "$printed") <(echo "$stated") | sed 's/^</  help only:/; s/^>/  page only:/' | grep only
    exit 1
fi
echo "byte models, help and docs/metrics.md alike:" $printed
