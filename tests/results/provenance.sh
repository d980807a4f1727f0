#!/usr/bin/env bash
# Every committed result file that records the commit it was made from
# (a first-lines "# commit: X" or "# commit X;" as the benchmarks write)
# names a commit of this history: X must be an ancestor of HEAD, so no
# result can claim code that is not here. Files without such a line are
# older results, described by bench/results/README.md. Exit 77 (skip)
# outside a git checkout (an exported tree has no history to check).
set -euo pipefail
root=${1:?source dir}
cd "$root"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
bad=0 checked=0
while IFS= read -r -d '' f; do
  c=$(head -5 "$f" | sed -n 's/^# commit:\{0,1\} \{1,\}\([0-9a-fA-F]\{7,40\}\).*/\1/p' | head -1)
  [ -n "$c" ] || continue
  checked=$((checked + 1))
  if ! git cat-file -e "$c^{commit}" 2>/dev/null; then
    echo "$f: records commit $c, which this repository does not have"; bad=$((bad + 1))
  elif ! git merge-base --is-ancestor "$c" HEAD; then
    echo "$f: records commit $c, which is not an ancestor of HEAD"; bad=$((bad + 1))
  fi
done < <(git ls-files -z 'bench/results/**.csv' 'bench/results/**.txt')
echo "$checked result files record their commit; $bad do not name an ancestor of HEAD"
[ "$bad" -eq 0 ]
