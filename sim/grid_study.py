#!/usr/bin/env python3
"""The grid broadcast study of spec adaptive-bcast-grid.md section 16 (seed 002, Gupta &
Vadhiyar, §3): the 60-call application (sim/grid_app.c, target ac_grid_app_sim) on grid64 and
grid64-loaded (the same C3 load profile for every variant), p = 64, ranks by cluster, root 8 (a
C2 host, as in the paper), for every variant:

  grid_adaptive, grid_g2, grid_greedy, binomial   autocoll instances (AUTOCOLL_BCAST=...)
  ompi, mpich                                     the MPI library's bcast under SMPI's selector
  grid_adaptive_npS                               grid_adaptive on the matrices of
                                                  autocoll-netprobe's processes (16 more ranks,
                                                  two per cluster, on the clusters' first two
                                                  hosts; a sweep every S simulated seconds),
                                                  read from AUTOCOLL_GRID_NET: no sweep in a call

Writes BUILD/simrun/grid-study/<platform>_<variant>.csv (call,start_s,bytes,time_s), prints the
per-call table and the statistics of spec section 14 (a call is loaded when a load episode of
the profile is active at its start; improvement = 100 (T_g2 - T_x) / T_g2; min/mean/max over
loaded and unloaded calls), writes grid-study.csv (every variant side by side) and, when
gnuplot is found, grid-study.png (per-call completion times on the loaded platform).

The advisor's budget is counted in evaluations (AUTOCOLL_SA_BUDGET=evals, bit-exact reruns) unless
AUTOCOLL_SA_BUDGET is set in the environment.

usage: sim/grid_study.py [--build DIR] [--variants a,b,...] [--platforms a,b] [--jobs N]
                         [--report-only]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAT = os.path.join(REPO, "sim", "platforms")
# As sim/run runs the grid: plain CM02 factors, no RTT-unfairness term (see sim/README.md).
GRID_OPTS = ["--cfg=smpi/lat-factor:0:1", "--cfg=smpi/bw-factor:0:1", "--cfg=network/weight-S:0",
             "--cfg=smpi/simulate-computation:no", "--log=root.thres:critical"]
VARIANTS = ["grid_adaptive", "grid_g2", "grid_greedy", "binomial", "ompi", "mpich",
            "grid_adaptive_np300", "grid_adaptive_np60"]
MAP = "map:" + ",".join(f"{c // 2}.{c}" for c in range(8) for _ in range(8))
PROBE_MAP = "map:" + ",".join(f"{c // 2}.{c}" for c in range(8) for _ in range(2))


def load_episodes(profile):
    """[(start, end)] of the profile's reduced-bandwidth intervals (end None: to the end)."""
    pts = []
    for ln, line in enumerate(open(profile), 1):
        f = line.split()
        if not f or f[0].startswith("#") or f[0] == "LOOPAFTER":
            continue
        if len(f) != 2:
            sys.exit(f"{profile}:{ln}: expected '<date> <value>'")
        pts.append((float(f[0]), float(f[1])))
    base = max(v for _, v in pts)
    eps, start = [], None
    for t, v in pts:
        if v < base and start is None:
            start = t
        elif v >= base and start is not None:
            eps.append((start, t))
            start = None
    if start is not None:
        eps.append((start, None))
    return eps


def loaded_at(eps, t):
    return any(s <= t and (e is None or t < e) for s, e in eps)


def run_one(build, out, plat, variant):
    csv = os.path.join(out, f"{plat}_{variant}.csv")
    # the advisor's budget in evaluations (bit-exact reruns) unless AUTOCOLL_SA_BUDGET says
    env = dict(os.environ, AUTOCOLL_GRID_CLUSTERS=MAP, AUTOCOLL_VERBOSE="1",
               AUTOCOLL_SA_BUDGET=os.environ.get("AUTOCOLL_SA_BUDGET", "evals"))
    sel, nprocs, hosts, extra = "ompi", 64, os.path.join(PLAT, "grid64.hosts"), []
    probe = re.fullmatch(r"grid_adaptive_np([0-9.]+)", variant)
    if variant in ("ompi", "mpich"):
        sel, env["AUTOCOLL_BCAST"] = variant, "native"
    elif probe:
        net = os.path.join(out, f"{plat}_{variant}.net")
        if os.path.exists(net):
            os.remove(net)
        hosts = os.path.join(out, "grid80.hosts")
        with open(hosts, "w") as f:
            f.write(open(os.path.join(PLAT, "grid64.hosts")).read() +
                    "".join(f"C{c}-{i}\n" for c in range(1, 9) for i in range(2)))
        env["AUTOCOLL_BCAST"], env["AUTOCOLL_GRID_NET"], nprocs = "grid_adaptive", net, 80
        extra = ["--probes", "16", "--probe-map", PROBE_MAP, "--probe-net", net,
                 "--probe-period", probe.group(1)]
    else:
        env["AUTOCOLL_BCAST"] = variant
    cmd = ["smpirun", "-np", str(nprocs), "-platform", os.path.join(PLAT, plat + ".xml"),
           "-hostfile", hosts] + GRID_OPTS + \
          [f"--cfg=smpi/coll-selector:{sel}", os.path.join(build, "tests", "sim", "ac_grid_app_sim"),
           "--out", csv] + extra
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    with open(csv + ".log", "w") as f:
        f.write(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    if r.returncode != 0:
        sys.exit(f"sim/grid_study.py: {plat} {variant} failed (see {csv}.log)")
    return csv


def read_csv(path):
    rows = []
    for line in open(path).read().split("\n")[1:]:
        if line:
            c, s, b, t = line.split(",")
            rows.append((int(c), float(s), int(b), float(t)))
    return rows


def adv_cpu(log):
    m = re.search(r"grid: (\d+) broadcasts, (\d+) sweeps, (\d+) searches, advisor CPU ([0-9.]+) s",
                  open(log).read())
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4))) if m else None


