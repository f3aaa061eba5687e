#!/usr/bin/env python3
"""Measurement outside the broadcast (seed 002, spec adaptive-bcast-grid.md sections 3, 4.4;
docs/grid-bcast.md, "Measurement outside the broadcast"): autocoll-netprobe writes the network
file, grid_adaptive (tests/mpi/grid_bcast.c at p = 4, 2 clusters) reads it through
AUTOCOLL_GRID_NET. AUTOCOLL_PROBE_PERIOD=0 is set throughout, so a broadcast that measured in
its own call would sweep at every call.

1. autocoll-netprobe (p = 4, two processes per cluster, 2 sweeps) writes a file of version >= 1
   with 2 clusters and 4 nodes; bad --clusters values exit with 2 and a message.
2. With that file the data are correct, every root takes the file's version, no call sweeps.
3. The matrices come from the file: with every bandwidth of a hand-made file divided by 10, the
   model cost of G2's tree for the 2 MiB call grows between 5 and 10 times.
4. A corrupt file is refused with "path:line: reason", a file of 3 clusters with the count, a
   missing file is reported once per root; the data stay correct and no call sweeps.

usage: grid_netfile.py AC_GRID_BCAST AUTOCOLL_NETPROBE MPIEXEC [mpiexec flags...]
"""
import os
import re
import subprocess
import sys
import tempfile

from checks import check, finish

PROG, PROBE, MPIEXEC, FLAGS = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
NP = 4
MAP = "map:0.0,0.0,1.1,1.1"


def mpirun(np, argv, **env):
    e = dict(os.environ, AUTOCOLL_PROBE_BYTES="4096", AUTOCOLL_PROBE_REPS="3", **env)
    p = subprocess.run([MPIEXEC] + FLAGS + ["-np", str(np)] + argv, env=e, timeout=240,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def bcast(net, verbose="1"):
    rc, out = mpirun(NP, [PROG], AUTOCOLL_BCAST="grid_adaptive", AUTOCOLL_GRID_CLUSTERS=MAP,
                     AUTOCOLL_PROBE_PERIOD="0", AUTOCOLL_SA_BUDGET="evals",
                     AUTOCOLL_VERBOSE=verbose, AUTOCOLL_GRID_NET=net)
    check(rc == 0 and re.search(r"grid_bcast p=4 grid_adaptive: \d+ cases per rank, 0 failed",
                                out) is not None, f"data correct (exit code {rc})")
    check("grid: sweep" not in out, "no sweep in any broadcast")
    return out


def g2_cost_2mib(out):
    costs = [float(m.group(1)) for m in re.finditer(
        r"grid_adaptive: call \d+ root 0, 2097152 B: model \S+ s, G2 (\S+) s", out)]
    return costs[0] if costs else None


with tempfile.TemporaryDirectory() as tmp:
    net = os.path.join(tmp, "grid.net")

    # 1. the probe processes
    rc, out = mpirun(NP, [PROBE, "--clusters", MAP, "--out", net, "--period", "0",
                          "--sweeps", "2"])
    text = open(net).read() if os.path.exists(net) else ""
    ver = re.search(r"^version (\d+)$", text, re.M)
    check(rc == 0 and ver and int(ver.group(1)) >= 1 and "\nclusters 2\n" in text and
          "\nnodes 4\n" in text, f"autocoll-netprobe wrote the file (exit code {rc})")
    for bad, why in (("map:0.0,0.0,1.1", "3 entries for 4 ranks"),
                     ("map:0.0,0.0,0.0,0.0", "1 cluster: nothing to measure"),
                     ("0.0,1.1,0.0,1.1", "expected map:S.C")):
        rc, out = mpirun(NP, [PROBE, "--clusters", bad, "--out", net + ".x", "--sweeps", "1"])
        check(rc != 0 and why in out and not os.path.exists(net + ".x"),
              f"--clusters {bad}: refused ({why})")

    # 2. the broadcasts take it
    out = bcast(net)
    taken = set(re.findall(r"autocoll\[(\d+)\]: grid: network file \S+ version (\d+) taken", out))
    check({int(r) for r, _ in taken} == set(range(NP)) and
          all(v == ver.group(1) for _, v in taken), f"every root took version {ver.group(1)}")

    # 3. the values are the file's
    fast = re.sub(r"^timestamp .*$", "timestamp 0", text, flags=re.M)
    fast = re.sub(r"^(L \d+)( \S+)+$", lambda m: m.group(1) + " 0.001 0.002"
                  if m.group(1) == "L 0" else m.group(1) + " 0.002 0.001", fast, flags=re.M)
    fast = re.sub(r"^(B \d+)( \S+)+$", lambda m: m.group(1) + " 1e8 1e7"
                  if m.group(1) == "B 0" else m.group(1) + " 1e7 1e8", fast, flags=re.M)
    slow = re.sub(r"^(B \d+) (\S+) (\S+)$",
                  lambda m: f"{m.group(1)} {float(m.group(2)) / 10:g} {float(m.group(3)) / 10:g}",
                  fast, flags=re.M)
    costs = []
    for k, body in enumerate((fast, slow)):
        path = os.path.join(tmp, f"hand{k}.net")
        open(path, "w").write(body)
        costs.append(g2_cost_2mib(bcast(path, verbose="2")))
    check(None not in costs and 5 < costs[1] / costs[0] < 10.5,
          f"G2's model cost at 2 MiB follows the file's bandwidths: {costs}")

    # 4. files that are not used
    bad = os.path.join(tmp, "bad.net")
    open(bad, "w").write(text.replace("\nnodes 4\n", "\nnodes four\n"))
    out = bcast(bad)
    line = text.split("\n").index("nodes 4") + 1
    check(re.search(re.escape(bad) + rf":{line}: .*; file not used", out) is not None,
          "a corrupt file is refused with path:line: reason")
    three = os.path.join(tmp, "three.net")
    rc, _ = mpirun(3, [PROBE, "--clusters", "map:0.0,1.1,2.2", "--out", three, "--sweeps", "1"])
    out = bcast(three)
    check(rc == 0 and len(re.findall(r"3 clusters, the communicator has 2; file not used",
                                     out)) == NP, "a file of 3 clusters is refused by every root")
    out = bcast(os.path.join(tmp, "none.net"))
    check(len(re.findall(r"no such file yet", out)) == NP, "a missing file: one message per root")

finish("grid_netfile")
