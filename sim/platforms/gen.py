#!/usr/bin/env python3
"""Writes the simulated platforms of sim/platforms/ (SimGrid 4.1 XML), their hostfiles and
platforms.json (the link parameters sim/report uses for the alpha-beta lower bound).

Run from anywhere: python3 sim/platforms/gen.py. Output is deterministic (the grid's load
profile uses a fixed seed). Hand-written files (cluster64, ethernet16) are left alone; their
parameters are only recorded in platforms.json. Every value below is documented in the XML
comment of its platform and in sim/README.md, with its source and what is assumed.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = ("<?xml version='1.0'?>\n"
        "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n")
META = {}


def write(name, text):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(text)


def hostfile(name, hosts):
    write(name, "".join(h + "\n" for h in hosts))


def comment(text):
    return "<!-- " + text.strip().replace("--", "-") + " -->\n"


def meta(name, **kw):
    """Parameters for the lower bound: alpha (s, one message end to end), node_bw (B/s, a
    node's injection link), bb_bw (B/s, a shared switch backbone every inter-node byte of a
    single-switch cluster crosses, None = none), bisect_bw (B/s, the narrowest cut between two halves of the nodes,
    None = not narrower than the nodes' links), loop_bw (B/s, intra-node)."""
    META[name] = kw


def seq(hosts, ppn):
    """Sequential (by slot) placement: fill a node's ppn slots before the next node."""
    return [h for h in hosts for _ in range(ppn)]


def cyc(hosts, ppn):
    """Cyclic (by node) placement: rank r on node r mod M."""
    return [h for _ in range(ppn) for h in hosts]


# ---------------------------------------------------------------- seed 000: 32 nodes, 4 switches
def faraj32():
    sw = 4
    text = HEAD + comment("""
Seed 000 (Faraj 2006, spec star-stage-ethernet.md section 7.1), STAGE topologies (b) and (c):
32 single-core Dell Dimension nodes, 4 Dell PowerConnect 100 Mbit/s switches with 8 nodes each.
Node links: 12.5 MB/s full duplex, 30 us (as ethernet16.xml). The thesis gives no figure text for
the inter-switch wiring; assumed here: a chain s0-s1-s2-s3 of 100 Mbit/s full-duplex links
(10 us), so that traffic between switch groups contends on those links, which is what makes
topology-unaware rings slow in the thesis. Rank-to-host mappings: faraj32b.hosts (topology (b):
ranks 0-7 on switch 0, 8-15 on switch 1, ...) and faraj32c.hosts (topology (c): same wiring,
rank r on switch r mod 4: every logical neighbour is behind another switch).
""") + '<platform version="4.1">\n<zone id="faraj32" routing="Full">\n'
    for s in range(sw):
        text += (f'  <cluster id="sw{s}" prefix="f" suffix="" radical="{8*s}-{8*s+7}" speed="1Gf" '
                 f'bw="12.5MBps" lat="30us" bb_bw="600MBps" bb_lat="0us" '
                 f'sharing_policy="SPLITDUPLEX" bb_sharing_policy="SHARED" router_id="sw{s}-r"/>\n')
    for s in range(sw - 1):
        text += (f'  <link id="isl{s}{s+1}" bandwidth="12.5MBps" latency="10us" '
                 f'sharing_policy="SPLITDUPLEX"/>\n')
    for a in range(sw):
        for b in range(sw):
            if a == b:
                continue
            lo, hi = min(a, b), max(a, b)
            d = "UP" if a < b else "DOWN"
            links = "".join(f'<link_ctn id="isl{s}{s+1}" direction="{d}"/>' for s in range(lo, hi))
            text += (f'  <zoneRoute src="sw{a}" dst="sw{b}" gw_src="sw{a}-r" gw_dst="sw{b}-r" '
                     f'symmetrical="NO">{links}</zoneRoute>\n')
    text += "</zone>\n</platform>\n"
    write("faraj32.xml", text)
    hosts = [f"f{i}" for i in range(32)]
    hostfile("faraj32b.hosts", hosts)
    hostfile("faraj32c.hosts", [f"f{8*(r%4)+r//4}" for r in range(32)])
    # The chain's middle link carries everything between {s0,s1} and {s2,s3}.
    meta("faraj32", alpha=60e-6 + 30e-6, node_bw=12.5e6, bb_bw=None, bisect_bw=12.5e6, bisect_hosts=16,
         loop_bw=None, hosts=32, cores=1)
    meta("ethernet16", alpha=60e-6, node_bw=12.5e6, bb_bw=600e6, bisect_bw=None, loop_bw=None, hosts=16,
         cores=1)
    meta("cluster64", alpha=120e-6, node_bw=125e6, bb_bw=1.25e9, bisect_bw=None, loop_bw=None, hosts=64,
         cores=1)


# ---------------------------------------------------------------- seed 001: Sparbit clusters
def yahoo():
    text = HEAD + comment("""
Seed 001 (Loch 2021, spec sparbit.md section 5.1), cluster "Yahoo": 16 nodes of 2 x 4-core Xeon
L5420 (8 cores each), two-tier tree: two Gigabit Ethernet leaf switches with 5 and 11 nodes,
each joined to a core switch by one 10 Gbit/s link. Node links 125 MB/s full duplex, 15 us each
way (assumed: Gigabit Ethernet, TCP, ~30 us MPI latency node to node); leaf switch fabric
6 GB/s (48 Gbit/s, not a bottleneck); uplinks 1.25 GB/s full duplex, 5 us. Intra-node path
(assumed): loopback 4 GB/s, 0.5 us. Hostfiles: yahoo.seq.hosts (by slot: 8 consecutive ranks per
node, one per core; beyond 128 ranks SMPI wraps around, i.e. oversubscription) and
yahoo.cyc.hosts (by node: rank r on node r mod 16).
""") + '<platform version="4.1">\n<zone id="yahoo" routing="Full">\n'
    leaves = [(0, 4), (5, 15)]
    for i, (a, b) in enumerate(leaves):
        text += (f'  <cluster id="leaf{i}" prefix="y" suffix="" radical="{a}-{b}" speed="1Gf" '
                 f'core="8" bw="125MBps" lat="15us" bb_bw="6GBps" bb_lat="0us" '
                 f'loopback_bw="4GBps" loopback_lat="0.5us" '
                 f'sharing_policy="SPLITDUPLEX" bb_sharing_policy="SHARED" router_id="leaf{i}-r"/>\n')
        text += f'  <link id="up{i}" bandwidth="1.25GBps" latency="5us" sharing_policy="SPLITDUPLEX"/>\n'
    text += ('  <zoneRoute src="leaf0" dst="leaf1" gw_src="leaf0-r" gw_dst="leaf1-r" symmetrical="NO">'
             '<link_ctn id="up0" direction="UP"/><link_ctn id="up1" direction="DOWN"/></zoneRoute>\n'
             '  <zoneRoute src="leaf1" dst="leaf0" gw_src="leaf1-r" gw_dst="leaf0-r" symmetrical="NO">'
             '<link_ctn id="up1" direction="UP"/><link_ctn id="up0" direction="DOWN"/></zoneRoute>\n')
    text += "</zone>\n</platform>\n"
    write("yahoo.xml", text)
    hosts = [f"y{i}" for i in range(16)]
    hostfile("yahoo.seq.hosts", seq(hosts, 8))
    hostfile("yahoo.cyc.hosts", cyc(hosts, 16))
    meta("yahoo", alpha=30e-6, node_bw=125e6, bb_bw=None, bisect_bw=None, loop_bw=4e9, hosts=16, cores=8)


def cervino():
    text = HEAD + comment("""
Seed 001 (Loch 2021, spec sparbit.md section 5.1), cluster "Cervino": 5 nodes of 2 x 16-core Xeon
E5-2683 v4 (32 cores, 64 hardware threads each), one switch, 40 Gbit/s per node. Node links
5 GB/s full duplex, 1.5 us each way (assumed); switch fabric not limiting (assumed 100 GB/s).
Intra-node path (assumed): loopback 10 GB/s, 0.3 us. Hostfiles: cervino.seq.hosts (by slot, 32
consecutive ranks per node, one per core; beyond 160 ranks SMPI wraps around) and
cervino.cyc.hosts (by node: rank r on node r mod 5).
""") + '<platform version="4.1">\n'
    text += ('  <cluster id="cervino" prefix="c" suffix="" radical="0-4" speed="1Gf" core="32" '
             'bw="5GBps" lat="1.5us" bb_bw="100GBps" bb_lat="0us" loopback_bw="10GBps" '
             'loopback_lat="0.3us" sharing_policy="SPLITDUPLEX" bb_sharing_policy="SHARED"/>\n')
    text += "</platform>\n"
    write("cervino.xml", text)
    hosts = [f"c{i}" for i in range(5)]
    hostfile("cervino.seq.hosts", seq(hosts, 32))
    hostfile("cervino.cyc.hosts", cyc(hosts, 64))
    meta("cervino", alpha=3e-6, node_bw=5e9, bb_bw=100e9, bisect_bw=None, loop_bw=10e9, hosts=5, cores=32)


# ---------------------------------------------------------------- seed 003: SMP clusters
def smp():
    for name, hosts, cores, cpu in [("smp8w", 4, 8, "Pentium Pro 200 MHz"),
                                    ("smp4w", 8, 4, "Pentium Pro 166 MHz"),
                                    ("smpnow", 30, 2, "Pentium II 300 MHz"),
                                    ("smpblade", 10, 1, "Mobile Pentium III 900 MHz")]:
        label = {"smp8w": "8W", "smp4w": "4W", "smpnow": "NOW", "smpblade": "Blade"}[name]
        loop = "" if cores == 1 else ' loopback_bw="200MBps" loopback_lat="5us"'
        text = HEAD + comment(f"""
Seed 003 (Bongo et al., spec allreduce-trees.md section 9), cluster {label}: {hosts} hosts x
{cores} CPUs ({cpu}), TCP/IP over one 100 Mbit/s Ethernet switch, no other traffic. Node links
12.5 MB/s full duplex, 40 us each way (assumed: 1999-2003 TCP stacks, Nagle off); switch fabric
not limiting.{' Intra-node path (assumed, shared memory of the era): 200 MB/s, 5 us.' if cores > 1 else ''}
Hostfile {name}.hosts: one slot per CPU, by node (ranks 0..{cores-1} on host 0, ...).
""") + '<platform version="4.1">\n'
        text += (f'  <cluster id="{name}" prefix="{name}-" suffix="" radical="0-{hosts-1}" '
                 f'speed="1Gf" core="{cores}" bw="12.5MBps" lat="40us" bb_bw="1GBps" '
                 f'bb_lat="0us"{loop} sharing_policy="SPLITDUPLEX" bb_sharing_policy="SHARED"/>\n')
        text += "</platform>\n"
        write(f"{name}.xml", text)
        hostfile(f"{name}.hosts", seq([f"{name}-{i}" for i in range(hosts)], cores))
        meta(name, alpha=80e-6, node_bw=12.5e6, bb_bw=1e9, bisect_bw=None,
             loop_bw=None if cores == 1 else 200e6, hosts=hosts, cores=cores)


# ---------------------------------------------------------------- seed 002: grid
def grid():
    sites = ["SDSC", "ANL", "NCSA", "PSC"]
    wan_lat = {"SDSC": "15ms", "ANL": "2ms", "NCSA": "3ms", "PSC": "6ms"}
    text_common = """
Seed 002 (Gupta & Vadhiyar, spec adaptive-bcast-grid.md section 13), the emulated "simple
TeraGrid": 4 sites (SDSC, ANL, NCSA, PSC), 8 clusters C1-C8 of 8 nodes (64 nodes), intra-cluster
100 Mbit/s. Cluster sizes, WAN latencies and bandwidths are in the paper's Figure 6 only, not in
its text; assumed here: clusters C1,C2 at SDSC, C3,C4 at ANL, C5,C6 at NCSA, C7,C8 at PSC; each
cluster joins its site router by a 100 Mbit/s, 0.5 ms link (Ci-up); each site joins a backbone
hub (Chicago) by a 40 Mbit/s WAN link with latency SDSC 15 ms, ANL 2 ms, NCSA 3 ms, PSC 6 ms.
Node links 12.5 MB/s, 50 us each way."""
    for loaded in (False, True):
        name = "grid64-loaded" if loaded else "grid64"
        extra = ("""
Load (grid64-loaded only): the link to and from C3 (C3-up) follows the bandwidth profile
grid64-C3.profile: episodes of 6-8 min that cut its bandwidth by 50-90 %, separated by 4-7 min
gaps, drawn uniformly with a fixed seed (sim/platforms/gen.py); profile values are absolute
bandwidths in bytes/s. The same trace is replayed on every run.""" if loaded else """
Unloaded; grid64-loaded.xml is the same grid with the C3 load profile.""")
        text = HEAD + comment(text_common + extra) + '<platform version="4.1">\n'
        text += '<zone id="grid" routing="Full">\n'
        for c in range(8):
            text += (f'  <cluster id="C{c+1}" prefix="C{c+1}-" suffix="" radical="0-7" speed="1.5Gf" '
                     f'bw="12.5MBps" lat="50us" bb_bw="1GBps" bb_lat="0us" sharing_policy="SPLITDUPLEX" '
                     f'bb_sharing_policy="SHARED" router_id="C{c+1}-r"/>\n')
            prof = ' bandwidth_file="grid64-C3.profile"' if loaded and c == 2 else ""
            text += (f'  <link id="C{c+1}-up" bandwidth="12.5MBps" latency="0.5ms" '
                     f'sharing_policy="SPLITDUPLEX"{prof}/>\n')
        for s in sites:
            text += (f'  <link id="wan-{s}" bandwidth="5MBps" latency="{wan_lat[s]}" '
                     f'sharing_policy="SPLITDUPLEX"/>\n')
        for a in range(8):
            for b in range(8):
                if a == b:
                    continue
                sa, sb = sites[a // 2], sites[b // 2]
                links = f'<link_ctn id="C{a+1}-up" direction="UP"/>'
                if sa != sb:
                    links += (f'<link_ctn id="wan-{sa}" direction="UP"/>'
                              f'<link_ctn id="wan-{sb}" direction="DOWN"/>')
                links += f'<link_ctn id="C{b+1}-up" direction="DOWN"/>'
                text += (f'  <zoneRoute src="C{a+1}" dst="C{b+1}" gw_src="C{a+1}-r" '
                         f'gw_dst="C{b+1}-r" symmetrical="NO">{links}</zoneRoute>\n')
        text += "</zone>\n</platform>\n"
        write(f"{name}.xml", text)
        meta(name, alpha=2 * 15e-3 + 1e-3, node_bw=12.5e6, bb_bw=None, bisect_bw=5e6, bisect_hosts=16,
             loop_bw=None, hosts=64, cores=1)
    hostfile("grid64.hosts", [f"C{c+1}-{i}" for c in range(8) for i in range(8)])
    rng = random.Random(2002)
    t, lines = 0.0, ["0 12500000"]
    while t < 4 * 3600:
        t += rng.uniform(240, 420)           # gap 4-7 min
        cut = rng.uniform(0.5, 0.9)          # 50-90 % of the bandwidth removed
        lines.append(f"{t:.0f} {12.5e6 * (1 - cut):.0f}")
        t += rng.uniform(360, 480)           # episode 6-8 min
        lines.append(f"{t:.0f} 12500000")
    write("grid64-C3.profile", "\n".join(lines) + "\n")


# ---------------------------------------------------------------- modern systems
def modern():
    text = HEAD + comment("""
Modern system (no seed): a two-level fat tree of 1024 nodes (SimGrid FAT_TREE "2;32,32;1,16;1,1":
32 leaf switches of 32 nodes, each leaf with 16 uplinks to 16 spine switches, i.e. 2:1 tapered).
Links 12.5 GB/s (100 Gbit/s) full duplex, 0.5 us. Nodes have 32 cores; the intra-node path is a
loopback of 50 GB/s, 0.1 us, and a per-node limiter link of 25 GB/s caps what a node's ranks
move through the node (both directions). Hostfiles: fattree.hosts (1 rank per node),
fattree.ppn8.hosts (8 ranks per node, by slot).
""") + '<platform version="4.1">\n'
    text += ('  <cluster id="fattree" prefix="ft" suffix="" radical="0-1023" speed="1Gf" core="32" '
             'bw="12.5GBps" lat="0.5us" loopback_bw="50GBps" loopback_lat="0.1us" limiter_link="25GBps" '
             'topology="FAT_TREE" topo_parameters="2;32,32;1,16;1,1" sharing_policy="SPLITDUPLEX"/>\n')
    text += "</platform>\n"
    write("fattree.xml", text)
    hosts = [f"ft{i}" for i in range(1024)]
    hostfile("fattree.hosts", hosts)
    hostfile("fattree.ppn8.hosts", seq(hosts, 8))
    meta("fattree", alpha=3e-6, node_bw=12.5e9, bb_bw=None, bisect_bw=12.5e9 * 16 * 32 / 2, bisect_hosts=512,
         loop_bw=50e9, hosts=1024, cores=32)

    text = HEAD + comment("""
Modern system (no seed): a dragonfly of 1024 nodes (SimGrid DRAGONFLY "8,4;4,3;8,2;4": 8 groups
joined pairwise by 4 links, 4 chassis per group joined by 3 links, 8 routers per chassis joined
by 2 links, 4 nodes per router). Links 12.5 GB/s (100 Gbit/s) full duplex, 0.5 us. Nodes have 32
cores, loopback 50 GB/s, 0.1 us, per-node limiter 25 GB/s. Hostfiles: dragonfly.hosts (1 rank
per node), dragonfly.ppn8.hosts (8 ranks per node, by slot).
""") + '<platform version="4.1">\n'
    text += ('  <cluster id="dragonfly" prefix="df" suffix="" radical="0-1023" speed="1Gf" core="32" '
             'bw="12.5GBps" lat="0.5us" loopback_bw="50GBps" loopback_lat="0.1us" limiter_link="25GBps" '
             'topology="DRAGONFLY" topo_parameters="8,4;4,3;8,2;4" sharing_policy="SPLITDUPLEX"/>\n')
    text += "</platform>\n"
    write("dragonfly.xml", text)
    hosts = [f"df{i}" for i in range(1024)]
    hostfile("dragonfly.hosts", hosts)
    hostfile("dragonfly.ppn8.hosts", seq(hosts, 8))
    # 8 groups, 4 links between each pair: a half/half cut crosses 4*4*4 links.
    meta("dragonfly", alpha=4e-6, node_bw=12.5e9, bb_bw=None, bisect_bw=12.5e9 * 64, bisect_hosts=512,
         loop_bw=50e9, hosts=1024, cores=32)


if __name__ == "__main__":
    faraj32()
    yahoo()
    cervino()
    smp()
    grid()
    modern()
    with open(os.path.join(HERE, "platforms.json"), "w") as f:
        json.dump(META, f, indent=1, sort_keys=True)
        f.write("\n")
