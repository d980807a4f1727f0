#!/usr/bin/env bash
# Every committed result file (bench/results/**.csv, **.txt) records the
# commit it was made from, in one of two places:
#   - a header line in its first 5 lines, "# commit: X" or "# commit X;",
#     as the benchmarks write it;
#   - else a row of bench/results/PROVENANCE.tsv (path, commit, command,
#     where: the README paragraph or doc line that states them), for the
#     older files written before the benchmarks wrote headers.
# Checks: each file has exactly one of the two (a row for a file that has a
# header, or for a path that is not a tracked result file, fails); each
# commit exists and is an ancestor of HEAD, so no result claims code that is
# not here; a row's commit is also an ancestor of the commit that last
# changed its file (a result cannot be committed before the code that made
# it), checked where the file is unchanged in the working tree.
# Exit 77 (skip) outside a git checkout (an exported tree has no history).
set -euo pipefail

# Result files whose source commit nothing in the repository states (no
# header, no commit in bench/results/README.md, the docs that cite them or
# their own text). Listed by name so that the set cannot grow unnoticed:
# a new result file must carry a header or a PROVENANCE.tsv row. Remove an
# entry when its file gets a row (the check fails while both exist).
unestablished=(
  # README "2026-11-21, methods and measurements that have not changed
  # since": the commands are given, the commits are not (the runs' files
  # were stored at 337a1cf and 9b25302, which are not their source commits).
  h100/cuda-methods-table.csv
  h100/cuda-methods-table-8192-fp64.csv  # "its command line was not recorded"
  h100/seed000.csv
  h100/seed000-4096-8192.csv
  h100/seed003.csv
  h100/opencl-methods-table.csv
  # README "Earlier on 2026-11-23 (one-SM leaf, before graphs)" and "versions
  # of the leaf on the way to the committed one": commands, no commits.
  h100/lu-sm/cuda-ctest-final.txt
  h100/lu-sm/cuda-ctest-full-run4.txt
  h100/lu-sm/final-session.txt
  h100/lu-sm/leaf-1024-ncu-details.txt
  h100/lu-sm/leaf-1024-sass-counts.txt
  h100/lu-sm/profile-1024-chunked-trial.txt
  h100/lu-sm/profile-256.txt
  h100/lu-sm/sanitizer-summary.txt
  h100/lu-sm/sm-leaf-ncu.txt
  h100/lu-sm/variants-run1.txt
  h100/lu-sm/variants-run2-nb.txt
  h100/lu-sm/variants-run2-smw.txt
  h100/lu-sm/variants-run3-chunked-trial.txt
  h100/lu-sm/variants-run5-small-trsm-trial.txt
  h100/lu-sm/variants-run6-grouped.txt
  h100/checks/lapack-dropin-gpu-check.txt  # "(an earlier run)"
  # README "The push leaf, committed 2026-11-23": commands, no commit.
  h100/lu-profile/push-leaf-ncu-details.txt
  h100/lu-profile/push-leaf-ncu-sass.csv
  h100/lu-profile/push-leaf-phases-committed.txt
  h100/lu-profile/push-leaf-phases-v3.txt
  # README "lu against cuSOLVER, earlier": "the variants measured on the
  # way" (scripts/lu-variants.sh, the variants step), separate calls.
  h100/lu-graph/variants-driver-python.txt
  h100/lu-graph/variants-gather-nb.txt
  h100/lu-graph/variants-graph.txt
  h100/lu-graph/variants-xgetrf-trial.txt
  # README: "the step crossover_variants, the commit before the kept buffer".
  h100/checks/crossover-variants.txt
  # README names the Python section's commands for h100/python-*.csv, but
  # that section's commit (1de2bf9) is later than this file's last change.
  h100/python-overhead.csv
  # Not in the README; bench/notes/batched-cuda.md cites the folder only.
  h100/batched-thread/test-auto.txt
  h100/batched-thread/test-thread.txt
)

root=${1:?source dir}
cd "$root"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
manifest=bench/results/PROVENANCE.tsv
bad=0
fail() { echo "$*"; bad=$((bad + 1)); }

