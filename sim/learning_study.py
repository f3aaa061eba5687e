"""The learning study (sim/run --study learning): what the adaptive engine's learning costs in
short runs, every call timed, on simulated clusters (SimGrid SMPI, deterministic time). Writes
OUT/learning.md, the tables of docs/reports/learning.md.

Three parts, each run under every learner variant of VARIANTS in the same invocation:
  keys     one collective at one size, K back-to-back calls on a fresh communicator
           (tests/adapt/adapt_sim.c, as tests/adapt/learn_bench.sh): total / (K x oracle) and
           / (K x the MPI library's algorithm), the oracle being the best single instance
           measured in a run of its own (adapt_sim --oracle-cache);
  sweep    one collective at several sizes, K calls per size, one size after the other on one
           communicator (as scripts/demo part 2; sim/app_learn.c --sequential);
  demo     the sweep of scripts/demo part 2 (Yahoo, allgather) at 4 of its sizes;
  app      several collectives and sizes interleaved, R rounds of one call per point
           (sim/app_learn.c), against the same calls with the MPI library's algorithm forced
           (SMPI's ompi selector) and against the sum of the points' oracles.
Python 3 standard library only; called by sim/run.
"""
import math
import os
import re
import subprocess

# name -> environment (on top of AUTOCOLL_MODE's default, adaptive). Every variant sets the
# same variables with values of the same length: the settings travel from rank 0 to the others
# at start-up, and a longer environment shifts every rank's simulated time a little, which is
# enough to change a racing decision in a run of one key (bcast 256 B, 200 calls, 16-node
# switch: 2.99 or 4.18 x the oracle with the same settings spelled differently).
VARIANTS = [
    ("classic", {"AUTOCOLL_LEARN": "classic", "AUTOCOLL_TRANSFER": "0",
                 "AUTOCOLL_ROOTED_PROBE": "0"}),
    ("race-base", {"AUTOCOLL_LEARN": "race", "AUTOCOLL_TRANSFER": "0",
                   "AUTOCOLL_ROOTED_PROBE": "0"}),
    ("race+rooted", {"AUTOCOLL_LEARN": "race", "AUTOCOLL_TRANSFER": "0",
                     "AUTOCOLL_ROOTED_PROBE": "1"}),
    ("race", {"AUTOCOLL_LEARN": "race", "AUTOCOLL_TRANSFER": "1",  # the defaults
              "AUTOCOLL_ROOTED_PROBE": "0"}),
]
if os.environ.get("AC_LEARN_VARIANTS"):  # a subset, comma separated
    VARIANTS = [v for v in VARIANTS if v[0] in os.environ["AC_LEARN_VARIANTS"].split(",")]

# platform -> (xml, hostfile, p)
PLATS = {
    "ethernet16": ("ethernet16.xml", "ethernet16.hosts", 16),
    "faraj32b": ("faraj32.xml", "faraj32b.hosts", 32),
    "smp8w": ("smp8w.xml", "smp8w.hosts", 32),
    "yahoo": ("yahoo.xml", "yahoo.seq.hosts", 64),
}

KEYS = {
    "ethernet16": ["allreduce:64", "allreduce:4096", "allgather:16384", "alltoall:2048",
                   "bcast:256", "bcast:65536", "reduce:65536"],
    "faraj32b": ["allreduce:4096", "allgather:1024", "reduce:4096", "bcast:65536"],
    "smp8w": ["allreduce:256", "allgather:1024", "bcast:4096", "reduce:65536"],
}
KEYS_SMALL = {
    "ethernet16": ["allreduce:4096", "bcast:65536", "reduce:65536"],
    "smp8w": ["allreduce:256", "bcast:4096"],
}
SWEEPS = [  # (platform, collective, sizes, calls per size)
    ("ethernet16", "bcast", [256 << i for i in range(9)], 30),
    ("ethernet16", "allreduce", [64 << i for i in range(7)], 30),
    ("smp8w", "reduce", [1024 << i for i in range(7)], 30),
]
# scripts/demo part 2 (Yahoo, p = 64, allgather, 30 calls per size), at 4 of its 13 sizes: an
# oracle there forces some 40 instances at p = 64 (about 3 minutes per size on 2 cores).
DEMO = [("yahoo", "allgather", [64, 1024, 4096, 16384], 30)]
APPS = [  # (platform, points, rounds)
    ("ethernet16", ["allreduce:64", "allreduce:256", "allreduce:4096", "bcast:16384",
                    "bcast:65536", "reduce:65536", "allgather:1024"], (10, 20, 50)),
    ("smp8w", ["allreduce:256", "allreduce:4096", "bcast:4096", "bcast:16384",
               "reduce:65536", "allgather:1024"], (10, 20, 50)),
]
SIM = ["--cfg=smpi/simulate-computation:no", "--cfg=smpi/coll-selector:ompi",
       "--log=root.thres:critical"]


