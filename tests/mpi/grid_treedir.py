#!/usr/bin/env python3
"""AUTOCOLL_GRID_TREE_DIR end to end (seed 002, spec adaptive-bcast-grid.md section 10.4;
docs/grid-bcast.md, "Tree files"): tests/mpi/grid_bcast.c at p = 4 with grid_adaptive forced,
a declared map of 2 sites, a sweep at every call and the advisor's budget in evaluations.

1. Empty folder: the data are correct; every root wrote the files of its buckets, named by its
   key; each file holds the tree the root kept in memory at its last search of that bucket
   (cost and matrix version equal to the advisor's last decision logged for that root and
   bucket, AUTOCOLL_VERBOSE=2); every root also wrote the network file of the matrix version
   of its last sweep.
2. Same folder again: every root reads its files back through the library's reader (none
   refused), and no search of a bucket that has a file starts without a stored tree (in run 1
   the first search of each bucket had none: "stored inf").
3. One file made a cycle: refused with "path:line: reason", not used, the data still correct.
4. A folder that cannot be written: one message per root, the data still correct.

usage: grid_treedir.py AC_GRID_BCAST MPIEXEC [mpiexec flags...]
"""
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish

PROG, MPIEXEC, FLAGS = sys.argv[1], sys.argv[2], sys.argv[3:]
NP = 4


def run(folder):
    env = dict(os.environ, AUTOCOLL_BCAST="grid_adaptive",
               AUTOCOLL_GRID_CLUSTERS="map:0.0,1.2,0.1,1.2", AUTOCOLL_PROBE_PERIOD="0",
               AUTOCOLL_PROBE_BYTES="4096", AUTOCOLL_PROBE_REPS="3", AUTOCOLL_SA_BUDGET="evals",
               AUTOCOLL_VERBOSE="2", AUTOCOLL_GRID_TREE_DIR=folder)
    p = subprocess.run([MPIEXEC] + FLAGS + ["-np", str(NP), PROG], env=env, timeout=240,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout
    check(p.returncode == 0 and re.search(r"grid_bcast p=4 grid_adaptive: \d+ cases per rank, 0 "
                                          r"failed", out) is not None,
          f"data correct (exit code {p.returncode})")
    return out


DECIDE = re.compile(r"autocoll\[(\d+)\]: grid_adaptive: root (\d+) bucket (\d+) matrices v(\d+): "
                    r"tree cost (\S+) s \(search \S+, stored (\S+), g2 \S+\)")
ACCOUNT = re.compile(r"autocoll\[(\d+)\]: grid: trees in \S+: (\d+) written, (\d+) read, "
                     r"(\d+) refused")


def files(folder):
    """{(root, bucket): {field: values}} of the folder's tree files."""
    got, names = {}, sorted(n for n in os.listdir(folder) if not n.endswith(".net"))
    bad = [n for n in names if not re.fullmatch(r"bcast-0{16}-n4-r\d+-b\d+\.tree", n)]
    check(not bad, f"{len(names)} file names are keys of MPI_COMM_WORLD at p = 4 {bad[:3]}")
    for name in names:
        m = re.fullmatch(r"bcast-0{16}-n4-r(\d+)-b(\d+)\.tree", name)
        if not m:
            continue
        path = os.path.join(folder, name)
        rec = {}
        for line in open(path):
            f = line.split()
            rec[f[0]] = f[1:]
        got[(int(m.group(1)), int(m.group(2)))] = rec
    return got


with tempfile.TemporaryDirectory() as tmp:
    folder = os.path.join(tmp, "trees")
    os.mkdir(folder)

    # 1. writing
    out = run(folder)
    stored = files(folder)
    check(sorted({r for r, _ in stored}) == list(range(NP)),
          f"every root wrote trees ({len(stored)} files)")
    last, first = {}, {}
    for m in DECIDE.finditer(out):
        key = (int(m.group(2)), int(m.group(3)))
        last[key] = (int(m.group(4)), m.group(5))
        first.setdefault(key, m.group(6))
    check(set(stored) == set(last), "one file per searched (root, bucket)")
    same = [k for k, rec in stored.items() if k in last and
            last[k] == (int(rec["matrix-version"][0]), "%.3g" % float(rec["cost"][0]))]
    check(len(same) == len(stored),
          f"{len(same)} of {len(stored)} files hold the last kept tree (version and cost)")
    check(all(first[k] == "inf" for k in stored), "run 1: first searches had no stored tree")
    check(len(ACCOUNT.findall(out)) == NP and all(int(w) > 0 and r == "0" and x == "0"
                                                  for _, w, r, x in ACCOUNT.findall(out)),
          "run 1: every root wrote, none read")

    # the matrices of every root's last sweep, as network files
    nets = {}
    for r in range(NP):
        path = os.path.join(folder, f"bcast-{0:016x}-n4-r{r}.net")
        nets[r] = open(path).read() if os.path.exists(path) else ""
    last_v = {int(m.group(1)): m.group(2) for m in re.finditer(
        r"autocoll\[(\d+)\]: grid: sweep \d+ at broadcast \d+ took .* matrix version (\d+)\)", out)}
    check(all(nets[r].startswith("autocoll-gridnet 1\n") and "\nclusters 3\n" in nets[r] and
              "\nnodes 4\n" in nets[r] and f"\nversion {last_v.get(r)}\n" in nets[r]
              for r in range(NP)),
          "every root wrote the network file of its last matrix version: " +
          ", ".join(f"rank {r} v{last_v.get(r)}" for r in range(NP)))

    # 2. reading back
    out = run(folder)
    acc = ACCOUNT.findall(out)
    check(len(acc) == NP and all(int(r) > 0 and x == "0" for _, _, r, x in acc),
          "run 2: every root read its files back, none refused: " +
          ", ".join(f"rank {k} read {r}" for k, _, r, _ in acc))
    first = {}
    for m in DECIDE.finditer(out):
        first.setdefault((int(m.group(2)), int(m.group(3))), m.group(6))
    cold = [k for k, v in first.items() if k in stored and v == "inf"]
    check(not cold, f"run 2: every search of a bucket with a file started from it ({cold[:4]})")

    # 3. a refused file
    root, b = sorted(stored)[0]
    path = os.path.join(folder, f"bcast-{0:016x}-n4-r{root}-b{b}.tree")
    text = open(path).read()
    open(path, "w").write(re.sub(r"^parent .*$", "parent -1 2 3 1", text, flags=re.M))
    out = run(folder)
    check(re.search(re.escape(path) + r":6: not a tree: .*; tree not used", out) is not None,
          "run 3: the file with a cycle is refused with path:line: reason")
    acc = {int(k): int(x) for k, _, _, x in ACCOUNT.findall(out)}
    check(acc.get(root) == 1 and sum(acc.values()) == 1, f"run 3: one refusal, at rank {root}")

    # 4. a folder that cannot be written
    out = run(os.path.join(tmp, "missing", "trees"))
    msgs = re.findall(r"AUTOCOLL_GRID_TREE_DIR: .*; no more files written", out)
    check(len(msgs) == NP, f"run 4: unwritable folder reported once per root ({len(msgs)})")

finish("grid_treedir")
