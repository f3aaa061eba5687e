#!/usr/bin/env python3
"""The stage-breakdown study's report code (sim/stages_study.py, docs/reports/stages.md) on
hand-made autocoll-report output (no simulation):

1. section() reads the first reduction-tree section: call count, identity error, clock
   uncertainty, negative stages, the slowest rank, Table 2 rows, Table 3 columns and rows, the
   root's arrival/departure matrix; a later section is not read.
2. local_paths() points the timemap at the committed PNG and hides the build directory.
3. write() puts every tree's gsum mean and facts in the end-to-end table, links every detail
   report, shows a timemap only when its PNG exists, and appends the discussion.

usage: stages_study.py REPO OUTDIR
"""
import os
import shutil
import sys

repo, out = sys.argv[1:3]
sys.path.insert(0, os.path.join(repo, "sim"))
import stages_study  # noqa: E402

fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += not cond


def report(mean, slow, other_section=True):
    """autocoll-report's output as stages_study keeps it, values made up."""
    text = f"""<!-- smpirun ... -->
# mean {mean} us per call, run-to-run stdev 0.000 us (0.00 %)

# autocoll trace report

32 rank files of 32 (/somewhere/build/simrun/stages/traces/X); 0 records overwritten.

## Reduction-tree stages

### 0.0 tree:spec=binary, p = 4

41 complete calls, the first 10 left out; 0 paths could not be formed.

Identities (total = down + up, with and without arrival waits): largest error 0.125 us over \
every rank and call; clock uncertainty 2.500 us. Negative one-clock stages (waits, latencies): 3.

Stages of rank {slow}, the slowest (seed 003 Table 2), us:

| stage | mean | median | stdev | min | max | p10 | p90 |
|---|---|---|---|---|---|---|---|
| entry | 0.01 | 0.01 | 0.00 | 0.01 | 0.01 | 0.01 | 0.01 |
| core | 7.25 | 7.00 | 1.00 | 6.00 | 9.00 | 6.50 | 8.50 |

Per-part means per rank (seed 003 Tables 3 and 4), us:

| part | rank 0 | rank {slow} |
|---|---|---|
| up | 10.33 | 20.51 |
| core | 7.25 | 7.00 |

Root vertex 0: arrival order (rows) against departure order (columns), % of calls:

| arr \\\\ dep | 1 | 2 |
|---|---|---|
| 1 | 75.0 | 25.0 |
| 2 | 25.0 | 75.0 |

Timemap: /somewhere/build/simrun/stages/maps/X/timemap-0.png (data \
/somewhere/build/simrun/stages/maps/X/timemap-0.dat).
"""
    if other_section:
        text += """
## Reduction-tree stages

### 0.0 tree:spec=flat, p = 4

99 complete calls, the first 10 left out; 0 paths could not be formed.

Stages of rank 9, the slowest (seed 003 Table 2), us:
"""
    return text


# 1. section()
facts, t2, (cols, t3), t1 = stages_study.section(report(100.5, 3))
check(facts.get("calls") == "41", f"calls 41 ({facts.get('calls')})")
check(facts.get("ierr") == "0.125" and facts.get("unc") == "2.500" and facts.get("neg") == "3",
      f"identity error 0.125, uncertainty 2.500, 3 negative stages ({facts})")
check(facts.get("slow") == "3", "slowest rank 3, not the next section's 9")
check([r[0] for r in t2] == ["entry", "core"] and t2[1][1:] == ["7.25", "7.00", "1.00", "6.00",
                                                                  "9.00", "6.50", "8.50"],
      f"Table 2 rows ({t2})")
check(cols == ["rank 0", "rank 3"] and t3.get("up") == ["10.33", "20.51"],
      f"Table 3 ({cols}, {t3})")
check(t1 == [["1", "75.0", "25.0"], ["2", "25.0", "75.0"]], f"Table 1 rows ({t1})")

# 2. local_paths()
txt = stages_study.local_paths(report(100.5, 3), "8W-flat-4B")
check("Timemap: ![timemap](../stages-8W-flat-4B.png)\n" in txt, "timemap points at the PNG")
check("/somewhere" not in txt and "(BUILD/simrun/stages/traces/X)" in txt,
      "no absolute build path")

# 3. write()
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
results, mean = {}, 100.0
for plat, _, _, _, trees in stages_study.STAGE_RUNS:
    for tree, _ in trees:
        for size in stages_study.SIZES:
            mean += 1.5
            results[(plat, tree, size)] = report(f"{mean:.3f}", 3)
first = stages_study.STAGE_RUNS[0]
name = f"{first[0]}-{first[4][0][0]}-4B"
open(os.path.join(out, f"stages-{name}.png"), "wb").close()
with open(os.path.join(out, "stages-discussion.md"), "w") as f:
    f.write("## Discussion\n\nHand-written text.\n")
md = open(stages_study.write(out, results)).read()
row = f"| {first[0]} | `{first[4][0][0]}` | {first[4][0][1]} | 101.5 | 103.0 | 3 | 0.125 µs / 3 |"
check(row in md, f"end-to-end row of the first tree: {row}")
n = len(results)
check(md.count("](stages-detail/") == n, f"{n} detail links ({md.count('](stages-detail/')})")
check(md.count("Timemap (") == 1 and f"](stages-{name}.png)" in md,
      "one timemap: only the PNG that exists")
check(md.rstrip().endswith("Hand-written text."), "discussion appended")
print(f"{fails} failed")
sys.exit(1 if fails else 0)