def sweep_calls(log):
    """Timed calls (0-based) during which a measurement sweep ran: broadcast N of the log is
    call N - 2 (broadcast 1 is the untimed first call)."""
    return {int(m.group(1)) - 2: float(m.group(2)) for m in
            re.finditer(r"grid: sweep \d+ at broadcast (\d+) took ([0-9.]+) s", open(log).read())}


def stats(vals):
    return (min(vals), sum(vals) / len(vals), max(vals)) if vals else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--platforms", default="grid64-loaded,grid64")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()
    out = os.path.join(os.path.abspath(a.build), "simrun", "grid-study")
    os.makedirs(out, exist_ok=True)
    variants, plats = a.variants.split(","), a.platforms.split(",")
    if not a.report_only:
        jobs = [(p, v) for p in plats for v in variants]
        with ThreadPoolExecutor(a.jobs) as ex:
            list(ex.map(lambda pv: run_one(os.path.abspath(a.build), out, *pv), jobs))
    eps = load_episodes(os.path.join(PLAT, "grid64-C3.profile"))
    data = {(p, v): read_csv(os.path.join(out, f"{p}_{v}.csv")) for p in plats for v in variants}
    for p in plats:
        print(f"== {p}: completion time per call (s)")
        print("call start_s bytes load " + " ".join(variants))
        ref = data[(p, variants[0])]
        for i, (c, s, b, _) in enumerate(ref):
            ld = "L" if p.endswith("loaded") and loaded_at(eps, s) else "-"
            print(f"{c} {s:.1f} {b} {ld} " + " ".join(f"{data[(p, v)][i][3]:.4f}" for v in variants))
        if "grid_g2" in variants:
            print(f"== {p}: improvement over grid_g2, 100 (T_g2 - T) / T_g2, % (min / mean / max)")
            g2 = data[(p, "grid_g2")]
            fmt = lambda x: ("n=%d %.2f / %.2f / %.2f" % ((len(x),) + stats(x))) if x else "n=0"
            for v in variants:
                if v == "grid_g2":
                    continue
                sw = sweep_calls(os.path.join(out, f"{p}_{v}.csv.log"))
                lo, un, lo2, un2 = [], [], [], []
                for (c, s, b, t), (_, s2, _, t2) in zip(data[(p, v)], g2):
                    imp = 100 * (t2 - t) / t2
                    ld = p.endswith("loaded") and loaded_at(eps, s2)
                    (lo if ld else un).append(imp)
                    if c not in sw:
                        (lo2 if ld else un2).append(imp)
                tot = sum(r[3] for r in data[(p, v)]) / sum(r[3] for r in g2)
                print(f"{v}: all calls: loaded {fmt(lo)}; unloaded {fmt(un)}; "
                      f"total time / g2 {tot:.3f}")
                if sw:
                    print(f"{v}: calls without a sweep: loaded {fmt(lo2)}; unloaded {fmt(un2)}; "
                          f"sweeps at calls {sorted(sw)} took "
                          + ", ".join(f"{sw[k]:.2f}" for k in sorted(sw)) + " s")
        for v in variants:
            acc = adv_cpu(os.path.join(out, f"{p}_{v}.csv.log"))
            if acc:
                print(f"{p} {v}: {acc[0]} broadcasts, {acc[1]} sweeps, {acc[2]} searches, advisor "
                      f"CPU {acc[3]:.4f} s ({1e3 * acc[3] / max(acc[0], 1):.3f} ms per broadcast)")
    # Side-by-side file and plot.
    side = os.path.join(out, "grid-study.csv")
    with open(side, "w") as f:
        f.write("call,start_s,bytes,loaded," + ",".join(f"{p}:{v}" for p in plats for v in variants) + "\n")
        ref = data[(plats[0], variants[0])]
        for i, (c, s, b, _) in enumerate(ref):
            f.write(f"{c},{s:.3f},{b},{int(loaded_at(eps, s))}," +
                    ",".join(f"{data[(p, v)][i][3]:.6f}" for p in plats for v in variants) + "\n")
    if shutil.which("gnuplot"):
        png = os.path.join(out, "grid-study.png")
        cols = {v: 5 + variants.index(v) for v in variants}  # first platform's columns
        shade = "".join(f"set object {k + 1} rect from {max(0, s)},graph 0 to {e if e else 1e9},graph 1 "
                        "fc rgb '#eeeeee' fs solid behind\n" for k, (s, e) in enumerate(eps))
        script = (f"set terminal png size 1100,600 noenhanced\nset output '{png}'\nset datafile separator ','\n"
                  "set key top left\nset logscale y\nset xlabel 'start of the call (simulated s)'\n"
                  f"set ylabel 'completion time (s)'\nset title 'grid64-loaded, 60-call application, "
                  f"p = 64 (grey: C3 uplink loaded)'\nset xrange [0:*]\n{shade}plot " +
                  ", ".join(f"'{side}' every ::1 using 2:{cols[v]} with linespoints title '{v}'"
                            for v in variants) + "\n")
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        print("plot:", png)
    print("per-call table:", side)


if __name__ == "__main__":
    main()
