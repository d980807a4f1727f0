#!/usr/bin/env python3
"""End-to-end checks of `linsolve bench|metrics|roofline` at tiny sizes.

usage: check_cli.py LINSOLVE CASE WORKDIR
Runs the command, parses its CSV or JSON, and asserts real numbers: every
row of a dense method passes the scaled-residual test, GFLOP/s agrees with
LAPACK's flop count over the printed time, speedups equal the time ratios,
the metrics tables reproduce Pattam's thread counts, the roofline's
intensity column follows (2+2L)/(bytes per element). Exit status: number of
failures; 77 = skipped (backend absent or not implemented yet).
"""
import csv
import io
import json
import math
import os
import subprocess
import sys

FAIL = 0


def check(ok, what):
    global FAIL
    print(("ok      " if ok else "FAILED  ") + what)
    if not ok:
        FAIL += 1


def run(cmd, expect_rc=(0,)):
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=240)
    check(p.returncode in expect_rc, "%s -> exit %d" % (" ".join(cmd[1:]), p.returncode))
    if p.returncode not in expect_rc:
        print(p.stdout[-3000:], p.stderr[-3000:])
    return p.stdout


def csv_tables(text):
    """Split '# title' + header + rows blocks; '# key: value' lines are skipped."""
    tables, cur = {}, None
    for line in text.splitlines():
        if line.startswith("# ") and ":" not in line:
            cur = line[2:].strip()
            tables[cur] = []
        elif line.startswith("#") or not line.strip():
            continue
        elif cur is not None:
            tables[cur].append(line)
    # keyed by the title without its "(source ...)" tail
    return {k.split(" (")[0]: list(csv.DictReader(io.StringIO("\n".join(v)))) for k, v in tables.items()}


def flops_gesv(n, r):
    return 2 * n**3 / 3 - n**2 / 2 + 5 * n / 6 + r * (2 * n * n - n)


def check_bench_rows(rows, expect_methods):
    seen = set()
    for r in rows:
        n, nrhs = int(r["N"]), int(r["NRHS"])
        tag = "n=%d nrhs=%d %s %s %s" % (n, nrhs, r["method"], r["backend"], r["prec"])
        seen.add(r["method"])
        t = float(r["time(s)"])
        check(r["status"] == "ok", tag + " status ok")
        check(t > 0 and float(r["time+xfer(s)"]) >= t, tag + " times positive, xfer >= device")
        if r["method"] != "bicgstab":
            res = float(r["residual"])
            check(0 <= res <= 30, tag + " scaled residual %g <= 30" % res)
            g = flops_gesv(n, nrhs) / t / 1e9
            check(abs(float(r["GFLOP/s"]) - g) <= 0.01 + 0.02 * g,
                  tag + " GFLOP/s %s = gesv flops / time (%.3f)" % (r["GFLOP/s"], g))
    for m in expect_methods:
        check(m in seen, "rows for method %s" % m)


def bench_csv(exe, work):
    out = run([exe, "bench", "--sizes", "16,33", "--methods", "lu,gj1,gj2", "--nrhs", "1,3",
               "--precision", "single,double", "--repeat", "2", "--format", "csv"])
    t = csv_tables(out)
    rows = t.get("bench", [])
    # 2 sizes x 2 precisions x 2 nrhs x (ge + lapack baselines + 3 methods)
    check(len(rows) == 2 * 2 * 2 * 5, "bench csv: %d rows (want 40)" % len(rows))
    check_bench_rows(rows, ["ge", "lapack", "lu", "gj1", "gj2"])
    # without cuSOLVER rows there is no lu-vs-cusolver ratio to print
    check(all(r.get("cusolver/lu") == "-" for r in rows), "cusolver/lu column, '-' on cpu")
    # speedup-vs-cpu equals t(ge cpu) / t(case, with transfers)
    base = {}
    for r in rows:
        if r["method"] == "ge":
            base[(r["N"], r["NRHS"], r["prec"])] = float(r["time+xfer(s)"])
    for r in rows:
        b = base.get((r["N"], r["NRHS"], r["prec"]))
        if b and r["speedup-vs-cpu"] != "-":
            want = b / float(r["time+xfer(s)"])
            check(abs(float(r["speedup-vs-cpu"]) - want) <= 0.01 + 0.01 * want,
                  "speedup-vs-cpu %s = %.3f for %s n=%s" % (r["speedup-vs-cpu"], want, r["method"], r["N"]))


def bench_json(exe, work):
    path = os.path.join(work, "bench.json")
    run([exe, "bench", "--sizes", "20", "--methods", "all", "--repeat", "1", "--format", "json",
         "-o", path])
    doc = json.load(open(path))
    check("cpu" in doc["machine"], "machine header names the cpu")
    # the OpenBLAS baseline is named for what it is: the library behind dgetrf_
    check("dgetrf_ from" in str(doc["machine"].get("cpu_lapack", "")),
          "machine header names the LAPACK library (%s)" % doc["machine"].get("cpu_lapack"))
    rows = doc["tables"][0]["rows"]
    check(len(rows) >= 5, "json: %d rows for --methods all" % len(rows))
    check_bench_rows([{k: ("-" if v is None else str(v)) for k, v in r.items()} for r in rows],
                     ["ge", "lapack", "lu"])


