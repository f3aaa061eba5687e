#!/usr/bin/env python3
"""The controlled-imbalance study's pieces (sim/run --study imbalance, docs/reports/imbalance.md):

1. sim/run's imbalance runs really delay the ranks in simulation: alltoall 1 KiB on the 16-node
   switch, linear and pair, 3 calls, F = 1 and F = 129 in one output directory (two run keys).
   Each rank waits u F T before the call (u in [0, 1), mean 1/2): at F = 129 the average
   per-node time must grow by at least 129 T / 4 over F = 1 (the early half waits for the late
   one); without the host speed passed to SMPI the waits shrink 50,000-fold and the times agree.
2. sim/imbalance_report.py on hand-made results: rankings, spec 6.4 classes, ratios to the
   oracle and the adaptive engine's choices, values counted by hand.

usage: imbalance_study.py REPO BUILD OUTDIR
"""
import csv
import os
import shutil
import subprocess
import sys

repo, build, out = sys.argv[1:4]
fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += not cond


shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)

# 1. Real delays in simulation.
for f in (1, 129):
    r = subprocess.run([sys.executable, os.path.join(repo, "sim", "run"), "--no-build",
                        "--build", build, "--out", os.path.join(out, "sim"), "--platform",
                        "ethernet16", "--np", "16", "--coll", "alltoall", "--sizes", "1024:1024",
                        "--variants", "inst=linear+pair", "--iters", "3", "--timing",
                        f"imbalance:{f}", "-j", "1"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    check(r.returncode == 0, f"sim/run imbalance:{f} (status {r.returncode})")
    if r.returncode:
        print(r.stdout)
raw = os.path.join(out, "sim", "raw")
t = {}
for name in sorted(os.listdir(raw)):
    if name.endswith(".csv"):
        for row in csv.DictReader(open(os.path.join(raw, name))):
            t[(row["instance"], row["mechanism"])] = float(row["avg_s"])
check(len(t) == 4, f"two run keys, four rows ({len(t)})")
# T of 1 KiB on the 100 Mbit/s switch: at least the wire time of 1 KiB (82 us).
T = 1024 * 8 / 100e6
for inst in ("linear", "pair"):
    a, b = t.get((inst, "imbalance:1"), 0), t.get((inst, "imbalance:129"), 0)
    check(b - a > 129 * T / 4,
          f"{inst}: F = 129 adds {1e3 * (b - a):.2f} ms over F = 1 (> 129 T / 4 = "
          f"{1e3 * 129 * T / 4:.2f} ms)")

# 2. The report on hand-made results.
sys.path.insert(0, os.path.join(repo, "sim"))
import imbalance_report  # noqa: E402

rows = []
hdr = ["platform", "placement", "variant", "nodes", "ppn", "coll", "instance", "bytes", "p",
       "mechanism", "iters", "min_s", "avg_s", "max_s", "valid"]
data = {1: {"native": 0.001, "pair": 0.002, "linear": 0.004, "lr": 0.003},
        129: {"native": 0.009, "pair": 0.012, "linear": 0.008, "lr": 0.010}}
for f, times in data.items():
    for inst, s in times.items():
        rows.append(["ethernet16", "seq", "inst=x", 16, 1, "allgather", inst, 1024, 16,
                     f"imbalance:{f}", 3, s, s, s, "yes"])
rows.append(["ethernet16", "seq", "adaptive", 16, 1, "allgather", "pair", 1024, 16,
             "imbalance:1", 60, 0, 0.0025, 0, "-"])
rows.append(["ethernet16", "seq", "adaptive", 16, 1, "allgather", "auto", 1024, 16,
             "imbalance:129", 60, 0, 0.012, 0, "-"])  # the choice comes from choices.csv
rows.append(["ethernet16", "seq", "inst=x", 16, 1, "allgather", "ring", 1024, 16,
             "imbalance:129", 3, 1e-4, 1e-4, 1e-4, "no"])  # invalid: must not become the oracle
res = os.path.join(out, "results.csv")
with open(res, "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(hdr)
    w.writerows(rows)
rep = os.path.join(out, "rep")
os.makedirs(rep)
cho = os.path.join(out, "choices.csv")
with open(cho, "w") as fh:
    fh.write("platform,placement,coll,bytes,mechanism,choice\n"
             "ethernet16,seq,allgather,1024,imbalance:129,lr\n")
md = open(imbalance_report.write(res, rep, cho)).read()
print(md)
check("| 1 | pair 2 | linear 8 |" in md,
      "ranking: pair first at F = 1, linear first at F = 129 (native left out, invalid ring too)")
check("| native (ompi) | 1 (×0.50) | 9 (×1.12) |" in md, "native shown apart")
check("| globally coordinated | pair 2 (×1.00) | pair 12 (×1.50) |" in md,
      "globally coordinated best and ratio")
check("| direct | linear 4 (×2.00) | linear 8 (×1.00) |" in md, "direct best and ratio")
check("| store-and-forward | lr 3 (×1.50) | lr 10 (×1.25) |" in md, "lr is store-and-forward")
check("| order | global < s&f < direct | direct < s&f < global |" in md,
      "class order reverses")
# The engine's oracle includes native: F = 1 native 1 ms, F = 129 linear 8 ms (max_s = avg_s).
check("| ethernet16:seq | allgather | 1 KiB | 129 | linear | lr | 3 / 4 | 1.25 | 1.25 | 1.50 "
      "| yes |" in md, "adaptive at F = 129: choice lr, rank 3 of 4, 1.25 x oracle, mean 1.50, changed")
check("| ethernet16:seq | allgather | 1 KiB | 1 | native | pair | 2 / 4 | 2.00 | 2.00 | 2.50 |  |"
      in md, "adaptive at F = 1: pair, second to native")
check("| 129 | 1 | 1.25 | 1.25 | 1.50 |" in md, "geometric means at F = 129")
# Sensitivity, F = 129 over F = 1: pair +10 ms, lr +7 ms, linear +4 ms (one member each).
check("| globally coordinated | 1 | 10 | 10 (pair) | 10 (pair) |" in md, "sensitivity: global")
check("| direct | 1 | 4 | 4 (linear) | 4 (linear) |" in md, "sensitivity: direct")
print(f"{fails} failed")
sys.exit(1 if fails else 0)
