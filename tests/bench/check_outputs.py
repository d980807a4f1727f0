#!/usr/bin/env python3
"""What bench, metrics, roofline and gen do with their outputs and options,
at sizes that take well under a second each.

usage: check_outputs.py LINSOLVE CASE WORKDIR
Cases:
  full_disk       a write that fails (LS_FAULT_WRITE=1, /dev/full, standard
                  output on /dev/full): exit 2, the message names the path,
                  the old file is intact, no temporary file is left, a
                  device is never removed
  checked_first   an -o that cannot be written is refused before any
                  measurement (exit 2 at once, though the work asked for
                  would take minutes)
  strict_numbers  malformed or out-of-range numbers are usage errors (exit 1)
  gen_caps        gen refuses a size over its cap at once, in little memory
  unavailable     a backend named in --backends that is missing: exit 5, a
                  message saying so, nothing measured or written (skipped
                  where the backend exists)
  no_location     messages carry no [file.c:line] unless --verbose
Exit status: number of failures; 77 = skipped.
"""
import os
import re
import resource
import stat
import subprocess
import sys
import time

FAIL = 0
LOCATION = re.compile(r"\[[\w./-]+\.(c|cu|h):\d+\]")


def check(ok, what):
    global FAIL
    print(("ok      " if ok else "FAILED  ") + what)
    if not ok:
        FAIL += 1


def run(cmd, env=None, stdout=subprocess.PIPE, timeout=120):
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    e.pop("LS_DEBUG", None)
    e.update(env or {})
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True, env=e,
                       timeout=timeout)
    p.seconds = time.monotonic() - t0
    return p


def temporaries(folder):
    return [f for f in os.listdir(folder) if f.endswith(".tmp")]


# Small runs of each command; "{out}" is replaced by the output path.
def commands(exe, work):
    rdir = os.path.join(work, "roof")
    return {
        "bench": [exe, "bench", "--sizes", "8", "--repeat", "1", "--methods", "lu",
                  "--format", "csv", "-o", "{out}"],
        "metrics": [exe, "metrics", "--backend", "cpu", "--cgma-sizes", "50",
                    "--breakdown-sizes", "20", "--gemm-sizes", "64", "--repeat", "1",
                    "-o", "{out}"],
        "roofline": [exe, "roofline", "--backend", "cpu", "--n", "16", "--max-loop", "1",
                     "--method-n", "8", "--methods", "lu", "--repeat", "1", "--dir", rdir,
                     "-o", "{out}"],
        "gen": [exe, "gen", "random", "-n", "4", "-o", "{out}"],
        "gen-grid": [exe, "gen", "poisson2d", "--grid", "3", "-o", "{out}"],
    }


def with_out(cmd, out):
    return [out if a == "{out}" else a for a in cmd]


def full_disk(exe, work):
    for name, cmd in commands(exe, work).items():
        path = os.path.join(work, name + ".out")
        with open(path, "w") as f:
            f.write("old content\n")
        p = run(with_out(cmd, path), env={"LS_FAULT_WRITE": "1"})
        check(p.returncode == 2, "%s: a failed write exits 2 (got %d)" % (name, p.returncode))
        check(path in p.stderr and "No space left" in p.stderr,
              "%s: the message names %s and the reason (%s)" % (name, path, p.stderr.strip()[:200]))
        check(open(path).read() == "old content\n", "%s: the old file is intact" % name)
        check(not temporaries(work), "%s: no temporary file left %s" % (name, temporaries(work)))
        if os.path.exists("/dev/full"):
            p = run(with_out(cmd, "/dev/full"))
            check(p.returncode == 2 and "/dev/full" in p.stderr,
                  "%s -o /dev/full: exit 2 naming it (got %d: %s)" % (name, p.returncode,
                                                                      p.stderr.strip()[:200]))
            check(stat.S_ISCHR(os.stat("/dev/full").st_mode), "%s: /dev/full is still there" % name)
    # roofline's CSV files in --dir are kept whole too
    rdir = os.path.join(work, "roof")
    sweep = os.path.join(rdir, "roofline_sweep.csv")
    with open(sweep, "w") as f:
        f.write("old sweep\n")
    run(with_out(commands(exe, work)["roofline"], os.path.join(work, "r.txt")),
        env={"LS_FAULT_WRITE": "1"})
    check(open(sweep).read() == "old sweep\n", "roofline: the old roofline_sweep.csv is intact")
    check(not temporaries(rdir), "roofline: no temporary file left in --dir")
    # standard output is checked as well
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            p = run([exe, "bench", "--sizes", "8", "--repeat", "1", "--methods", "lu"], stdout=full)
        check(p.returncode == 2 and "<stdout>" in p.stderr,
              "bench > /dev/full: exit 2 naming <stdout> (got %d: %s)" % (p.returncode,
                                                                        p.stderr.strip()[:200]))


