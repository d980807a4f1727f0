#!/usr/bin/env bash
# The recipes of docs/architecture.md ("Adding a method, adding a backend"),
# carried out on a copy of the source tree, so that the number of existing
# files the page says a change touches is the number it does touch.
#
# KIND = method: tests/house/fake_method/ holds a CPU method (house-lu, LU
# through the CPU's getrf + getrs) as its new file(s) under files/ and a
# unified diff of its edits to existing files (method.patch).
# KIND = backend: tests/house/fake_backend/ holds a plugin backend (relay:
# the required slots and entry points, solving with the CPU reference) the
# same way (backend.patch). recipe_KIND.sh names the targets to build and
# the checks that the method or backend works in the patched tree.
#
# Steps: copy the tracked and untracked-but-not-ignored files of SOURCE_DIR
# to a temporary folder, apply the patch (it may only modify existing files)
# and add the new files (none may exist yet), build the CPU-only library, the
# CLI and the targets the patch's test edits reach (-Werror), run them, and
# compare the number of files the patch modifies with the number stated on
# the page's line marked <!-- house_new_KIND -->. The house target is at most
# HOUSE_TARGET files (4 for a method, 3 for a backend); a count above it is
# reported, not failed, since the page states the true number and reaching
# the target is a refactor of its own; a page that states another number
# than the count fails.
#
# Usage: recipe.sh SOURCE_DIR MATRICES_DIR method|backend
# Exit 77 (skip) outside a git checkout: the copy is made from git's file list.
set -euo pipefail
root=$(cd "${1:?source dir}" && pwd)
matrices=${2:?matrices dir}
kind=${3:?method or backend}
here=$(cd "$(dirname "$0")" && pwd)
case "$kind" in
method) fake=$here/fake_method target=4 ;;
backend) fake=$here/fake_backend target=3 ;;
*) echo "unknown kind $kind (method or backend)"; exit 2 ;;
esac
patch=$fake/$kind.patch
cd "$root"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }

failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
t_start=$(date +%s)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ls-house-$kind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src"
# The working tree as the build sees it (files deleted but not yet committed
# are skipped).
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    xargs -0 cp -P --parents -t "$src"

# The patch modifies existing files only; the method's or backend's new
# files come from files/ and must not exist yet.
touched=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$patch" | sort -u)
grep -q '^new file mode\|^deleted file mode\|^rename from' "$patch" &&
    fail "$patch creates, deletes or renames files: new files belong in $fake/files/"
new_files=$(cd "$fake/files" && find . -type f | sed 's|^\./||' | sort)
for f in $new_files; do
    [ -e "$src/$f" ] && fail "$f already exists in the tree: not a new file"
done
# No enclosing repository for git apply: it patches the copy as plain files.
if ! (cd "$src" && GIT_CEILING_DIRECTORIES=$tmp git apply -C1 --whitespace=nowarn "$patch"); then
    fail "$patch no longer applies: update it to the code (and the count on docs/architecture.md)"
    exit 1
fi
cp -R "$fake/files/." "$src/"

# Build the CPU-only library, the CLI and the targets the test edits reach.
build=$tmp/build
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
log=$tmp/build.log
if ! cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLS_WERROR=ON \
    -DLS_WITH_CUDA=OFF -DLS_WITH_OPENCL=OFF -DLS_WITH_MPI=OFF \
    -DLS_MATRICES_DIR="$matrices" "${launcher[@]}" >"$log" 2>&1; then
    tail -30 "$log"; fail "configure of the patched tree"; exit 1
fi
source "$here/recipe_$kind.sh" # defines targets and run_checks
if ! cmake --build "$build" -j2 --target "${targets[@]}" >>"$log" 2>&1; then
    grep -E 'error|warning' "$log" | head -30; fail "build of the patched tree"; exit 1
fi
t_built=$(date +%s)
echo "patched, configured and built in $((t_built - t_start)) s (${targets[*]})"

export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
run_checks

# The count against the page.
count=$(printf '%s\n' "$touched" | grep -c .)
echo "existing files the $kind touches outside its own new files: $count"
printf '  %s\n' $touched
echo "its new files:"
printf '  %s\n' $new_files
line=$(grep -F "<!-- house_new_$kind -->" "$root/docs/architecture.md" || true)
stated=$(printf '%s\n' "$line" | sed -n 's/.*[^0-9]\([0-9][0-9]*\) existing files.*/\1/p' | head -1)
if [ -z "$stated" ]; then
    fail "docs/architecture.md has no line marked <!-- house_new_$kind --> stating 'N existing files'"
elif [ "$stated" != "$count" ]; then
    fail "docs/architecture.md states $stated existing files for a new $kind; the recipe touches $count"
else
    echo "docs/architecture.md states $stated: agrees"
fi
if [ "$count" -gt "$target" ]; then
    echo "note: $count is above the house target of $target files for a new $kind"
fi
echo "$kind recipe: $failures failure(s), $(($(date +%s) - t_start)) s"
[ "$failures" -eq 0 ]
