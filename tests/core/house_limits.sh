#!/usr/bin/env bash
# The house limits on the sources (docs/architecture.md): files stay small
# and folders readable, under src/, tools/, python/csrc/ and python/src/:
#  1. no source file (*.c *.h *.cu *.cuh *.cl *.py) has more than
#     MAX_LINES lines: split it by role instead;
#  2. no folder directly holds more than MAX_FILES files (of any kind):
#     give its files subfolders by role, each with a README.md.
# In a git checkout the files are git's (tracked, and new ones not ignored),
# so build outputs and caches in the tree do not count; elsewhere (a source
# tarball) every file is.
# Usage: house_limits.sh SOURCE_DIR [MAX_LINES [MAX_FILES]]
set -u
root=$1
max_lines=${2:-600}
max_files=${3:-25}
roots=(src tools python/csrc python/src)
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
cd "$root" || exit 1

# The files under the roots, one path a line, relative to SOURCE_DIR.
list_files() {
    if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        # --others without ignored ones: a file not yet added counts;
        # a deleted but still tracked one does not.
        git ls-files --cached --others --exclude-standard -- "${roots[@]}" |
            while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done
    else
        find "${roots[@]}" -type f 2>/dev/null
    fi
}
files=$(list_files | sort -u)
if [ -z "$files" ]; then
    fail "no files found under ${roots[*]}"
    echo "$failures failure(s)"
    exit 1
fi

# 1. long source files
sources=$(grep -E '\.(c|h|cu|cuh|cl|py)$' <<< "$files")
nsources=$(grep -c . <<< "$sources")
long=0
while IFS= read -r f; do
    n=$(wc -l < "$f")
    if [ "$n" -gt "$max_lines" ]; then
        echo "  $f: $n lines"
        long=$((long + 1))
    fi
done <<< "$sources"
if [ "$long" -gt 0 ]; then
    fail "$long source file(s) over $max_lines lines (above)"
else
    echo "sources: $nsources files, none over $max_lines lines"
fi

# 2. crowded folders: the files of each folder, counted by the folder
# that directly holds them.
crowded=0
folders=$(sed -E 's|/[^/]*$||' <<< "$files" | sort | uniq -c | sort -k2)
while read -r count dir; do
    if [ "$count" -gt "$max_files" ]; then
        echo "  $dir/: $count files"
        crowded=$((crowded + 1))
    fi
done <<< "$folders"
nfolders=$(grep -c . <<< "$folders")
if [ "$crowded" -gt 0 ]; then
    fail "$crowded folder(s) directly hold more than $max_files files (above)"
else
    echo "folders: $nfolders, none directly holds more than $max_files files"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
