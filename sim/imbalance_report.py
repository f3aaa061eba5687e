"""The report of the controlled-imbalance study (sim/run --study imbalance): seed 000 (Faraj 2006)
§4.2, spec star-stage-ethernet.md 6.3 (Figure 4.20) and 6.4 (taxonomy). Reads the study's
results.csv and writes OUT/imbalance.md (tables) and OUT/imbalance-PLATFORM-COLL.png (gnuplot);
a hand-written OUT/imbalance-discussion.md, when present, is appended verbatim.

Metric: the average per-node time of spec 6.1 (the driver's avg_s: each rank's mean time from its
own entry to its own exit, averaged over ranks). Oracle: the fastest valid autocoll instance at
the point (platform, collective, size, maximum imbalance factor F); the MPI library's own
collective ("native", SMPI's ompi selector) is shown apart and is not part of the oracle.
Classes (spec 6.4): globally coordinated (phased: every step needs the partner of that step),
store-and-forward (a late forwarder delays its dependants), direct (every pair talks directly,
in any order). Python 3 standard library only.
"""
import csv
import math
import os
import shutil
import subprocess
from collections import defaultdict

from report_studies import _finish as finish_report

GLOBAL, SAF, DIRECT = "globally coordinated", "store-and-forward", "direct"
CLASSES = (GLOBAL, SAF, DIRECT)
SHORT = {GLOBAL: "global", SAF: "s&f", DIRECT: "direct"}


def klass(coll, inst):
    """Spec 6.4 class of an instance (its base name, parameters removed)."""
    base = inst.split(":")[0]
    if base in ("linear", "spread", "linear_bounded"):
        return DIRECT
    if coll == "allgather" and base in ("lr", "nbx", "topo_ring", "gather_bcast", "hier"):
        return SAF
    if coll == "alltoall" and base == "hier":
        return SAF
    return GLOBAL


ADAPT_CALLS = set()  # timed calls per adaptive run, as load() found them


def load_choices(path):
    """{(platform:placement, coll, bytes, F): instance} from sim/run's choices.csv."""
    out = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for r in csv.DictReader(f):
                if r["mechanism"].startswith("imbalance:"):
                    out[(r["platform"] + ":" + r["placement"], r["coll"], int(r["bytes"]),
                         int(r["mechanism"].split(":")[1]))] = r["choice"]
    return out


def load(path):
    """{(platform, coll, bytes, F): {instance: avg_s}} and {...: {instance: max_s}} for the
    instances runs, {(platform, coll, bytes, F): (chosen instance, avg_s)} for the adaptive
    runs, and {platform: p}."""
    inst, inst_max, adapt, plats = defaultdict(dict), defaultdict(dict), {}, {}
    ADAPT_CALLS.clear()
    with open(path) as f:
        for r in csv.DictReader(f):
            mech = r.get("mechanism", "")
            if not mech.startswith("imbalance:"):
                continue
            if str(r.get("valid", "")).strip().lower() not in ("yes", "-", "1", ""):
                continue
            k = (r["platform"] + ":" + r["placement"], r["coll"], int(r["bytes"]),
                 int(mech.split(":")[1]))
            plats[k[0]] = int(r["p"])
            if r["variant"].startswith("adaptive"):
                adapt[k] = (r["instance"], float(r["avg_s"]))
                ADAPT_CALLS.add(int(r["iters"]))
            elif r["variant"] == "instances" or r["variant"].startswith("inst="):
                inst[k][r["instance"]] = float(r["avg_s"])
                inst_max[k][r["instance"]] = float(r["max_s"])
    return inst, inst_max, adapt, plats


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def size_name(n):
    return f"{n >> 10} KiB" if n >= 1024 else f"{n} B"


def ms(t):
    return f"{t * 1e3:.3g}" if t < 1 else f"{t * 1e3:.0f}"


def ranking(times, native=False):
    """Autocoll instances sorted by time (native left out unless asked for)."""
    return sorted(((t, i) for i, t in times.items() if native or i != "native"),
                  key=lambda x: x)


def class_best(coll, times):
    out = {}
    for t, i in ranking(times):
        c = klass(coll, i)
        if c not in out:
            out[c] = (i, t)
    return out


def sensitivity(coll, ks, inst):
    """Spec 6.4's claim as numbers: per class, what the largest F adds to each member's time
    over F = 1 (ms; median and range over the members measured at both)."""
    lo, hi = inst[ks[0]], inst[ks[-1]]
    by = defaultdict(list)
    for i in lo:
        if i != "native" and i in hi:
            by[klass(coll, i)].append(((hi[i] - lo[i]) * 1e3, i))
    if len(ks) < 2 or not by:
        return []
    md = [f"Sensitivity: time added by F = {ks[-1][3]} over F = {ks[0][3]}, ms (negative: "
          "faster under imbalance):", "",
          "| class | members | median | least (member) | most (member) |", "|---|---|---|---|---|"]
    for c in CLASSES:
        if c in by:
            d = sorted(by[c])
            md.append(f"| {c} | {len(d)} | {d[len(d) // 2][0]:.3g} | {d[0][0]:.3g} ({d[0][1]}) "
                      f"| {d[-1][0]:.3g} ({d[-1][1]}) |")
    return md + [""]


