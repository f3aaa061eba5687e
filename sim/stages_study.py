"""The stage-breakdown study (sim/run --study stages): seed 003 (Bongo et al.) §4 and §6, spec
allreduce-trees.md §7 and §10 (Tables 2-4), simulated with SimGrid SMPI on the 8W (4 x 8-way)
and 4W (8 x 4-way) clusters, one rank per CPU.

autocoll-gsum (spec §8) is built with smpicc together with the library sources (as
cmake/AcSmpi.cmake builds the other SMPI binaries) into BUILD/sim/ac_gsum_sim and run with
collective tracing (AUTOCOLL_TRACE=collectives): every call of the tree leaves its t1..t4
records (src/trace/trace_stage.c). autocoll-report (the native build's, BUILD/autocoll-report)
then forms every rank's path and prints the stage tables (Table 2 form, the slowest rank), the
per-part means per rank (Tables 3 and 4) and the root's arrival/departure matrix (Table 1); with
-t it draws the timemap. This script runs the trees of STAGE_RUNS at 4 B and 256 B, keeps each
report in OUT/stages-detail/, and writes OUT/stages.md: the simulated tables side by side with the
paper's numbers (the spec's §10 copies of Tables 2 and 3), and the timemaps as PNGs in OUT/.
A hand-written OUT/stages-discussion.md, when present, is appended verbatim (as sim/report does
for the other studies).

Simulated time is global (MPI_WTIME_IS_GLOBAL): network edges are exact one-way times and both
identities hold to the nanosecond; computation is not simulated, so every stage that is only
CPU work (gred down and up latencies, core) is close to zero here, unlike the paper's
200 MHz Pentium Pro figures. Python 3 standard library only; called by sim/run.
"""
import os
import re
import shutil
import subprocess

from report_studies import _finish as finish_report

# (platform label, xml, hostfile, p, trees: (tree spec or preset, role))
STAGE_RUNS = [
    ("8W", "smp8w.xml", "smp8w.hosts", 32,
     [("binary8W", "binary, the paper's best on 8W"), ("flat", "nary8W, the initial tree")]),
    ("4W", "smp4w.xml", "smp4w.hosts", 32,
     [("binary4W", "binary"), ("split4W-2", "the paper's best on 4W")]),
]
SIZES = (4, 256)
ITERS = 250  # 2 x 250 calls per run: the report leaves the first 10 out (spec §7.1 sampling)
SIM = ["--cfg=smpi/simulate-computation:no", "--cfg=smpi/coll-selector:ompi",
       "--log=root.thres:critical"]

# The paper's numbers (spec allreduce-trees.md §10.1, Tables 2 and 3: binary8W, thread 17 on
# another host and thread 0 on the root host; µs).
PAPER_T2 = [
    ("host L0 down latency", 6), ("host L0 up latency", 25), ("host L0 departure wait", 25),
    ("cluster-root L1 down latency", 7), ("cluster-root L1 up latency", 17),
    ("cluster-root L1 departure wait", 11), ("proxy wrapper latency", 333),
    ("core wrapper latency", 11), ("time per allreduce", 680)]
PAPER_T3 = {  # part -> (thread 0, thread 17)
    "down, with arrival wait": (409, 320), "down, no arrival wait": (45, 212),
    "up": (233, 360), "host subtree, no arrival wait": (156, 149),
    "cluster-root subtree, no arrival wait": (104, 77), "proxy": (0, 332), "core": (11, 11),
    "total, no arrival wait": (278, 572), "total, with arrival wait": (642, 680)}
# 4W (§10.2): no stage table in the paper, only the end-to-end figures and the extremes.
PAPER_4W = ("split4W-2: fastest thread 339 µs, slowest 1042 µs without arrival waits; the up "
            "path and the proxies dominate; the cluster-root subtree costs more than the host "
            "subtrees")


def build(repo, build_dir):
    """BUILD/sim/ac_gsum_sim (rebuilt when a source is newer) and BUILD/autocoll-report."""
    subprocess.run(["cmake", "--build", build_dir, "--target", "autocoll-report"], check=True,
                   stdout=subprocess.DEVNULL)
    exe = os.path.join(build_dir, "sim", "ac_gsum_sim")
    srcs = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(repo, "src"))
                  for f in fs if f.endswith(".c"))
    deps = srcs + [os.path.join(repo, "tools", "autocoll-gsum.c")]
    if (not os.path.exists(exe) or
            max(os.path.getmtime(x) for x in deps) > os.path.getmtime(exe)):
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        subprocess.run(["smpicc", "-std=gnu11", "-O1", "-g0", "-DAC_SMPI", "-D_GNU_SOURCE",
                        "-I" + os.path.join(repo, "include"), "-I" + os.path.join(repo, "src"),
                        "-I" + os.path.join(build_dir, "gen")] + deps +
                       ["-Wl,-Bsymbolic", "-ljansson", "-ldl", "-lm", "-o", exe], check=True)
    return exe, os.path.join(build_dir, "autocoll-report")