def checked_first(exe, work):
    bad = os.path.join(work, "no-such-folder", "x.csv")
    slow = {
        # minutes of work each, were it started
        "bench": [exe, "bench", "--sizes", "3000", "--repeat", "1000", "--methods", "ge", "-o", bad],
        "bench --csv": [exe, "bench", "--lu-vs-cusolver", "--sizes", "32768", "--csv", bad],
        "metrics": [exe, "metrics", "--backend", "cpu", "--breakdown-sizes", "4000",
                    "--cgma-sizes", "4096", "--repeat", "1000", "-o", bad],
        "roofline": [exe, "roofline", "--backend", "cpu", "--n", "4000", "--max-loop", "50000",
                     "--repeat", "1000", "--dir", work, "-o", bad],
        "gen": [exe, "gen", "random", "-n", "20000", "-o", bad],
    }
    for name, cmd in slow.items():
        p = run(cmd, timeout=60)
        check(p.returncode == 2 and bad in p.stderr and p.seconds < 10,
              "%s: unwritable -o refused first (exit %d in %.1f s: %s)"
              % (name, p.returncode, p.seconds, p.stderr.strip()[:200]))
    check(not os.path.exists(os.path.dirname(bad)), "nothing was created")


def strict_numbers(exe, work):
    cases = [
        ["bench", "--repeat", "3abc"], ["bench", "--repeat", "0"], ["bench", "--repeat", ""],
        ["bench", "--repeat", " 3"], ["bench", "--repeat", "1e3"], ["bench", "--rotate", "2x"],
        ["bench", "--time-limit", "1s"], ["bench", "--time-limit", "nan"],
        ["bench", "--baseline-time-limit", "-1"], ["bench", "--sizes", "16x"],
        ["bench", "--sizes", "+16"], ["bench", "--nrhs", "1.5"],
        ["bench", "--batched", "--repeat", "3abc"], ["bench", "--batched", "--batch-max", "9q"],
        ["bench", "--batched", "--sizes", "20000"],
        ["bench", "--mixed-vs-cusolver", "--repeat", "3abc"],
        ["bench", "--lu-vs-cusolver", "--repeat", "7x"],
        ["metrics", "--n", "10k"], ["metrics", "--repeat", "3abc"],
        ["metrics", "--cgma-sizes", "50,x"], ["metrics", "--breakdown-sizes", "100000"],
        ["roofline", "--n", "48x"], ["roofline", "--max-loop", "1e3"],
        ["roofline", "--method-n", "-5"], ["roofline", "--repeat", ""],
        ["gen", "random", "-n", "4x"], ["gen", "random", "-n", "4", "--seed", "3abc"],
        ["gen", "poisson2d", "--grid", "3abc"], ["gen", "poisson2d", "--grid", "3", "--seed", "1x"],
        ["gen", "poisson2d", "--grid", "3", "--cond", "big"], ["gen", "poisson2d", "--grid", "3x"],
    ]
    for args in cases:
        p = run([exe] + args, timeout=30)
        check(p.returncode == 1 and p.stderr.strip() != "" and p.stdout == "",
              "%s -> exit %d (want 1, usage) %s" % (" ".join(repr(a) if not a or " " in a else a
                                                              for a in args),
                                                   p.returncode, p.stderr.strip()[:120]))