def smpirun(plat, argv, env, log):
    xml, hosts, p = PLATS[plat]
    d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "platforms")
    cmd = ["smpirun", "-np", str(p), "-platform", os.path.join(d, xml), "-hostfile",
           os.path.join(d, hosts)] + SIM + argv
    r = subprocess.run(cmd, env=dict(os.environ, **env), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    with open(log, "a") as f:
        f.write(" ".join(f"{k}={v}" for k, v in env.items()) + " " + " ".join(cmd) + "\n")
        f.write(r.stdout)
    return r.stdout


def oracle(plat, pt, adapt_sim, out, log):
    """(best single instance time, its name, the MPI library's time) of a point, measured once
    in a run of its own and cached."""
    c, n = pt.split(":")
    path = os.path.join(out, "oracle", f"{plat}.{c}.{n}")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if not os.path.exists(path):
        smpirun(plat, [adapt_sim, "--coll", c, "--bytes", n, "--calls", "1", "--oracle-reps", "4",
                       "--oracle-cache", path], {}, log)
    rows = [line.split() for line in open(path) if line.strip()]
    best = min(rows, key=lambda r: float(r[0]))
    nat = [float(r[0]) for r in rows if r[1] == "native"]
    return float(best[0]), best[1], nat[0] if nat else float("nan")


def gm(xs):
    xs = [x for x in xs if x > 0 and not math.isnan(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def f2(x):
    return "-" if x is None or math.isnan(x) else f"{x:.2f}"


def run_keys(plats, ks, adapt_sim, out, log, md):
    for plat in plats:
        md.append(f"\n### keys: {plat} (p = {PLATS[plat][2]}), one point per run\n")
        md.append("total of the K calls / (K x oracle), in brackets / (K x the MPI library's "
                  "algorithm); probe calls after the slash\n")
        md.append("| point | K | " + " | ".join(v for v, _ in VARIANTS) + " |")
        md.append("|---|---|" + "---|" * len(VARIANTS))
        ratio = {}
        for pt in KEYS_SEL[plat]:
            oracle(plat, pt, adapt_sim, out, log)
            c, n = pt.split(":")
            for k in ks:
                cells = []
                for v, env in VARIANTS:
                    o = smpirun(plat, [adapt_sim, "--coll", c, "--bytes", n, "--calls", str(k),
                                       "--oracle-reps", "4", "--oracle-cache",
                                       os.path.join(out, "oracle", f"{plat}.{c}.{n}")], env, log)
                    m = re.search(r"^TOTAL .* engine/oracle (\S+) engine/native (\S+) "
                                  r"probe-calls (\d+)", o, re.M)
                    if not m:
                        cells.append("failed")
                        continue
                    r1, r2 = float(m.group(1)), float(m.group(2))
                    ratio.setdefault((k, v), []).append((r1, r2))
                    cells.append(f"{r1:.2f} ({r2:.2f}) / {m.group(3)}")
                md.append(f"| {c} {n} B | {k} | " + " | ".join(cells) + " |")
        for k in ks:
            md.append(f"| **geomean** | {k} | " + " | ".join(
                f"**{f2(gm([a for a, _ in ratio.get((k, v), [])]))}** "
                f"({f2(gm([b for _, b in ratio.get((k, v), [])]))})" for v, _ in VARIANTS) + " |")


def app_run(plat, points, rounds, seq, app, env, log):
    argv = [app, "--rounds", str(rounds)] + (["--sequential"] if seq else []) + points
    o = smpirun(plat, argv, env, log)
    m = re.search(r"^APP (\S+) bad (\d+)", o, re.M)
    if not m or m.group(2) != "0":
        return None
    return float(m.group(1))


def run_apps(parts, app, adapt_sim, out, log, md, seq):
    what = "sweep" if seq else "app"
    for plat, points, counts in parts:
        orc = {pt: oracle(plat, pt, adapt_sim, out, log) for pt in points}
        md.append(f"\n### {what}: {plat} (p = {PLATS[plat][2]}): {', '.join(points)}"
                  + (" one size after the other" if seq else " interleaved") + "\n")
        md.append("| calls per point | oracle sum | ompi | " + " | ".join(
            v for v, _ in VARIANTS) + " |")
        md.append("|---|---|---|" + "---|" * len(VARIANTS))
        for r in counts:
            o = r * sum(t for t, _, _ in orc.values())
            nat = app_forced(plat, points, r, seq, app, log)
            cells = []
            for v, env in VARIANTS:
                t = app_run(plat, points, r, seq, app, env, log)
                cells.append("failed" if t is None else
                             f"{t / o:.2f} ({t / nat:.2f})" if nat else f"{t / o:.2f}")
            md.append(f"| {r} | {o * 1e3:.1f} ms | "
                      f"{'failed' if nat is None else f'{nat / o:.2f}'} | " + " | ".join(cells)
                      + " |")


def app_forced(plat, points, rounds, seq, app, log):
    argv = [app, "--rounds", str(rounds), "--force", "native"] + \
        (["--sequential"] if seq else []) + points
    o = smpirun(plat, argv, {}, log)
    m = re.search(r"^APP (\S+) bad (\d+)", o, re.M)
    return float(m.group(1)) if m and m.group(2) == "0" else None


KEYS_SEL = {}


def build(repo, build_dir):
    """ac_adapt_sim (CMake target) and BUILD/sim/ac_app_learn_sim (the library sources and
    sim/app_learn.c with smpicc, as cmake/AcSmpi.cmake builds the other SMPI binaries)."""
    subprocess.run(["cmake", "--build", build_dir, "--target", "ac_adapt_sim"], check=True,
                   stdout=subprocess.DEVNULL)
    adapt_sim = os.path.join(build_dir, "tests", "adapt", "ac_adapt_sim")
    app = os.path.join(build_dir, "sim", "ac_app_learn_sim")
    srcs = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(repo, "src"))
                  for f in fs if f.endswith(".c"))
    deps = srcs + [os.path.join(repo, "sim", "app_learn.c")]
    if not os.path.exists(app) or any(os.path.getmtime(s) > os.path.getmtime(app) for s in deps):
        os.makedirs(os.path.dirname(app), exist_ok=True)
        subprocess.run(["smpicc", "-std=gnu11", "-O1", "-g0", "-DAC_SMPI", "-D_GNU_SOURCE",
                        "-I" + os.path.join(repo, "include"), "-I" + os.path.join(repo, "src"),
                        "-I" + os.path.join(build_dir, "gen")] + deps +
                       ["-Wl,-Bsymbolic", "-ljansson", "-ldl", "-lm", "-o", app], check=True)
    return adapt_sim, app


def main(repo, build_dir, out, scale, parts):
    os.makedirs(out, exist_ok=True)
    log = os.path.join(out, "learning." + "-".join(parts) + ".log")
    adapt_sim, app = build(repo, build_dir)
    KEYS_SEL.update(KEYS_SMALL if scale == "small" else KEYS)
    md = ["# Learning study (sim/run --study learning)", "",
          "Variants: " + "; ".join(f"`{v}` " + (" ".join(f"{k}={x}" for k, x in e.items()) or
                                                 "(defaults)") for v, e in VARIANTS),
          "Cells: / oracle (/ the MPI library's algorithm, SMPI's ompi selector)."]
    if "keys" in parts:
        run_keys(list(KEYS_SEL), (30, 50) if scale == "small" else (30, 50, 200), adapt_sim, out,
                 log, md)
    if "sweep" in parts:
        sw = [(p, [f"{c}:{n}" for n in sizes], (k,)) for p, c, sizes, k in SWEEPS]
        run_apps(sw[:1] if scale == "small" else sw, app, adapt_sim, out, log, md, True)
    if "demo" in parts:
        run_apps([(p, [f"{c}:{n}" for n in sizes], (k,)) for p, c, sizes, k in DEMO], app,
                 adapt_sim, out, log, md, True)
    if "app" in parts:
        run_apps(APPS[:1] if scale == "small" else APPS, app, adapt_sim, out, log, md, False)
    path = os.path.join(out, "learning.md" if parts == ["keys", "sweep", "app"] else
                        "learning." + "-".join(parts) + ".md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    print(f"sim/run: learning study in {path} (log {log})")
    return 0