def run_one(repo, gsum, report, work, out, plat, xml, hosts, p, tree, size, force):
    """One traced gsum run (traces and maps in WORK) and its report (OUT/stages-detail/);
    returns the report's text."""
    name = f"{plat}-{tree}-{size}B"
    det = os.path.join(out, "stages-detail")
    rep = os.path.join(det, name + ".md")
    if os.path.exists(rep) and not force:
        return open(rep).read()
    tdir = os.path.join(work, "traces", name)
    shutil.rmtree(tdir, ignore_errors=True)
    os.makedirs(tdir)
    os.makedirs(det, exist_ok=True)
    pl = os.path.join(repo, "sim", "platforms")
    env = dict(os.environ, AUTOCOLL_TRACE="collectives", AUTOCOLL_TRACE_DIR=tdir)
    cmd = (["smpirun", "-np", str(p), "-platform", os.path.join(pl, xml), "-hostfile",
            os.path.join(pl, hosts)] + SIM +
           [gsum, "-n", str(ITERS), "-r", "1", "-s", str(size), "-A", tree])
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0 or "all correct" not in r.stdout:
        raise RuntimeError(f"{name}: gsum failed ({r.returncode}):\n{r.stdout}")
    maps = os.path.join(work, "maps", name)
    os.makedirs(maps, exist_ok=True)
    rr = subprocess.run([report, "-t", maps, tdir], stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True)
    if rr.returncode != 0:
        raise RuntimeError(f"{name}: autocoll-report failed:\n{rr.stdout}")
    gs = [ln for ln in r.stdout.splitlines() if ln.startswith("# mean")]
    shown = " ".join(os.path.basename(c) if c.startswith("/") else c for c in cmd)
    text = f"<!-- {shown} -->\n" + "\n".join(gs) + "\n\n" + local_paths(rr.stdout, name)
    with open(rep, "w") as f:
        f.write(text)
    shutil.rmtree(tdir, ignore_errors=True)  # the traces are large; the report stays
    for png in sorted(os.listdir(maps)):
        if png.endswith(".png"):
            shutil.copy(os.path.join(maps, png), os.path.join(out, f"stages-{name}.png"))
            break
    return text


def local_paths(text, name):
    """autocoll-report names the trace directory and its timemap by their absolute paths (under
    BUILD/simrun/stages); the first timemap is copied beside stages.md as stages-NAME.png, so
    the detail report shows that one and names the build directory BUILD."""
    text = re.sub(r"^Timemap: \S+/timemap-0\.png \(data \S+\)\.$",
                  f"Timemap: ![timemap](../stages-{name}.png)", text, count=1, flags=re.M)
    return re.sub(r"/\S+/(simrun/stages/traces/)", r"BUILD/\1", text)


def section(text):
    """The first reduction-tree section of a report: (header facts, Table 2 rows, Table 3
    columns, Table 1 rows)."""
    s = text[text.find("## Reduction-tree stages"):]
    nxt = s.find("\n## ", 5)
    s = s if nxt < 0 else s[:nxt]
    facts = {}
    m = re.search(r"largest error ([0-9.]+) us.*?uncertainty ([0-9.]+) us.*?stages "
                  r"\(waits, latencies\): (\d+)", s, re.S)
    if m:
        facts["ierr"], facts["unc"], facts["neg"] = m.group(1), m.group(2), m.group(3)
    m = re.search(r"Stages of rank (\d+), the slowest", s)
    facts["slow"] = m.group(1) if m else "?"
    m = re.search(r"(\d+) complete calls", s)
    facts["calls"] = m.group(1) if m else "?"
    t2, t3, t1, where = [], {}, [], None
    cols = []
    for ln in s.splitlines():
        if ln.startswith("Stages of rank"):
            where = "t2"
        elif ln.startswith("Per-part means"):
            where = "t3"
        elif ln.startswith("Root vertex"):
            where = "t1"
        if not ln.startswith("|") or ln.startswith("|---"):
            continue
        cells = [c.strip() for c in ln.strip("|").split("|")]
        if where == "t2" and cells[0] != "stage":
            t2.append(cells)
        elif where == "t3":
            if cells[0] == "part":
                cols = cells[1:]
            else:
                t3[cells[0]] = cells[1:]
        elif where == "t1" and not cells[0].startswith("arr"):
            t1.append(cells)
    return facts, t2, (cols, t3), t1


def _gsum_mean(text):
    m = re.search(r"# mean ([0-9.]+) us per call", text)
    return float(m.group(1)) if m else None


def _f(x):
    try:
        return f"{float(x):.1f}"
    except ValueError:
        return x


