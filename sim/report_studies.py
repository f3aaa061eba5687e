"""Reproduction studies for sim/report --study sparbit|stage|trees (python3 standard library and
gnuplot). Each writes DIR/<study>.md (tables side by side with the seed's published numbers)
and PNG plots; a hand-written DIR/<study>-discussion.md, when present, is appended verbatim."""
import math
import os
import shutil
import statistics
import subprocess
from collections import defaultdict


def _gp(cmds):
    if shutil.which("gnuplot"):
        subprocess.run(["gnuplot"], input="\n".join(cmds) + "\n", text=True, check=True)


def _pct(x):
    return "–" if x is None else f"{100 * x:.2f}"


def _finish(out, name, md):
    disc = os.path.join(out, f"{name}-discussion.md")
    if os.path.exists(disc):
        md += ["", open(disc).read().rstrip(), ""]
    path = os.path.join(out, f"{name}.md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    return path


def _ppow2(p):
    return p & (p - 1) == 0


# ------------------------------------------------------------------ seed 001, Tables 6 and 7
SPARBIT_ALGS = [("sparbit", "Sparbit"), ("lr", "Ring"), ("nbx", "Neighbour exchange"),
                ("rdb", "Recursive doubling"), ("bruck", "Bruck")]
THESIS6 = {  # (placement, cluster, metric) -> best-in %, mean, median, highest
    ("seq", "yahoo", "min_s"): (53.65, 36.18, 29.98, 85.87),
    ("seq", "yahoo", "avg_s"): (46.43, 34.70, 26.16, 84.16),
    ("seq", "yahoo", "max_s"): (38.17, 35.48, 27.24, 80.85),
    ("seq", "cervino", "min_s"): (47.02, 33.08, 31.69, 80.20),
    ("seq", "cervino", "avg_s"): (39.64, 30.23, 29.00, 77.78),
    ("seq", "cervino", "max_s"): (27.62, 27.67, 26.14, 74.27),
    ("cyc", "yahoo", "min_s"): (20.68, 13.35, 12.38, 42.31),
    ("cyc", "yahoo", "avg_s"): (19.12, 14.89, 15.77, 31.07),
    ("cyc", "yahoo", "max_s"): (21.80, 16.07, 16.64, 36.47),
    ("cyc", "cervino", "min_s"): (34.94, 13.49, 11.99, 52.66),
    ("cyc", "cervino", "avg_s"): (30.83, 9.60, 8.71, 44.12),
    ("cyc", "cervino", "max_s"): (25.24, 9.71, 8.43, 37.36),
}
THESIS7 = {
    ("yahoo", "min_s"): (44.79, 22.12, 18.85, 68.06),
    ("yahoo", "avg_s"): (44.49, 19.78, 15.08, 65.37),
    ("yahoo", "max_s"): (38.17, 18.64, 13.06, 56.24),
    ("cervino", "min_s"): (45.58, 30.04, 29.22, 78.26),
    ("cervino", "avg_s"): (38.04, 27.94, 26.77, 73.90),
    ("cervino", "max_s"): (29.29, 25.86, 24.91, 70.83),
}


def _sparbit_times(raw, p):
    """Open MPI's behaviour for the baselines: neighbour exchange falls back to the ring for odd
    p, recursive doubling to Bruck for p not a power of two (those instances are restricted in
    autocoll and absent from the results there)."""
    t = dict(raw)
    if "nbx" not in t and "lr" in t:
        t["nbx"] = t["lr"]
    if "rdb" not in t and "bruck" in t:
        t["rdb"] = t["bruck"]
    return t if all(a in t for a, _ in SPARBIT_ALGS) else None


def _sparbit_stats(cells):
    """cells: list of {alg: time}. Share where Sparbit is strictly fastest, and over those the
    improvement 1 - T_sparbit / T_second_best (mean, median, max)."""
    imp, wins = [], defaultdict(int)
    for t in cells:
        best = min(t, key=lambda a: (t[a], a != "sparbit"))
        others = min(v for a, v in t.items() if a != "sparbit")
        if t["sparbit"] < others:
            imp.append(1 - t["sparbit"] / others)
            wins["sparbit"] += 1
        else:
            wins[best] += 1
    n = len(cells)
    if not n:
        return None
    return (len(imp) / n, statistics.mean(imp) if imp else None,
            statistics.median(imp) if imp else None, max(imp) if imp else None, len(imp), n,
            dict(wins))


def sparbit(rows, out):
    data = defaultdict(dict)   # (plat, place, p, bytes, metric) -> {alg: t}
    for r in rows:
        if r["coll"] != "allgather" or not r["variant"].startswith("inst=") or \
                r["platform"] not in ("yahoo", "cervino") or not r.get("_ok", True):
            continue
        for m in ("min_s", "avg_s", "max_s"):
            try:
                data[(r["platform"], r["placement"], r["p"], r["bytes"], m)][r["instance"]] = \
                    float(r[m])
            except (KeyError, ValueError):
                pass
    cells = {k: _sparbit_times(v, k[2]) for k, v in data.items()}
    cells = {k: v for k, v in cells.items() if v}
    ps = defaultdict(set)
    sizes = set()
    for (pl, place, p, n, m) in cells:
        ps[pl].add(p)
        sizes.add(n)
    md = ["# Sparbit vs Ring, Neighbour exchange, Recursive doubling and Bruck (seed 001, Tables 6 and 7)",
          "",
          "Simulated with SimGrid SMPI on `sim/platforms/yahoo.xml` (16 nodes × 8 cores, two-tier "
          "Gigabit tree) and `cervino.xml` (5 nodes × 32 cores, one 40 Gbit/s switch), sequential "
          "(`*.seq.hosts`) and cyclic (`*.cyc.hosts`) placement; the five algorithms are autocoll's "
          "instances `sparbit`, `lr` (neighbour ring, Open MPI's *ring*), `nbx` (neighbour "
          "exchange), `rdb` (recursive doubling) and `bruck`. As in Open MPI, neighbour exchange "
          "is replaced by the ring for odd p and recursive doubling by Bruck when p is not a power "
          "of two. Improvement = 1 − T_Sparbit / T_second best, over the points where Sparbit is "
          "strictly fastest (the thesis' definition); min/avg/max are the driver's statistics "
          "over ranks (the thesis' OSU min/avg/max).", "",
          f"Sizes: {len(sizes)} ({min(sizes) if sizes else '–'} B – {max(sizes) if sizes else '–'} B). "
          "Process counts (scaled down from the thesis' 64 counts 5…256 on Yahoo and 80 counts "
          "5…320 on Cervino to keep simulation time in minutes; odd and even counts, powers of two "
          "included, oversubscription not simulated): " +
          "; ".join(f"{pl}: {', '.join(map(str, sorted(v)))}" for pl, v in sorted(ps.items())),
          ""]
    md += ["## Per placement (Table 6)", "",
           "| placement | cluster | metric | best in % (sim) | thesis | mean % (sim) | thesis | "
           "median % (sim) | thesis | highest % (sim) | thesis | wins/points (sim) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    winners = {}
    for place in ("seq", "cyc"):
        for pl in ("yahoo", "cervino"):
            for m in ("min_s", "avg_s", "max_s"):
                sel = [v for k, v in cells.items() if k[0] == pl and k[1] == place and k[4] == m]
                s = _sparbit_stats(sel)
                if not s:
                    continue
                th = THESIS6[(place, pl, m)]
                md.append(f"| {place} | {pl} | {m[:3]} | {_pct(s[0])} | {th[0]} | {_pct(s[1])} | "
                          f"{th[1]} | {_pct(s[2])} | {th[2]} | {_pct(s[3])} | {th[3]} | "
                          f"{s[4]}/{s[5]} |")
                if m == "avg_s":
                    winners[(place, pl)] = s[6]
    md += ["", "## Mappings united (Table 7): each algorithm at its better placement", "",
           "| cluster | metric | best in % (sim) | thesis | mean % (sim) | thesis | median % (sim) | "
           "thesis | highest % (sim) | thesis | wins/points (sim) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for pl in ("yahoo", "cervino"):
        for m in ("min_s", "avg_s", "max_s"):
            united = []
            for (c, place, p, n, mm), t in cells.items():
                if c != pl or mm != m or place != "seq":
                    continue
                o = cells.get((c, "cyc", p, n, mm))
                if o:
                    united.append({a: min(t[a], o[a]) for a in t})
            s = _sparbit_stats(united)
            if not s:
                continue
            th = THESIS7[(pl, m)]
            md.append(f"| {pl} | {m[:3]} | {_pct(s[0])} | {th[0]} | {_pct(s[1])} | {th[1]} | "
                      f"{_pct(s[2])} | {th[2]} | {_pct(s[3])} | {th[3]} | {s[4]}/{s[5]} |")
    md += ["", "## Winners by average time (points per algorithm)", "",
           "| placement | cluster | " + " | ".join(n for _, n in SPARBIT_ALGS) + " |",
           "|---|---|" + "---|" * len(SPARBIT_ALGS)]
    for (place, pl), w in sorted(winners.items()):
        md.append(f"| {place} | {pl} | " + " | ".join(str(w.get(a, 0)) for a, _ in SPARBIT_ALGS) + " |")
    md.append("")
    # heat maps: T_sparbit / T_best other, by p (columns) and size (rows), avg metric
    for pl in ("yahoo", "cervino"):
        for place in ("seq", "cyc"):
            pts = sorted(k for k in cells if k[0] == pl and k[1] == place and k[4] == "avg_s")
            if not pts:
                continue
            plist = sorted({k[2] for k in pts})
            dat = os.path.join(out, f"sparbit-{pl}-{place}.dat")
            with open(dat, "w") as f:
                for k in pts:
                    t = cells[k]
                    r = t["sparbit"] / min(v for a, v in t.items() if a != "sparbit")
                    f.write(f"{plist.index(k[2])} {int(round(math.log2(k[3])))} {r:.4f}\n")
            png = os.path.join(out, f"sparbit-{pl}-{place}.png")
            xt = ", ".join(f"'{p}' {i}" for i, p in enumerate(plist))
            _gp(["set terminal pngcairo size 800,520 noenhanced", f"set output '{png}'",
                 f"set title 'T(Sparbit) / T(best of the others), avg, {pl} {place}'",
                 f"set xtics ({xt})", "set xlabel 'processes'", "set ylabel 'log2(bytes)'",
                 "set cbrange [0.3:1.7]", "set palette defined (0.3 'dark-green', 1 'white', 1.7 'red')",
                 "set xrange [-0.5:*]", "set yrange [-0.5:20.5]",
                 f"plot '{dat}' using 1:2:3 with points pointtype 5 pointsize 2.6 palette notitle"])
            os.remove(dat)
            md += [f"![{pl} {place}](sparbit-{pl}-{place}.png)", ""]
    return _finish(out, "sparbit", md)


# ------------------------------------------------------------------ seed 000, Tables 4.1, 4.18
TOPO = {("ethernet16", "seq"): "a", ("faraj32", "b"): "b", ("faraj32", "c"): "c"}
TABLE41 = {  # topology, coll -> [(upper bound exclusive or None, thesis name, autocoll names)]
    ("a", "alltoall"): [(8718, "simple", "linear spread"), (31718, "pair light barrier", "pair_lb"),
                        (72032, "pair N MPI barriers", "pair_nbar"), (None, "pair MPI barrier", "pair_mpib")],
    ("b", "alltoall"): [(112, "bruck", "bruck"), (3844, "ring", "ring"),
                        (6532, "ring N MPI barriers", "ring_nbar"), (9968, "ring light barrier", "ring_lb"),
                        (68032, "pair N MPI barriers", "pair_nbar"), (None, "pair MPI barrier", "pair_mpib")],
    ("c", "alltoall"): [(86, "bruck", "bruck"), (14251, "simple", "linear spread"),
                        (None, "pair MPI barrier", "pair_mpib")],
    ("a", "allgather"): [(10844, "2D mesh", "mesh2d"), (75968, "TSLR", "lr"),
                         (None, "pair MPI barrier", "pair_mpib")],
    ("b", "allgather"): [(208, "3D mesh", "mesh3d"), (None, "TSLR", "lr")],
    ("c", "allgather"): [(3999, "3D mesh", "mesh3d"), (None, "TSLR", "lr")],
    ("a", "allreduce"): [(112, "tuned all-gather", "ag_reduce"), (9468, "rdb", "recursive_doubling"),
                         (60032, "Rab1", "rab1"), (159468, "MPICH Rab", "rabenseifner"),
                         (None, "Rab2", "rab2")],
    ("b", "allreduce"): [(17, "Rab1", "rab1"), (395, "rdb", "recursive_doubling"),
                         (81094, "MPICH Rab", "rabenseifner"), (None, "Rab2", "rab2")],
    ("c", "allreduce"): [(17, "tuned all-gather", "ag_reduce"), (489, "rdb", "recursive_doubling"),
                         (20218, "Rab1", "rab1"), (None, "Rab2", "rab2")],
}
TABLE418 = {  # (coll, topo, bytes) -> (MPICH ms, STAR Measure_Select ms, STAR Monitor_Adapt ms)
    ("alltoall", "a", 16384): (32.0, 46.4, 27.0), ("alltoall", "a", 65536): (305.7, 192.1, 114.6),
    ("alltoall", "a", 262144): (519.4, 658.7, 498.6), ("alltoall", "b", 16384): (324.0, 366.4, 323.2),
    ("alltoall", "b", 65536): (1493, 1366, 1108), ("alltoall", "b", 262144): (6079, 7154, 5716),
    ("allgather", "a", 16384): (31.8, 46.0, 25.5), ("allgather", "a", 65536): (111.6, 147.2, 104.5),
    ("allgather", "a", 262144): (446.0, 596.8, 416.9), ("allgather", "b", 16384): (87.8, 293.8, 58.66),
    ("allgather", "b", 65536): (1532, 1232, 542), ("allgather", "b", 262144): (6432, 5037, 2004),
    ("allreduce", "a", 16384): (5.9, 12.0, 4.6), ("allreduce", "a", 65536): (18.7, 24.4, 18.6),
    ("allreduce", "a", 262144): (68.3, 95.5, 68.4), ("allreduce", "b", 16384): (18.4, 26.4, 9.68),
    ("allreduce", "b", 65536): (82.0, 76.8, 34.3),
}


def _base(name):
    return name.split(":")[0]


def stage(pts, out):
    md = ["# STAGE/STAR-MPI collectives on the 16- and 32-node Ethernet clusters (seed 000, Tables 4.1 and 4.18)",
          "",
          "Simulated with SimGrid SMPI: topology (a) = `ethernet16.xml` (16 nodes, one 100 Mbit/s "
          "switch), (b) and (c) = `faraj32.xml` with `faraj32b.hosts` / `faraj32c.hosts` (32 nodes, "
          "4 switches × 8, chained; (c) places rank r on switch r mod 4). MPICH = SMPI's `mpich` "
          "selector (the thesis compares against MPICH 1.2.6 / MPICH2 1.0.1). oracle = the fastest "
          "valid autocoll instance at each size (what STAGE-MPI's offline search would pick); "
          "adaptive = `AUTOCOLL_MODE=adaptive` (the STAR-MPI counterpart) timed over the same calls "
          "(its measure/select phase included). mpich' = the selector with SMPI's rank±i `ring` "
          "allgather replaced by the neighbour ring NTSLR (marked * where it applied). Timing "
          "mechanism: barrier before each call; avg over ranks.", ""]
    for coll in ("alltoall", "allgather", "allreduce"):
        md += [f"## {coll}", "",
               "| topo | bytes | sim winner | Table 4.1 choice | winner ÷ mpich | winner ÷ mpich' | "
               "adaptive ÷ mpich | adaptive ÷ mpich' | adaptive ÷ oracle |",
               "|---|---|---|---|---|---|---|---|---|"]
        for (plat, place), topo in TOPO.items():
            gs = [g for g in pts if g[0] == plat and g[1] == place and g[2] == coll]
            for g in gs:
                for n in sorted(pts[g]):
                    d = pts[g][n]
                    th = next((nm for hi, nm, _ in TABLE41.get((topo, coll), [])
                               if hi is None or n < hi), "–")
                    ad = d.get("auto", {}).get("adaptive")
                    mp, mq = d.get("mpich"), d.get("mpich'")
                    star = "*" if d.get("mpich_sub") else ""

                    def rt(a, b):
                        return f"{a / b:.2f}" if a and b else "–"
                    md.append(f"| ({topo}) | {n} | {d.get('oracle_name', '–')} | {th} | "
                              f"{rt(d.get('oracle'), mp)} | {rt(d.get('oracle'), mq)}{star} | "
                              f"{rt(ad, mp)} | {rt(ad, mq)}{star} | {rt(ad, d.get('oracle'))} |")
        md.append("")
    md += ["## Side by side with Table 4.18 (per-invocation time ratios to MPICH)", "",
           "| op | topo | bytes | thesis STAR Measure_Select ÷ MPICH | thesis STAR Monitor_Adapt ÷ MPICH | "
           "sim adaptive ÷ mpich | sim oracle ÷ mpich | sim oracle ÷ mpich' |",
           "|---|---|---|---|---|---|---|---|"]
    for (coll, topo, n), (mp, ms, ma) in TABLE418.items():
        plat, place = next(k for k, v in TOPO.items() if v == topo)
        g = next((g for g in pts if g[:3] == (plat, place, coll)), None)
        d = pts[g].get(n, {}) if g else {}
        ad, orc = d.get("auto", {}).get("adaptive"), d.get("oracle")
        mp_s, mq_s = d.get("mpich"), d.get("mpich'")

        def rt(a, b):
            return f"{a / b:.2f}" if a and b else "–"
        md.append(f"| {coll} | ({topo}) | {n} | {ms / mp:.2f} | {ma / mp:.2f} | {rt(ad, mp_s)} | "
                  f"{rt(orc, mp_s)} | {rt(orc, mq_s)} |")
    md.append("")
    # geometric means per topology/collective
    md += ["## Geometric means over sizes", "", "| topo | coll | oracle ÷ mpich | oracle ÷ mpich' | "
           "adaptive ÷ mpich | adaptive ÷ mpich' | adaptive ÷ oracle | sizes (oracle/adaptive) |",
           "|---|---|---|---|---|---|---|---|"]
    for (plat, place), topo in TOPO.items():
        for coll in ("alltoall", "allgather", "allreduce"):
            g = next((g for g in pts if g[:3] == (plat, place, coll)), None)
            if not g:
                continue
            acc = defaultdict(list)
            for d in pts[g].values():
                ad, orc = d.get("auto", {}).get("adaptive"), d.get("oracle")
                for key, a, b in (("om", orc, d.get("mpich")), ("oq", orc, d.get("mpich'")),
                                  ("am", ad, d.get("mpich")), ("aq", ad, d.get("mpich'")),
                                  ("ao", ad, orc)):
                    if a and b:
                        acc[key].append(a / b)
            gm = {k: math.exp(statistics.mean(math.log(x) for x in v)) for k, v in acc.items() if v}
            md.append(f"| ({topo}) | {coll} | " + " | ".join(
                f"{gm[k]:.2f}" if k in gm else "–" for k in ("om", "oq", "am", "aq", "ao")) +
                f" | {len(acc['om'])}/{len(acc['am'])} |")
    md.append("")
    return _finish(out, "stage", md)


# ------------------------------------------------------------------ seed 003, tree shapes
TREE_STEPS = {
    "smp8w": ("8W (4 × 8-way)", [("flat", "quad8W", 1.17), ("quad8W", "binaryquad8W", 1.17),
                                 ("binaryquad8W", "binary8W", 1.08), ("flat", "binary8W", 1.49)]),
    "smp4w": ("4W (8 × 4-way)", [("flat", "binary4W", 1.07), ("binary4W", "binary4W-links", 1 / 1.49),
                                 ("binary4W", "split4W", 1.10), ("split4W", "split4W-2", 1.05),
                                 ("flat", "split4W-2", 1.20)]),
    "smpnow": ("NOW (30 × 2-way)", [("NOW-quad", "NOW-quad-split", 2.44),
                                    ("NOW-quad", "NOW-binary", 1.37)]),
    "smpblade": ("Blade (10 × 1)", [("binary", "flat", 1.18)]),
}


def trees(rows, out):
    t = defaultdict(dict)   # (plat, bytes) -> {name: avg}
    for r in rows:
        if r["coll"] != "allreduce" or r["platform"] not in TREE_STEPS or not r.get("_ok", True):
            continue
        name = r["instance"]
        if name.startswith("tree:spec="):
            name = name[len("tree:spec="):]
        if r["variant"] == "mpich":
            name = "SMPI mpich"
        t[(r["platform"], r["bytes"])][name] = float(r["avg_s"])
    sizes = sorted({n for _, n in t})
    md = ["# Allreduce tree shapes on the four SMP clusters (seed 003)", "",
          "Simulated with SimGrid SMPI on `smp8w.xml` (4 × 8), `smp4w.xml` (8 × 4), `smpnow.xml` "
          "(30 × 2) and `smpblade.xml` (10 × 1), one rank per CPU, all on 100 Mbit/s Ethernet. "
          "Allreduce `tree` with the presets of docs/reduction-trees.md (`flat` = the papers' "
          "n-ary initial trees nary8W/nary4W/Blade flat), `reduce_bcast` (the LAM-style baseline) "
          "and SMPI's mpich selector; MPI_SUM on floats, b2b timing, avg over ranks. Speedup of a "
          "step A → B = T(A) / T(B) (> 1: B faster). The paper's payloads were 4 B and 256 B.", ""]
    sz = [n for n in sizes if n in (4, 256)] or sizes[:2]
    md += ["| cluster | step | paper speedup | " + " | ".join(f"sim @ {n} B" for n in sz) + " |",
           "|---|---|---|" + "---|" * len(sz)]
    for plat, (label, steps) in TREE_STEPS.items():
        for a, b, paper in steps:
            cells = []
            for n in sz:
                d = t.get((plat, n), {})
                cells.append(f"{d[a] / d[b]:.2f}" if a in d and b in d else "–")
            md.append(f"| {label} | {a} → {b} | {paper:.2f} | " + " | ".join(cells) + " |")
    md.append("")
    md += ["## Time per shape (µs, simulated) and the best shape", ""]
    for plat, (label, _) in TREE_STEPS.items():
        names = sorted({k for (pl, n), d in t.items() if pl == plat for k in d})
        if not names:
            continue
        md += [f"### {label}", "", "| bytes | " + " | ".join(names) + " | best | best ÷ reduce_bcast |",
               "|---|" + "---|" * (len(names) + 2)]
        for n in sizes:
            d = t.get((plat, n), {})
            if not d:
                continue
            shapes = {k: v for k, v in d.items() if k not in ("SMPI mpich", "reduce_bcast")}
            best = min(shapes, key=shapes.get) if shapes else "–"
            rb = d.get("reduce_bcast")
            md.append(f"| {n} | " + " | ".join(f"{d[k] * 1e6:.0f}" if k in d else "–" for k in names)
                      + f" | {best} | " + (f"{shapes[best] / rb:.2f}" if rb and shapes else "–") + " |")
        md.append("")
    return _finish(out, "trees", md)


# ------------------------------------------------------------------ issue goals (tables, fabrics)
def _gm(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(statistics.mean(math.log(x) for x in xs)) if xs else None


def _f(x, nd=2):
    return "–" if x is None else f"{x:.{nd}f}"


LARGE = 65536   # "large message" for the efficiency goal: at least 64 KiB per block or buffer


def goals(pts, out, name, title, intro):
    """Per (platform, placement, p, collective) and per platform: the tuning table against the
    ompi selector (goal: geometric mean <= 1/1.3, no point above 1/0.97), the adaptive engine's
    steady state against the oracle (goal: <= 1.03 at >= 95 % of points) and the large-message
    efficiency of the oracle and of the table against the alpha-beta bound (goal >= 0.8)."""
    md = [f"# {title}", "", intro, "",
          "Ratios are of simulated completion times (the slowest rank's mean time per call, "
          "`max_s`, the metric `sim/mktable` chooses by); below 1 = faster. ompi' = the ompi selector with SMPI's rank±i `ring` "
          "allgather replaced by the neighbour ring NTSLR real libraries run (only where "
          "measured). Goals of the SimGrid issue: table ÷ ompi ≤ 0.77 (1.3× faster) in geometric "
          "mean and ≤ 1.03 (never slower than 0.97×) at every point; adaptive (steady state) "
          "≤ 1.03 × oracle at ≥ 95 % of points; efficiency (alpha-beta bound ÷ time) ≥ 0.8 for "
          f"messages ≥ {LARGE // 1024} KiB.", "",
          "| platform | p | collective | sizes | table ÷ ompi (gm) | worst | held-out: table ÷ ompi "
          "(gm / worst) | table ÷ ompi' (gm) | "
          "table ÷ oracle (gm) | oracle ÷ ompi (gm) | oracle ÷ mpich (gm) | adaptive ÷ oracle "
          "(gm) | ≤ 1.03 | learning incl. ÷ oracle (gm) | eff. large (oracle / table) |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    per_plat = defaultdict(lambda: defaultdict(list))
    for g in sorted(pts):
        plat, place, coll, p = g
        acc = defaultdict(list)
        for n, d in sorted(pts[g].items()):
            tab = d.get("auto", {}).get("table")
            ad = d.get("auto", {}).get("adaptive-steady")
            al = d.get("auto", {}).get("adaptive")
            orc = d.get("oracle")
            if not orc:                         # a held-out size: table and ompi only
                if tab and d.get("ompi"):
                    acc["th"].append(tab / d["ompi"])
                continue
            for key, a, b in (("to", tab, d.get("ompi")), ("tq", tab, d.get("ompi'")),
                              ("tr", tab, orc), ("oo", orc, d.get("ompi")),
                              ("om", orc, d.get("mpich")), ("ar", ad, orc), ("al", al, orc)):
                if a and b:
                    acc[key].append(a / b)
            if n >= LARGE and d.get("bound"):
                for key, t in (("eo", orc), ("et", tab)):
                    if t:
                        acc[key].append(d["bound"] / t)
        for k, v in acc.items():
            per_plat[(plat, place, p)][k] += v
        ar = acc["ar"]
        share = f"{sum(x <= 1.03 for x in ar)}/{len(ar)}" if ar else "–"
        eff = (f"{_f(min(acc['eo']) if acc['eo'] else None)} / "
               f"{_f(min(acc['et']) if acc['et'] else None)}")
        th = acc["th"]
        npts = sum(1 for d in pts[g].values() if d.get("oracle"))
        md.append(f"| {plat}:{place} | {p} | {coll} | {npts} | {_f(_gm(acc['to']))} | "
                  f"{_f(max(acc['to']) if acc['to'] else None)} | "
                  f"{_f(_gm(th))} / {_f(max(th) if th else None)} | {_f(_gm(acc['tq']))} | "
                  f"{_f(_gm(acc['tr']))} | {_f(_gm(acc['oo']))} | {_f(_gm(acc['om']))} | "
                  f"{_f(_gm(ar))} | {share} | {_f(_gm(acc['al']))} | {eff} |")
    md += _goal_plots(pts, out, name)
    md += ["", "adaptive = the engine's steady state (timed after its untimed warm-up calls); "
           "learning incl. = the same number of calls all timed, where measured. eff. large: "
           "the lowest efficiency over the sizes ≥ 64 KiB (oracle / table).", "",
           "## Per platform (all collectives together)", "",
           "| platform | p | table ÷ ompi (gm) | speed-up | worst table ÷ ompi | points | "
           "held-out: table ÷ ompi (gm / worst) | adaptive ≤ 1.03 × oracle | adaptive ÷ oracle "
           "(gm) | large-message eff. ≥ 0.8 (oracle) |", "|---|---|---|---|---|---|---|---|---|---|"]
    tot = defaultdict(list)
    for (plat, place, p), acc in sorted(per_plat.items()):
        to, ar, eo, th = acc["to"], acc["ar"], acc["eo"], acc["th"]
        for k in ("to", "ar", "eo", "th"):
            tot[k] += acc[k]
        gm = _gm(to)
        md.append(f"| {plat}:{place} | {p} | {_f(gm)} | {_f(1 / gm if gm else None)}× | "
                  f"{_f(max(to) if to else None)} | {len(to)} | "
                  f"{_f(_gm(th))} / {_f(max(th) if th else None)} | "
                  f"{_pct(sum(x <= 1.03 for x in ar) / len(ar)) if ar else '–'} % | "
                  f"{_f(_gm(ar))} | "
                  f"{sum(x >= 0.8 for x in eo)}/{len(eo)} |")
    to, ar, eo, th = tot["to"], tot["ar"], tot["eo"], tot["th"]
    gm = _gm(to)
    md.append(f"| **all** | | **{_f(gm)}** | **{_f(1 / gm if gm else None)}×** | "
              f"**{_f(max(to) if to else None)}** | {len(to)} | "
              f"{_f(_gm(th))} / {_f(max(th) if th else None)} | "
              f"**{_pct(sum(x <= 1.03 for x in ar) / len(ar)) if ar else '–'} %** | "
              f"{_f(_gm(ar))} | {sum(x >= 0.8 for x in eo)}/{len(eo)} |")
    md.append("")
    return _finish(out, name, md)


def _goal_plots(pts, out, name):
    """One PNG per platform: the table's (or, without a table, the oracle's) time ÷ the ompi
    selector's, per collective over the message size; held-out sizes included."""
    md = []
    for plat, place, p in sorted({(g[0], g[1], g[3]) for g in pts}):
        series = []
        for g in sorted(x for x in pts if (x[0], x[1], x[3]) == (plat, place, p)):
            pts_g = []
            for n, d in sorted(pts[g].items()):
                t = d.get("auto", {}).get("table") or d.get("oracle")
                if t and d.get("ompi"):
                    pts_g.append((n, t / d["ompi"]))
            if pts_g:
                series.append((g[2], pts_g))
        if not series or not shutil.which("gnuplot"):
            continue
        subj = "table" if any("table" in d.get("auto", {}) for g in pts if g[0] == plat
                              for d in pts[g].values()) else "oracle"
        stem = f"{name}-{plat}-{place}-p{p}"
        dat = os.path.join(out, stem + ".dat")
        with open(dat, "w") as f:
            for coll, xs in series:
                f.write(f"# {coll}\n" + "".join(f"{n} {r:.4f}\n" for n, r in xs) + "\n\n")
        plots = ", ".join(f"'{dat}' index {i} using 1:2 with linespoints title '{c}'"
                          for i, (c, _) in enumerate(series))
        _gp(["set terminal pngcairo size 800,480 noenhanced",
             f"set output '{os.path.join(out, stem + '.png')}'",
             f"set title '{subj} / ompi selector, {plat} {place}, p = {p} (below 1: faster)'",
             "set logscale x 2", "set logscale y 2", "set xlabel 'bytes'",
             f"set ylabel '{subj} / ompi'", "set key outside right", "set grid",
             "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2",
             "plot " + plots])
        os.remove(dat)
        md += [f"![{stem}]({stem}.png)", ""]
    return md


def tables(pts, out):
    return goals(pts, out, "tables", "Tuning tables and the adaptive engine on the Ethernet "
                 "platforms of the seeds",
                 "`sim/run --study tables`: on each Ethernet platform (seed 000's 16-node switch "
                 "and 32-node 4-switch cluster in both mappings, seed 001's Yahoo tree, seed "
                 "003's four SMP clusters) every collective of the table set was measured with "
                 "every autocoll instance and both SMPI selectors (a barrier before each call, as "
                 "STAGE-MPI times). `sim/mktable` turned those measurements into one tuning table "
                 "per platform (exhaustive STAGE tuning at the measured sizes, the MPI library's "
                 "own collective a candidate as `native`), and the table runs (`AUTOCOLL_MODE="
                 "table`) were timed at the same sizes: so table ÷ oracle shows what a table "
                 "keeps of the oracle, not how it generalises between sizes (the crossover "
                 "search of `autocoll-tune` does that; docs/reports/tuned-table). The adaptive "
                 "engine (`adaptive-steady`) was timed after 400 untimed calls per size (16 B .. "
                 "16 KiB; its measurement phase with every candidate takes up to 360 calls), i.e. "
                 "in its steady state, for allgather, allreduce and bcast; on the 16-node switch "
                 "also with all 403 calls timed (learning included).")


def tables_topology(pts, out):
    return goals(pts, out, "tables-topology", "Tuning tables and the adaptive engine with the "
                 "switch tree given (topology instances)",
                 "`sim/run --study tables-topology`: the tables study (docs/reports/tables.md) on "
                 "seed 000's 32-node 4-switch cluster in both mappings, run again with its switch "
                 "tree given (`AUTOCOLL_TOPOLOGY=sim/topo/faraj32b.topo` or `faraj32c.topo`, the "
                 "wiring of sim/platforms/faraj32.xml), so that the topology instances "
                 "(docs/topology.md: the contention-free rings of allgather and of the Rab "
                 "allreduces, the AAPC schedules of alltoall, the chain and binary trees of bcast "
                 "and reduce) are measured, tabled and candidates of the adaptive engine like any "
                 "other: the same collectives, sizes, calls and variants (without the SMPI ring "
                 "variants of allgather). Every ratio is to this run's own oracle, which includes "
                 "the topology instances.")


def fabrics(pts, out):
    return goals(pts, out, "fabrics", "Modern fabrics and the multi-cluster grid",
                 "`sim/run --study fabrics`: the two-level fat tree and the dragonfly of 1024 "
                 "nodes at p = 256 (one rank per node, and 8 per node with the faster intra-node "
                 "path), and seed 002's grid of 8 clusters at 4 sites at p = 64, unloaded and "
                 "with its link-load profile. Sizes 16 B .. 64 KiB (allgather at p = 256 up to 1 KiB: "
                 "the driver resets and checks p² n bytes per call). At p = 256 the oracle is the "
                 "best of the scalable "
                 "members only (the linear ones post p² concurrent flows, too slow for SimGrid "
                 "here), so oracle ratios there are upper bounds of what the whole repository "
                 "would give. The adaptive engine was timed in its steady state, after 400 "
                 "untimed calls per size (64 B .. 4 KiB on the fat tree with one rank per node, "
                 "bcast and allreduce; 16 B .. 4 KiB on the grid). No tuning table is made here.")
