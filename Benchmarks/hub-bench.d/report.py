#!/usr/bin/env python3
"""Prints the figures of Benchmarks/hub-bench from its JSON lines: per section, per server, the
medians (and p99 of the round trip), and ours as a ratio of python-matter-server's, against the
goals of issue 16.

    report.py RESULTS.jsonl
"""
import json
import statistics
import sys

# Issue 16: our hub at most these fractions of python-matter-server.
GOALS = {"commission_ms": 0.10, "rtt_ms": 0.25, "update_ms": 0.05, "rss_mb": 0.15}
LABELS = {"commission_ms": "commissioning through the API (ms, median)",
          "rtt_ms": "device_command round trip (ms, median)",
          "rtt_p99_ms": "device_command round trip (ms, p99)",
          "update_ms": "command -> attribute_updated (ms, median)",
          "rss_mb": "resident memory with one node (MB, median)",
          "rss_anon_mb": "  of it anonymous (heap, stacks; MB, median)"}


def p99(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]


def one_node(lines):
    figures = {}
    for server in ("ours", "pms"):
        runs = [l for l in lines if l["server"] == server and "error" not in l["client"]]
        if not runs:
            continue
        rtt = [v for r in runs for v in r["client"]["rtt_ms"]]
        figures[server] = {
            "runs": len(runs),
            "commission_ms": statistics.median(r["client"]["commission_ms"] for r in runs),
            "rtt_ms": statistics.median(rtt),
            "rtt_p99_ms": p99(rtt),
            "update_ms": statistics.median(v for r in runs for v in r["client"]["update_ms"]),
            "rss_mb": statistics.median(r["rss_kb"] / 1024 for r in runs),
            "rss_anon_mb": statistics.median(r.get("rss_anon_kb", 0) / 1024 for r in runs),
        }
    print("one node: our hub vs python-matter-server 8.1.2, same virtual device, same 8.1.2 client")
    print(f"  runs: ours {figures.get('ours', {}).get('runs', 0)}, python-matter-server {figures.get('pms', {}).get('runs', 0)}")
    print(f"  {'':48} {'ours':>10} {'PMS':>10} {'ratio':>8} {'goal':>6}")
    for key, label in LABELS.items():
        ours = figures.get("ours", {}).get(key)
        pms = figures.get("pms", {}).get(key)
        ratio = f"{ours / pms:.3f}x" if ours is not None and pms else "-"
        goal = f"{GOALS[key]:.2f}x" if key in GOALS else ""
        met = ""
        if key in GOALS and ours is not None and pms:
            met = " met" if ours / pms <= GOALS[key] else " MISSED"
        fmt = lambda v: "-" if v is None else f"{v:10.1f}"
        print(f"  {label:48} {fmt(ours)} {fmt(pms)} {ratio:>8} {goal:>6}{met}")
    round_trip_spread(lines)


def round_trip_spread(lines):
    """The device_command round trip run by run: one run's median of each server, the runs paired
    as they alternated, so a goal met only sometimes shows as such (issue 29)."""
    medians = {}
    for l in lines:
        if "error" in l["client"] or not l["client"].get("rtt_ms"):
            continue
        medians.setdefault(l["server"], {})[l.get("run")] = statistics.median(l["client"]["rtt_ms"])
    pairs = sorted(r for r in medians.get("ours", {}) if r in medians.get("pms", {}))
    if not pairs:
        return
    ratios = [medians["ours"][r] / medians["pms"][r] for r in pairs]
    goal = GOALS["rtt_ms"]
    print("  device_command round trip, run by run (ours / PMS ms, ratio):")
    print("    " + ", ".join(f"{medians['ours'][r]:.2f}/{medians['pms'][r]:.2f} {x:.2f}x" for r, x in zip(pairs, ratios)))
    print(f"    ratio min {min(ratios):.2f}x, median {statistics.median(ratios):.2f}x, max {max(ratios):.2f}x; "
          f"goal {goal:.2f}x met in {sum(x <= goal for x in ratios)} of {len(ratios)} runs")


def many_sequential(lines):
    print("many nodes, commissioned one after another (as python-matter-server can), same devices, same 8.1.2 client")
    rows = [("commissioned", lambda c: f"{c['commissioned']}/{c['count']}"),
            ("commissioning wall (s)", lambda c: f"{c['wall_ms'] / 1000:.1f}"),
            ("per device (ms, median)", lambda c: f"{statistics.median(c['commission_ms']):.0f}" if c["commission_ms"] else "-"),
            ("idle CPU (% of one core)", lambda c: f"{c['idle_cpu_percent']:.2f}"),
            ("resident memory (MB)", lambda c: f"{c['rss_kb'] / 1024:.1f}"),
            ("round trip at 20/s (ms, median)", lambda c: f"{statistics.median(c['rtt_ms']):.1f}" if c["rtt_ms"] else "-"),
            ("round trip at 20/s (ms, p99)", lambda c: f"{p99(c['rtt_ms']):.1f}" if c["rtt_ms"] else "-"),
            ("commands failed", lambda c: str(c["command_errors"]))]
    for n in sorted({l["n"] for l in lines}):
        got = {l["server"]: l["client"] for l in lines if l["n"] == n}
        print(f"  {n} devices {'':26} {'ours':>10} {'PMS':>10}")
        for label, show in rows:
            cells = [show(got[s]) if s in got and "error" not in got[s] else "failed" if s in got else "-" for s in ("ours", "pms")]
            print(f"    {label:36} {cells[0]:>10} {cells[1]:>10}")
        for server, client in got.items():
            if "error" in client or client.get("failures"):
                print(f"    {server}: {client.get('error') or client['failures']}")