def write(out, results):
    md = ["# Stage breakdown of reduction trees on 8W and 4W (seed 003)", "",
          "Simulated with SimGrid SMPI (`sim/run --study stages`, `sim/stages_study.py`): "
          f"`autocoll-gsum -n {ITERS}` (2 × {ITERS} allreduce calls of one tree, spec §8) on "
          "`smp8w.xml` (4 × 8-way) and `smp4w.xml` (8 × 4-way), 32 ranks by node, 100 Mbit/s "
          "Ethernet, with `AUTOCOLL_TRACE=collectives`; the tables are `autocoll-report`'s "
          "(docs/tracing.md), the first 10 calls left out as in the paper. Times in µs.", ""]
    md += ["## End to end", "",
           "| cluster | tree | role | 4 B: µs per call | 256 B: µs per call | slowest rank "
           "(4 B) | identity error / neg. stages |", "|---|---|---|---|---|---|---|"]
    for plat, _, _, _, trees in STAGE_RUNS:
        for tree, role in trees:
            a, b = results[(plat, tree, 4)], results[(plat, tree, 256)]
            fa = section(a)[0]
            md.append(f"| {plat} | `{tree}` | {role} | {_gsum_mean(a):.1f} | "
                      f"{_gsum_mean(b):.1f} | {fa['slow']} | {fa.get('ierr', '?')} µs / "
                      f"{fa.get('neg', '?')} |")
    md += ["", "Paper (8W, 4 B, instrumented): binary8W 680 µs per call for its slowest thread "
           "(Table 2), 640 µs from the Gsum time; flat → binary8W a 1.49 speedup. 4W: "
           "binary4W → split4W-2 a 1.12 speedup at 4 B (§7.3). " + PAPER_4W + ".", ""]
    # Table 2 side by side (8W binary8W, 4 B).
    for plat, _, _, p, trees in STAGE_RUNS:
        for tree, role in trees:
            for size in SIZES:
                facts, t2, (cols, t3), t1 = section(results[(plat, tree, size)])
                md += [f"## {plat}, `{tree}` ({role}), {size} B", ""]
                md += [f"{facts['calls']} complete calls; identities: largest error "
                       f"{facts.get('ierr', '?')} µs (clock uncertainty {facts.get('unc', '?')} "
                       f"µs, global clock); negative one-clock stages: {facts.get('neg', '?')}.",
                       ""]
                md += [f"Stages of rank {facts['slow']}, the slowest (Table 2 form):", "",
                       "| stage | mean | median | stdev | min | max | p10 | p90 |",
                       "|---|---|---|---|---|---|---|---|"]
                md += ["| " + " | ".join([r[0]] + [_f(x) for x in r[1:]]) + " |" for r in t2]
                md += ["", "Per-part means (Tables 3 and 4 form):", "",
                       "| part | " + " | ".join(cols) + " |",
                       "|---|" + "---|" * len(cols)]
                md += ["| " + " | ".join([k] + [_f(x) for x in v]) + " |"
                       for k, v in t3.items()]
                if t1:
                    md += ["", "Root vertex: arrival order (rows) against departure order "
                           "(columns), % of calls (Table 1 form):", "",
                           "| arr \\ dep | " + " | ".join(str(i + 1) for i in range(len(t1)))
                           + " |", "|---|" + "---|" * len(t1)]
                    md += ["| " + " | ".join(r) + " |" for r in t1]
                png = f"stages-{plat}-{tree}-{size}B.png"
                if os.path.exists(os.path.join(out, png)):
                    md += ["", f"Timemap (Fig. 12-14 form: mean stages of the slowest rank, x "
                           f"relative to core entry): ![{plat} {tree} {size} B]({png})"]
                md += ["", f"Every rank, every stage: [stages-detail/{plat}-{tree}-{size}B.md]"
                       f"(stages-detail/{plat}-{tree}-{size}B.md) (`autocoll-report`'s full "
                       "output)."]
                md.append("")
    md += ["## The paper's Tables 2 and 3 (binary8W, 4 B)", "",
           "| stage (Table 2, thread 17) | mean |", "|---|---|"]
    md += [f"| {k} | {v} |" for k, v in PAPER_T2]
    md += ["", "| part (Table 3) | thread 0 (root host) | thread 17 (other host) |",
           "|---|---|---|"]
    md += [f"| {k} | {a} | {b} |" for k, (a, b) in PAPER_T3.items()]
    md.append("")
    return finish_report(out, "stages", md)  # with DIR/stages-discussion.md appended


def main(repo, build_dir, out, force=False):
    """OUT: where stages.md, its PNGs and stages-detail/ go (docs/reports for the committed
    report); the traces and timemap data stay in BUILD/simrun/stages."""
    gsum, report = build(repo, build_dir)
    work = os.path.join(build_dir, "simrun", "stages")
    os.makedirs(out, exist_ok=True)
    results = {}
    for plat, xml, hosts, p, trees in STAGE_RUNS:
        for tree, _ in trees:
            for size in SIZES:
                print(f"sim/run: stages {plat} {tree} {size} B", flush=True)
                results[(plat, tree, size)] = run_one(repo, gsum, report, work, out, plat, xml,
                                                      hosts, p, tree, size, force)
    path = write(out, results)
    print(f"sim/run: {path}")
    return 0
