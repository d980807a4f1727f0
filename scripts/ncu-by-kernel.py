#!/usr/bin/env python3
"""Sums an ncu --csv run of gpu__time_duration.sum by kernel name.

    ncu-by-kernel.py NCU.csv [TITLE] [TOP]

One line a kernel, most time first: launches, total ms, share, us each."""
import collections
import csv
import sys

path = sys.argv[1]
title = sys.argv[2] if len(sys.argv) > 2 else path
top = int(sys.argv[3]) if len(sys.argv) > 3 else 15
rows = [line for line in open(path) if line.startswith('"')]
tot, cnt = collections.Counter(), collections.Counter()
for r in csv.DictReader(rows):
    if r.get("Metric Name") == "gpu__time_duration.sum":
        k = r["Kernel Name"].split("(")[0][:70]
        tot[k] += float(r["Metric Value"].replace(",", ""))
        cnt[k] += 1
all_ns = sum(tot.values()) or 1.0
print("kernel time by name, %s: total %.3f ms in %d kernels" % (title, all_ns / 1e6, sum(cnt.values())))
for k, v in tot.most_common(top):
    print("%-70s %6d launches %10.3f ms %5.1f %%  %8.2f us each"
          % (k, cnt[k], v / 1e6, 100 * v / all_ns, v / cnt[k] / 1e3))
