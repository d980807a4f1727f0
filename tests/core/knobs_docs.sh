#!/usr/bin/env bash
# The knob registry against the sources and docs/tuning.md:
#  1. the table between the knobs markers of docs/tuning.md is exactly what
#     the registry prints (test_knobs --markdown): no variable missing, none
#     that the registry does not have, no stale default or range;
#  2. no getenv of an LS_ variable (nor a getenv whose name is not a string
#     literal) outside src/core/knobs.c;
#  3. every ls_knob_is(LS_KNOB_X, "name") in the sources names a choice of X;
#  4. every built-in threshold listed in docs/tuning.md still has that value:
#     a field of the CUDA tuning table (src/cuda/common/tuning.c) in its
#     sm_90 row, any other name as a #define in its file; and the sm_90 row,
#     tuning.c's field list (LSC_FIELD) and the docs name the same fields.
# Usage: knobs_docs.sh TEST_KNOBS SOURCE_DIR
set -u
knobs=$1
src=$2
doc=$src/docs/tuning.md
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. the table
"$knobs" --markdown > "$tmp/registry.md" || fail "test_knobs --markdown"
sed -n '/^<!-- knobs:begin/,/^<!-- knobs:end/p' "$doc" | sed '1d;$d' > "$tmp/doc.md"
names() { grep -o '^| `LS_[A-Z0-9_]*`' "$1" | tr -d '|` ' | sort; }
names "$tmp/registry.md" > "$tmp/registry.names"
names "$tmp/doc.md" > "$tmp/doc.names"
for n in $(comm -23 "$tmp/registry.names" "$tmp/doc.names"); do
    fail "$n is in the registry (src/core/knob_table.h) but not in docs/tuning.md"
done
for n in $(comm -13 "$tmp/registry.names" "$tmp/doc.names"); do
    fail "$n is in docs/tuning.md but not in the registry (src/core/knob_table.h)"
done
if ! diff -u "$tmp/doc.md" "$tmp/registry.md" > "$tmp/table.diff"; then
    cat "$tmp/table.diff"
    fail "docs/tuning.md's table differs from the registry: paste the output of" \
         "'test_knobs --markdown' between its knobs markers"
fi
echo "table: $(wc -l < "$tmp/registry.names") variables in the registry, $(wc -l < "$tmp/doc.names") in docs/tuning.md"

# 2. getenv outside the registry.
allowed='^src/core/knobs\.c:'
cd "$src" || exit 1
grep -rnE --include='*.c' --include='*.h' --include='*.cu' --include='*.cuh' --include='*.cpp' \
    'getenv[[:space:]]*\([[:space:]]*("LS_|[^"[:space:]])' src tools python/csrc 2>/dev/null |
    grep -vE "$allowed" > "$tmp/getenv" || true
while IFS= read -r line; do
    fail "getenv outside the knob registry: $line"
done < "$tmp/getenv"
echo "getenv: $(wc -l < "$tmp/getenv") call(s) of an LS_ variable outside src/core/knobs.c"

# 3. the choices named at call sites
"$knobs" --choices > "$tmp/choices" || fail "test_knobs --choices"
calls=0
while IFS= read -r call; do
    id=$(sed -E 's/.*LS_KNOB_([A-Z0-9_]+).*/\1/' <<< "$call")
    name=$(sed -E 's/.*"([^"]*)".*/\1/' <<< "$call")
    list=$(awk -v n="LS_$id" '$1 == n {print $2}' "$tmp/choices")
    calls=$((calls + 1))
    if [ -z "$list" ]; then
        fail "ls_knob_is on LS_$id, which is not a choice knob"
    elif ! tr '|' '\n' <<< "$list" | grep -qxF -- "$name"; then
        fail "ls_knob_is(LS_KNOB_$id, \"$name\"): not one of $list"
    fi
done < <(grep -rhoE --include='*.c' --include='*.h' \
    'ls_knob_is\(LS_KNOB_[A-Z0-9_]+,[[:space:]]*"[^"]*"\)' src tools)
echo "choices: $calls ls_knob_is call(s) with a literal name checked"

# 4. the built-in thresholds: rows "| `name` | `file` | value | ..."
tuning=src/cuda/common/tuning.c
num='^-?[0-9]+(\.[0-9]+)?$'
# the sm_90 row's ".field = value," lines, as "field value", less the header
awk '/\.name = "sm_90"/ {on = 1; next} on && /^[[:space:]]*}/ {exit}
     on && /^[[:space:]]*\.[a-z_0-9]+ = / {v = $3; sub(/,$/, "", v); print substr($1, 2), v}' \
    "$tuning" | grep -vE '^(cc_major|cc_minor|measured) ' > "$tmp/sm90" || true
[ -s "$tmp/sm90" ] || fail "no sm_90 row with '.field = value,' lines found in $tuning"
grep -vE '^#[[:space:]]*define' "$tuning" | grep -oE 'LSC_FIELD\([a-z_0-9]+,' | sed -E 's/LSC_FIELD\(|,//g' | sort > "$tmp/fields"
rows=0
: > "$tmp/doc_fields"
while IFS='|' read -r _ name file value _; do
    name=$(tr -d '` ' <<< "$name")
    file=$(tr -d '` ' <<< "$file")
    value=$(tr -d '` ' <<< "$value")
    rows=$((rows + 1))
    if [ "$file" = "$tuning" ]; then
        echo "$name" >> "$tmp/doc_fields"
        have=$(awk -v n="$name" '$1 == n {print $2}' "$tmp/sm90")
        if [ -z "$have" ]; then
            fail "docs/tuning.md lists $name; the sm_90 row of $tuning has no such field"
        elif ! grep -qE "$num" <<< "$value" || ! grep -qE "$num" <<< "$have" ||
            ! awk -v a="$value" -v b="$have" 'BEGIN { exit !(a + 0 == b + 0) }'; then
            fail "docs/tuning.md says $name = $value; the sm_90 row of $tuning has $have"
        fi
    elif ! grep -qE "^#define[[:space:]]+$name[[:space:]]+$value([[:space:]]|$)" "$file" 2>/dev/null; then
        fail "docs/tuning.md says $file has #define $name $value; it does not"
    fi
done < <(sed -n '/^<!-- thresholds:begin/,/^<!-- thresholds:end/p' "$doc" | grep '^| `[A-Za-z]')
sort -o "$tmp/doc_fields" "$tmp/doc_fields"
cut -d' ' -f1 "$tmp/sm90" | sort > "$tmp/row_fields"
for n in $(comm -23 "$tmp/row_fields" "$tmp/doc_fields"); do
    fail "$n is a field of the sm_90 row ($tuning) but not listed in docs/tuning.md"
done
for n in $(comm -3 "$tmp/row_fields" "$tmp/fields" | tr -d '\t'); do
    fail "$n is in one of the sm_90 row and the LSC_FIELD list of $tuning, not both"
done
echo "thresholds: $rows checked ($(wc -l < "$tmp/doc_fields") against the sm_90 row of $tuning)"
[ "$rows" -gt 0 ] || fail "no built-in thresholds found in docs/tuning.md"
[ -s "$tmp/doc_fields" ] || fail "docs/tuning.md lists no field of $tuning"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