def bridge(lines):
    print("a bridge: our hub vs python-matter-server 8.1.2, same virtual bridge, same 8.1.2 client")
    rows = [("commissioning with the interview (ms)", lambda rs: statistics.median(r["client"]["commission_ms"] for r in rs)),
            ("endpoints in the node data", lambda rs: statistics.median(r["client"].get("endpoints", 0) for r in rs)),
            ("device_command round trip (ms, median)", lambda rs: statistics.median(v for r in rs for v in r["client"]["rtt_ms"])),
            ("command -> attribute_updated (ms, median)", lambda rs: statistics.median(v for r in rs for v in r["client"]["update_ms"])),
            ("server CPU per toggle and its report (ms)", lambda rs: statistics.median(r["client"].get("cpu_ms_per_toggle", 0) for r in rs)),
            ("device-side changes a second", lambda rs: statistics.median(r["client"].get("churn_rate", 0) for r in rs)),
            ("  of them reaching the client (%)", lambda rs: statistics.median(
                100 * r["client"].get("churn_events", 0) / max(1, r["client"].get("churn_changes", 0)) for r in rs)),
            ("  server CPU per change (ms)", lambda rs: statistics.median(r["client"].get("cpu_ms_per_change") or 0 for r in rs)),
            ("resident memory (MB)", lambda rs: statistics.median(r["rss_kb"] / 1024 for r in rs))]
    for n in sorted({l["lights"] for l in lines}):
        got = {s: [l for l in lines if l["lights"] == n and l["server"] == s and "error" not in l["client"]] for s in ("ours", "pms")}
        print(f"  {n} bridged lights (runs: ours {len(got['ours'])}, PMS {len(got['pms'])}) {'ours':>12} {'PMS':>10} {'ratio':>8}")
        for label, figure in rows:
            ours = figure(got["ours"]) if got["ours"] else None
            pms = figure(got["pms"]) if got["pms"] else None
            ratio = f"{ours / pms:.3f}x" if ours is not None and pms else "-"
            fmt = lambda v: "-" if v is None else f"{v:10.1f}"
            print(f"    {label:44} {fmt(ours)} {fmt(pms)} {ratio:>8}")
    # What one more bridged light costs: the resident memory's growth between the sizes.
    sizes = sorted({l["lights"] for l in lines})
    if len(sizes) >= 2:
        def rss(server, n):
            rs = [l["rss_kb"] for l in lines if l["lights"] == n and l["server"] == server and "error" not in l["client"]]
            return statistics.median(rs) if rs else None
        small, big = sizes[0], sizes[-1]
        cells = []
        for server in ("ours", "pms"):
            a, b = rss(server, small), rss(server, big)
            cells.append(None if a is None or b is None else (b - a) / (big - small))
        ratio = f"{cells[0] / cells[1]:.3f}x" if None not in cells and cells[1] else "-"
        fmt = lambda v: "-" if v is None else f"{v:10.1f}"
        print(f"  memory per bridged light, {small} to {big} (KB)    {fmt(cells[0])} {fmt(cells[1])} {ratio:>8}")


def ota(lines):
    print("== ota: firmware over BDX from our hub (median of runs)")
    print(f"  {'where':10} {'image MB':>8} {'runs':>5} {'ota update s':>13} {'transfer s':>11} {'MB/s':>7}")
    for where in ("lab", "loopback"):
        for mb in sorted({l["mb"] for l in lines}):
            chosen = [l for l in lines if l["where"] == where and l["mb"] == mb]
            if not chosen:
                continue
            update = statistics.median(l["update_s"] for l in chosen)
            transfer = statistics.median(l["transfer_s"] for l in chosen)
            rate = statistics.median(l["bytes"] / l["transfer_s"] / 1e6 for l in chosen if l["transfer_s"] > 0)
            print(f"  {where:10} {mb:>8} {len(chosen):>5} {update:>13.2f} {transfer:>11.2f} {rate:>7.2f}")


def main(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    sections = {"one-node": one_node, "many-sequential": many_sequential, "bridge": bridge, "ota": ota}
    for name, show in sections.items():
        chosen = [l for l in lines if l.get("section") == name]
        if chosen:
            show(chosen)
    if not lines:
        print("no results")
        return 1
    return 0


sys.exit(main(sys.argv[1]))