def plot(out, plat, coll, sizes, factors, inst, adapt):
    """Per size: the best member of each class and native, time / oracle against F."""
    sizes = [n for n in sizes if any((plat, coll, n, F) in inst for F in factors)]
    if not sizes or not shutil.which("gnuplot"):
        return None
    name = f"imbalance-{plat.replace(':', '-')}-{coll}.png"
    dat = os.path.join(out, name[:-4] + ".dat.tmp")
    with open(dat, "w") as f:
        for n in sizes:
            f.write(f"# {n}\n")
            for F in factors:
                k = (plat, coll, n, F)
                if k not in inst:
                    continue
                rk = ranking(inst[k])
                best = rk[0][0]
                cb = class_best(coll, inst[k])
                row = [F] + [cb[c][1] / best if c in cb else float("nan") for c in CLASSES]
                row.append(inst[k].get("native", float("nan")) / best)
                a = adapt.get(k)
                row.append(inst[k].get(a[0], float("nan")) / best if a else float("nan"))
                f.write(" ".join(f"{x:.6g}" for x in row) + "\n")
            f.write("\n\n")
    cmds = [f"set terminal pngcairo size {420 * len(sizes)},460 font ',9'",
            f"set output '{os.path.join(out, name)}'",
            f"set multiplot layout 1,{len(sizes)} title '{coll}, {plat}: best of each class / "
            "oracle vs maximum imbalance factor'",
            "set logscale x 2", "set xrange [0.8:160]", "set xtics (1, 9, 33, 129)",
            "set yrange [0.9:*]", "set offsets 0, 0, graph 0.08, 0", "set grid",
            "set key below", "set xlabel 'max imbalance F'",
            "set ylabel 'time / oracle'"]
    for j, n in enumerate(sizes):
        cmds.append(f"set title '{size_name(n)}'")
        cmds.append(
            f"plot '{dat}' index {j} u 1:2 w lp t 'globally coordinated', "
            f"'' index {j} u 1:3 w lp t 'store-and-forward', '' index {j} u 1:4 w lp t 'direct', "
            f"'' index {j} u 1:5 w lp dt 2 t 'native (ompi)', "
            f"'' index {j} u 1:6 w p pt 7 ps 1.2 t 'adaptive choice'")
    cmds.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(cmds) + "\n", text=True, check=True)
    os.remove(dat)
    return name


