"""The commit a benchmark ran from, for the first line of its CSV.

LS_GIT_COMMIT, when set, names it (a copied tree without .git, or one whose
.git is not the tree's own); otherwise `git describe --always --dirty` of
the checkout this file is in."""
import os
import subprocess


def commit():
    named = os.environ.get("LS_GIT_COMMIT")
    if named:
        return named
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "-C", here, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