def bench_limit(exe, work):
    out = run([exe, "bench", "--sizes", "40,400", "--methods", "lu", "--repeat", "1",
               "--time-limit", "0.0001", "--format", "csv"])
    rows = csv_tables(out).get("bench", [])
    check(not any(r["N"] == "400" for r in rows), "n=400 skipped under a tiny --time-limit")
    check(any(r["N"] == "40" and r["method"] == "lu" for r in rows), "n=40 measured")
    check("n=400 ge cpu double skipped: predicted" in out and "not extrapolated" in out,
          "the skip is said, not extrapolated")


def bench_opencl(exe, work):
    cmd = [exe, "bench", "--sizes", "16,40", "--backends", "opencl", "--precision",
           "single,double", "--repeat", "2", "--no-baseline", "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240,
                       env=dict(os.environ, OMP_WAIT_POLICY="passive"))
    if p.returncode == 5 and "backend opencl unavailable" in p.stderr:
        print("skip: " + p.stderr.strip()[:300])
        sys.exit(77)
    # 4: some case failed (those the device cannot run are sorted out below)
    check(p.returncode in (0, 4), "bench --backends opencl -> exit %d" % p.returncode)
    doc = json.loads(p.stdout)
    notes = doc["notes"]
    # A case the device cannot run (no FP64 on the device, a method not
    # built yet) is reported as LS_EUNSUPPORTED; those rows are left out,
    # every other row must be right.
    unsupported = set()
    for x in notes:
        if "EUNSUPPORTED" in x or "EUNAVAIL" in x:
            head = x.split(":")[0].split()  # "n=16 lu opencl double"
            if len(head) == 4:
                unsupported.add((head[0][2:], head[1], head[3]))
    rows = [{k: ("-" if v is None else str(v)) for k, v in r.items()} for r in doc["tables"][0]["rows"]]
    rows = [r for r in rows if (r["N"], r["method"], r["prec"]) not in unsupported]
    if not rows:
        print("skip: nothing the OpenCL backend supports yet: " + " ".join(notes)[:300])
        sys.exit(77)
    check(len(rows) + len(unsupported) == 4, "opencl: %d rows + %d unsupported (want 4)" % (len(rows), len(unsupported)))
    check_bench_rows(rows, [])


def lu_vs_cusolver(exe, work):
    """Without a CUDA GPU: exit 5 with a clear message. With one: the CSV
    opens with the commit and command lines, then the header with the
    first-call and replay columns, one row per (n, precision), each ratio =
    cusolver / that lu column."""
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    path = os.path.join(work, "lvc.csv")
    if os.path.exists(path):
        os.remove(path)
    bad = subprocess.run([exe, "bench", "--csv", path], capture_output=True, text=True, env=env)
    check(bad.returncode == 1 and "--lu-vs-cusolver" in bad.stderr, "--csv alone is refused (exit 1)")
    bad = subprocess.run([exe, "bench", "--lu-vs-cusolver", "--repeat", "3"], capture_output=True,
                         text=True, env=env)
    check(bad.returncode == 1 and "at least 5" in bad.stderr, "--repeat 3 is refused (exit 1)")
    help_ = subprocess.run([exe, "bench", "--help"], capture_output=True, text=True, env=env)
    check("--lu-vs-cusolver" in help_.stdout and "--csv FILE" in help_.stdout, "--help documents both")
    p = subprocess.run([exe, "bench", "--lu-vs-cusolver", "--sizes", "64,100", "--precision",
                        "double,single", "--repeat", "5", "--csv", path, "--format", "csv"],
                       capture_output=True, text=True, env=env, timeout=240)
    if p.returncode == 5:
        check("needs a CUDA GPU" in p.stderr and "[" not in p.stderr,
              "no CUDA: says it needs a CUDA GPU, no source location (%s)" % p.stderr.strip()[:200])
        check(not os.path.exists(path), "no CUDA: no CSV file written")
        check(not [f for f in os.listdir(work) if f.endswith(".tmp")], "no CUDA: no temporary file left")
        return
    if "is not in this plugin" in p.stdout:
        print("skip: the plugin has no getrs on the device yet")
        sys.exit(77)
    check(p.returncode == 0, "lu-vs-cusolver on a GPU -> exit %d %s" % (p.returncode, p.stderr[-500:]))
    lines = open(path).read().splitlines()
    check(len(lines) > 2 and lines[0].startswith("# commit: ") and
          lines[1].startswith("# command: linsolve bench --lu-vs-cusolver"),
          "CSV opens with the commit and the command %r" % lines[:2])
    lines = [ln for ln in lines if not ln.startswith("#")]
    check(lines[:1] == ["n,precision,lu_first_ms,lu_replay_ms,cusolver_ms,ratio_first,ratio_replay"],
          "CSV header %r" % lines[:1])
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    check([(r["n"], r["precision"]) for r in rows] ==
          [("64", "double"), ("64", "single"), ("100", "double"), ("100", "single")], "CSV rows")
    for r in rows:
        for col, lu in (("ratio_first", "lu_first_ms"), ("ratio_replay", "lu_replay_ms")):
            want = float(r["cusolver_ms"]) / float(r[lu])
            check(abs(float(r[col]) - want) <= 2e-3 + 2e-3 * want,
                  "n=%s %s %s %s = cusolver_ms / %s" % (r["n"], r["precision"], col, r[col], lu))
    table = csv_tables(p.stdout).get("lu vs cusolver", [])
    check(len(table) == 4 and all(t["status"] == "ok" and float(t["lu_residual"]) <= 30
                                  for t in table), "table: 4 rows, residuals <= 30")