def write(res, out, choices=None):
    """CHOICES: sim/run's choices.csv (the driver's CSV names an adaptive run's instance
    "auto"; the engine's choice is in the run's log)."""
    inst, inst_max, adapt, plats = load(res)
    for k, ch in load_choices(choices).items():
        if k in adapt:
            adapt[k] = (ch, adapt[k][1])
    keys = sorted(inst)
    colls = sorted({k[1] for k in keys})
    sizes = sorted({k[2] for k in keys})
    factors = sorted({k[3] for k in keys})
    md = ["# Controlled imbalance: rankings under process arrival patterns (seed 000)", "",
          "Seed 000 (Faraj 2006) §4.2, spec star-stage-ethernet.md 6.3 (Figure 4.20) and 6.4. "
          "Simulated with SimGrid SMPI (`sim/run --study imbalance`, then "
          "`sim/imbalance_report.py`): before every timed call a barrier, then rank r waits "
          "u · F · T, with u ∈ [0, 1) from a fixed hash of (r, call) and T the one-way time of "
          "one message of the size, measured by the driver (`autocoll-bench -t imbalance:F`, "
          "docs/bench.md); F is the maximum (worst-case) imbalance factor. Metric: the average "
          "per-node time of spec 6.1 (each rank's entry to its own exit). Measured: one "
          "instance per family of the repository (`IMBALANCE_INST` in sim/run; parameter "
          "variants and the node-aware members, which equal their inter-node algorithm at one "
          "rank per host, left out), every other instance the adaptive engine settled on "
          "anywhere (measured at every F of that platform, collective and size), and the MPI "
          "library's own collective (SMPI's ompi selector, shown apart); 10 calls (10 arrival "
          "patterns) per point, each checked against the MPI library's result. The oracle is "
          "the fastest autocoll instance. Times in ms (simulated).", ""]
    for plat in sorted({k[0] for k in keys}):
        for coll in colls:
            if not any(k[0] == plat and k[1] == coll for k in keys):
                continue
            md += [f"## {coll}, {plat} (p = {plats[plat]})", ""]
            # Rankings: top 5 per F, and the best of each class.
            for n in sizes:
                ks = [(plat, coll, n, F) for F in factors if (plat, coll, n, F) in inst]
                if not ks:
                    continue
                md += [f"### {size_name(n)}", "",
                       "| rank | " + " | ".join(f"F = {k[3]}" for k in ks) + " |",
                       "|---|" + "---|" * len(ks)]
                rks = [ranking(inst[k]) for k in ks]
                for j in range(5):
                    md.append(f"| {j + 1} | " + " | ".join(
                        f"{rk[j][1]} {ms(rk[j][0])}" if j < len(rk) else "" for rk in rks)
                        + " |")
                md.append("| native (ompi) | " + " | ".join(
                    f"{ms(inst[k]['native'])} (×{inst[k]['native'] / rk[0][0]:.2f})"
                    if "native" in inst[k] else "–" for k, rk in zip(ks, rks)) + " |")
                md += ["", "Best member of each class (spec 6.4), time and ratio to the oracle; "
                       "last row: the class order, fastest first (global: globally "
                       "coordinated, s&f: store-and-forward):", "",
                       "| class | " + " | ".join(f"F = {k[3]}" for k in ks) + " |",
                       "|---|" + "---|" * len(ks)]
                cbs = [class_best(coll, inst[k]) for k in ks]
                for c in CLASSES:
                    md.append(f"| {c} | " + " | ".join(
                        f"{cb[c][0]} {ms(cb[c][1])} (×{cb[c][1] / rk[0][0]:.2f})"
                        if c in cb else "–" for cb, rk in zip(cbs, rks)) + " |")
                md.append("| order | " + " | ".join(
                    " < ".join(SHORT[c] for c in sorted(cb, key=lambda c: cb[c][1]))
                    for cb in cbs) + " |")
                md += [""] + sensitivity(coll, ks, inst)
            png = plot(out, plat, coll, sizes, factors, inst, adapt)
            if png:
                md += [f"![{coll} on {plat}]({png})", ""]
    # The adaptive engine.
    md += ["## The adaptive engine under each pattern", "",
           "`AUTOCOLL_MODE=adaptive` (default learner), measuring in place under the same "
           f"arrival mechanism, {'/'.join(map(str, sorted(ADAPT_CALLS)))} calls per point, "
           "every call timed (its learning included). Here the oracle is "
           "the fastest of everything the engine may choose, the MPI library's own collective "
           "included. *choice*: the engine's choice for the key at the end of the run (its "
           "`AUTOCOLL_VERBOSE` summary; the last call may have been a probe); *rank*: its place in "
           "the ranking by average per-node time; *÷ oracle (avg)*: its time in the instances "
           "run ÷ the oracle, by average per-node time (the quality of the settled choice "
           "under the same patterns); *(max)*: the same by the slowest rank's time, the "
           "completion time the engine scores by (docs/adaptive.md); *mean ÷ oracle*: the "
           "engine's own average per-node time over all its calls ÷ the oracle (learning "
           "included, over more patterns); *changed*: the choice differs from the one at "
           "F = 1.", "",
           "| platform | coll | size | F | oracle | choice | rank | ÷ oracle (avg) | "
           "÷ oracle (max) | mean ÷ oracle | changed |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    summary = defaultdict(list)
    for k in sorted(adapt):
        if k not in inst:
            continue
        plat, coll, n, F = k
        ch, mean = adapt[k]
        rk = ranking(inst[k], native=True)
        best = rk[0][0]
        mx = inst_max.get(k, {})
        bmax = min(mx.values()) if mx else None
        names = [i for _, i in rk]
        # ties (the same simulated time) share the better place
        pos = 1 + sum(t < inst[k][ch] * (1 - 1e-9) for t, _ in rk) if ch in names else None
        q = inst[k][ch] / best if ch in inst[k] else None
        qm = mx[ch] / bmax if ch in mx and bmax else None
        base = adapt.get((plat, coll, n, factors[0]), (None,))[0]
        summary[F].append((q, qm, mean / best))
        md.append(f"| {plat} | {coll} | {size_name(n)} | {F} | {rk[0][1]} | {ch} | "
                  f"{pos if pos else '–'} / {len(rk)} | {f'{q:.2f}' if q else '–'} | "
                  f"{f'{qm:.2f}' if qm else '–'} | {mean / best:.2f} | "
                  f"{'yes' if F != factors[0] and ch != base else ''} |")
    md += ["", "Geometric means over the points of each F:", "",
           "| F | points | choice ÷ oracle (avg) | (max) | mean ÷ oracle |",
           "|---|---|---|---|---|"]
    for F in sorted(summary):
        cols = [[x[j] for x in summary[F] if x[j]] for j in range(3)]
        md.append(f"| {F} | {len(summary[F])} | " + " | ".join(
            f"{geomean(c):.2f}" if c else "–" for c in cols) + " |")
    md.append("")
    return finish_report(out, "imbalance", md)  # with DIR/imbalance-discussion.md appended


if __name__ == "__main__":
    import sys
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: sim/imbalance_report.py RESULTS.csv OUTDIR [CHOICES.csv]")
    os.makedirs(sys.argv[2], exist_ok=True)
    print(write(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else None))
