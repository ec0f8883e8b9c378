#!/usr/bin/env python3
"""The many-node client of Benchmarks/hub-bench (section many-sequential): with the real Matter
Server client (python-matter-server 8.1.2), commissions COUNT devices one after another through
the API (python-matter-server commissions one device at a time), then measures the server holding
them: its CPU at idle over IDLE seconds and its resident memory (from /proc of SERVER_PID, which
shares this PID namespace), and device_command Toggle round trips at RATE per second, spread over
the nodes, for 15 s. Prints one JSON object.

    many.py URL SERVER_PID IDLE RATE CODE...

Run with the python of .peers/ohf-client. Every wait is bounded.
"""
import asyncio
import json
import os
import sys
import time

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.client import MatterClient

from client import connect


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


async def main(url, pid, idle, rate, codes):
    async with aiohttp.ClientSession() as session:
        client = await connect(url, session)
        ready = asyncio.Event()
        listen = asyncio.create_task(client.start_listening(ready))
        await asyncio.wait_for(ready.wait(), 30)
        nodes, commission_ms, failures = [], [], []
        start = time.monotonic()
        for code in codes:
            t0 = time.monotonic()
            try:
                node = await asyncio.wait_for(client.commission_with_code(code, network_only=True), 120)
                nodes.append(node.node_id)
                commission_ms.append((time.monotonic() - t0) * 1000)
            except Exception as error:
                failures.append(repr(error))
        wall_ms = (time.monotonic() - start) * 1000
        await asyncio.sleep(5)  # the last interviews and subscriptions settle
        c0 = cpu_seconds(pid)
        await asyncio.sleep(idle)
        idle_cpu_percent = (cpu_seconds(pid) - c0) / idle * 100
        idle_rss_kb = rss_kb(pid)
        rtt, errors = [], 0
        if nodes:
            next_at = time.monotonic()
            for i in range(int(rate * 15)):
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                next_at += 1 / rate
                t0 = time.monotonic()
                try:
                    await asyncio.wait_for(client.send_device_command(nodes[i % len(nodes)], 1, Clusters.OnOff.Commands.Toggle()), 10)
                    rtt.append((time.monotonic() - t0) * 1000)
                except Exception:
                    errors += 1
        print(json.dumps({"count": len(codes), "commissioned": len(nodes), "failures": failures[:5],
                          "wall_ms": wall_ms, "commission_ms": commission_ms, "idle_cpu_percent": idle_cpu_percent,
                          "rss_kb": idle_rss_kb, "rtt_ms": rtt, "command_errors": errors}), flush=True)
        listen.cancel()
        await client.disconnect()


try:
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5:]))
except Exception as error:
    print(json.dumps({"error": repr(error)}), flush=True)
    sys.exit(1)