# A commit named for FILE (by WHAT) exists and is an ancestor of HEAD.
check_commit() {
  local file=$1 what=$2 c=$3
  if ! git cat-file -e "$c^{commit}" 2>/dev/null; then
    fail "$file: $what names commit $c, which this repository does not have"; return 1
  elif ! git merge-base --is-ancestor "$c" HEAD; then
    fail "$file: $what names commit $c, which is not an ancestor of HEAD"; return 1
  fi
}

declare -A tracked=() header=() row=() allowed=()
while IFS= read -r -d '' f; do tracked[$f]=1; done \
  < <(git ls-files -z 'bench/results/**.csv' 'bench/results/**.txt')
for a in "${unestablished[@]}"; do allowed[bench/results/$a]=1; done

# Header lines.
for f in "${!tracked[@]}"; do
  head -5 "$f" | grep -q '^# commit' || continue
  c=$(head -5 "$f" | sed -n 's/^# commit:\{0,1\} \{1,\}\([0-9a-fA-F]\{7,40\}\).*/\1/p' | head -1)
  if [ -z "$c" ]; then fail "$f: a '# commit' line without a commit hash"; continue; fi
  header[$f]=$c
  check_commit "$f" "its header" "$c" || true
done

# The manifest.
if [ -f "$manifest" ]; then
  IFS= read -r first < "$manifest" || true
  [ "$first" = $'path\tcommit\tcommand\twhere' ] \
    || fail "$manifest: first line must be path<TAB>commit<TAB>command<TAB>where"
  n=1
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    at="$manifest:$n"
    # Split by hand: read with IFS=tab would merge empty fields.
    tabs=${line//[^$'\t']/}
    p=${line%%$'\t'*} r=${line#*$'\t'}
    c=${r%%$'\t'*} r=${r#*$'\t'}
    cmd=${r%%$'\t'*} where=${r#*$'\t'}
    if [ "${#tabs}" -ne 3 ] || [ -z "$p" ] || [ -z "$cmd" ] || [ -z "$where" ]; then
      fail "$at: needs exactly 4 non-empty tab-separated fields"; continue
    fi
    [[ $c =~ ^[0-9a-f]{7,12}$ ]] || { fail "$at: commit '$c' is not 7-12 hex digits"; continue; }
    if [ -z "${tracked[$p]-}" ]; then
      fail "$at: $p is not a tracked result file (bench/results/**.csv, **.txt)"; continue
    fi
    [ -z "${row[$p]-}" ] || { fail "$at: second row for $p"; continue; }
    row[$p]=$c
    [ -z "${header[$p]-}" ] || fail "$at: $p has a header line (commit ${header[$p]}); remove its row"
    [ -z "${allowed[$p]-}" ] || fail "$at: $p is on the unestablished list; remove it there"
    check_commit "$p" "$manifest" "$c" || continue
    # The row's commit precedes the commit that stored the file.
    if git diff --quiet HEAD -- "$p"; then
      last=$(git log -1 --format=%H -- "$p")
      if [ -n "$last" ] && ! git merge-base --is-ancestor "$c" "$last"; then
        fail "$at: $p was last committed in ${last:0:12}, which does not descend from $c"
      fi
    fi
  done < <(tail -n +2 "$manifest")
else
  fail "$manifest: missing"
fi

# Every result file has its provenance; the allow-list names only files
# that still lack it.
for f in "${!tracked[@]}"; do
  [ -n "${header[$f]-}" ] || [ -n "${row[$f]-}" ] || [ -n "${allowed[$f]-}" ] \
    || fail "$f: no '# commit' header line and no $manifest row"
done
for a in "${!allowed[@]}"; do
  [ -n "${tracked[$a]-}" ] || fail "$a: on the unestablished list but not a tracked result file"
  [ -z "${header[$a]-}" ] || fail "$a: on the unestablished list but has a header line; remove it there"
done

echo "${#tracked[@]} result files: ${#header[@]} with a header line, ${#row[@]} in $manifest," \
  "${#unestablished[@]} unestablished (listed in this script); $bad problem(s)"
[ "$bad" -eq 0 ]