def metrics(exe, work):
    out = run([exe, "metrics", "--backend", "cpu", "--cgma-sizes", "50,80,100,200",
               "--breakdown-sizes", "20,41", "--repeat", "2", "--format", "json"])
    doc = json.loads(out)
    tabs = {t["title"].split(" (")[0]: t["rows"] for t in doc["tables"]}
    cg = tabs.get("lu-seed CGMA and thread counts", [])
    seed = {50: 44249, 80: 177199, 100: 343499, 200: 2706999}
    check(len(cg) == 4, "CGMA table rows")
    for r in cg:
        n = int(r["N"])
        check(int(r["threads(seed swaps)"]) == seed[n], "n=%d threads %s = Pattam's %d" %
              (n, r["threads(seed swaps)"], seed[n]))
        check(0 < r["swaps"] < n, "n=%d actual row exchanges %d" % (n, r["swaps"]))
        ideal = (2 * n**3 / 3 - n**2 / 2 + 5 * n / 6 + 2 * n * n - n) / (2 * n * n + 2 * n)
        check(abs(r["CGMA(ideal)"] - ideal) < 0.01, "n=%d CGMA(ideal) %.2f" % (n, ideal))
    br = tabs.get("timing breakdown read / factor / solve", [])
    check(len(br) == 2, "breakdown rows")
    for r in br:
        check(r["status"] == "ok" and r["read(s)"] > 0, "breakdown n=%s ok, read time %g" % (r["N"], r["read(s)"]))
        total = r["read%"] + r["factor%"] + r["solve%"] + r["xfer%"]
        check(abs(total - 100) < 1.0 or r["factor%"] == 0, "breakdown n=%s percentages add up (%.1f)" % (r["N"], total))
    check(any("occupancy table not produced" in x for x in doc["notes"]),
          "occupancy on cpu says why it is absent")


def roofline(exe, work):
    out = run([exe, "roofline", "--backend", "cpu", "--n", "48", "--max-loop", "20", "--method-n",
               "24", "--repeat", "1", "--dir", work, "--format", "csv"])
    t = csv_tables(out)
    sw = t.get("intensity sweep", [])
    check([int(r["loop"]) for r in sw] == [1, 2, 5, 10, 20], "sweep loop counts 1..20")
    for r in sw:
        L, n = int(r["loop"]), int(r["n"])
        want = n * n * (2 + 2 * L) / ((2 * n * n + 2 * n) * 8)
        check(abs(float(r["intensity"]) - want) <= 1e-3 * want, "loop %d intensity %.4g" % (L, want))
        check(float(r["GFLOP/s"]) > 0, "loop %d rate > 0" % L)
    meth = t.get("methods on the roofline", [])
    check(any(r["method"] == "lu" and r["status"] == "ok" for r in meth), "lu placed on the roof")
    for f in ("roofline_sweep.csv", "roofline_methods.csv", "roofline.gp"):
        check(os.path.getsize(os.path.join(work, f)) > 0, f + " written")
    lines = open(os.path.join(work, "roofline_sweep.csv")).read().splitlines()
    check(lines[0].startswith("# commit: ") and lines[1].startswith("# command: linsolve roofline"),
          "roofline_sweep.csv opens with the commit and the command")
    rows = list(csv.DictReader(ln for ln in lines if not ln.startswith("#")))
    check(len(rows) == 5, "roofline_sweep.csv has 5 rows")
    if subprocess.run(["sh", "-c", "command -v gnuplot"], capture_output=True).returncode == 0:
        png = os.path.join(work, "roofline.png")
        check(os.path.exists(png) and open(png, "rb").read(4) == b"\x89PNG", "roofline.png drawn")


if __name__ == "__main__":
    exe, case, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    globals()[case](exe, work)
    print("%d failure(s)" % FAIL)
    sys.exit(min(FAIL, 76))