def gen_caps(exe, work):
    out = os.path.join(work, "big.mtx")
    for args in (["poisson3d", "--grid", "100000x100000x100000"],
                 ["poisson2d", "--grid", "99999999999999999999"],
                 ["poisson3d", "--grid", "2000x2000x1000"],
                 ["poisson2d", "-n", "100000000000000"],
                 ["random", "-n", "65537"],
                 ["random", "-n", "10", "--rhs", "10000000"]):
        p = run([exe, "gen"] + args + ["-o", out], timeout=30)
        check(p.returncode == 1 and p.seconds < 2 and ("2147483647" in p.stderr or "range" in p.stderr),
              "gen %s refused at once (exit %d in %.2f s: %s)" % (" ".join(args), p.returncode,
                                                                 p.seconds, p.stderr.strip()[:150]))
        check(not os.path.exists(out), "gen %s wrote nothing" % " ".join(args))
    rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    check(rss_mib < 200, "the largest of those processes peaked at %.0f MiB" % rss_mib)
    # the cap is the largest order linsolve reads back: INT_MAX unknowns
    help_ = run([exe, "gen", "--help"]).stdout
    check("2147483647" in help_ and "usage error" in help_, "gen --help states the cap")


def unavailable(exe, work):
    tried = 0
    for backend in ("cuda", "opencl"):
        out = os.path.join(work, "u-%s.csv" % backend)
        p = run([exe, "bench", "--backends", backend, "--sizes", "8", "--repeat", "1",
                 "--format", "csv", "-o", out])
        if p.returncode == 0:
            print("skip: the %s backend is here" % backend)
            continue
        tried += 1
        check(p.returncode == 5, "bench --backends %s without it: exit 5 (got %d)"
              % (backend, p.returncode))
        check("backend %s unavailable" % backend in p.stderr,
              "the message says so: %s" % p.stderr.strip()[:200])
        check(not os.path.exists(out) and not temporaries(work),
              "bench --backends %s: nothing written" % backend)
    p = run([exe, "bench", "--lu-vs-cusolver", "--sizes", "8"])
    if p.returncode != 5:
        print("skip: a CUDA GPU is here (lu-vs-cusolver exit %d)" % p.returncode)
    else:
        tried += 1
        check("needs a CUDA GPU" in p.stderr and p.stdout == "",
              "lu-vs-cusolver without a GPU: exit 5, says it needs one, prints no table")
    if not tried:
        sys.exit(77)


def no_location(exe, work):
    p = run([exe, "bench", "--lu-vs-cusolver", "--sizes", "8"])
    if p.returncode != 5:
        print("skip: a CUDA GPU is here; no failure message to look at")
        sys.exit(77)
    check(not LOCATION.search(p.stderr), "no [file.c:line] without --verbose: %s"
          % p.stderr.strip()[:200])
    v = run([exe, "bench", "--lu-vs-cusolver", "--sizes", "8", "--verbose"])
    check(v.returncode == 5, "--verbose changes no exit status")
    # the library may have no location to give (then there is nothing to show)
    if LOCATION.search(v.stderr + run([exe, "bench", "--lu-vs-cusolver", "--sizes", "8"],
                                      env={"LS_DEBUG": "1"}).stderr):
        check(LOCATION.search(v.stderr) is not None, "--verbose shows the location: %s"
              % v.stderr.strip()[:200])


if __name__ == "__main__":
    exe, case, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    globals()[case](exe, work)
    print("%d failure(s)" % FAIL)
    sys.exit(min(FAIL, 76))
