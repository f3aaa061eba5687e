#!/usr/bin/env python3
"""Grid broadcast study (seed 002, docs/grid-bcast.md): ratios of mean bcast times from one
sim/run results.csv per platform, each instance against grid_g2 (below 1: faster than grid_g2).

  sim/grid_ratios.py BUILD/simrun/NAME/results.csv [more.csv ...]

Rows: platform, size; columns: mean seconds of grid_g2 and time / time(grid_g2) for
grid_adaptive, grid_greedy, binomial and the MPI library's bcast under SMPI's ompi and mpich
selectors. Only results the driver validated (valid == yes) are used."""
import csv
import sys

COLS = [("grid_adaptive", "inst"), ("grid_greedy", "inst"), ("binomial", "inst"),
        ("native", "ompi"), ("native", "mpich")]


def main(paths):
    if not paths or paths[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if paths else 2
    t = {}
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(f):
                if r["coll"] != "bcast" or r["valid"] != "yes":
                    continue
                var = "inst" if r["variant"].startswith("inst") else r["variant"]
                t[(r["platform"], int(r["bytes"]), r["instance"], var)] = float(r["avg_s"])
    keys = sorted({(k[0], k[1]) for k in t})
    head = ["platform", "bytes", "grid_g2 s"] + [f"{i}{'' if v == 'inst' else ' ' + v}/g2"
                                                  for i, v in COLS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for plat, size in keys:
        g2 = t.get((plat, size, "grid_g2", "inst"))
        if not g2:
            continue
        cells = [plat, str(size), f"{g2:.4g}"]
        for inst, var in COLS:
            x = t.get((plat, size, inst, var))
            cells.append(f"{x / g2:.3f}" if x else "-")
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
