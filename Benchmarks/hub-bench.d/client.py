#!/usr/bin/env python3
"""The measuring client of Benchmarks/hub-bench: the real Matter Server client
(python-matter-server 8.1.2) against one server (our hub or python-matter-server), one virtual
device. Prints one JSON object: the commissioning time through the API, every device_command
round trip, and every time from a command to its attribute_updated (milliseconds).

    client.py ws://127.0.0.1:5580/ws SETUP_CODE [TOGGLES [ENDPOINT [SERVER_PID [CHURN_FIFO CHURN_RATE]]]]

ENDPOINT (default 1) is the On/Off endpoint toggled (a bridged light's on a bridge); with
SERVER_PID, the server's CPU time over the toggles is measured too (cpu_ms_per_toggle: the
command, its report and the attribute_updated, per toggle). With CHURN_FIFO (the device's stdin)
and CHURN_RATE, the device then changes its lights by itself ('churn R') for CHURN_SECONDS (15):
the On/Off attribute_updated events the client got and the server's CPU per change.

Run with the python of .peers/ohf-client. Every wait is bounded; a failure prints
{"error": ...} and exits 1.
"""
import asyncio
import json
import os
import sys
import time

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.common.models import EventType

# scripts/ohfcheck.py: connect_when_up, the retrying connect (python-matter-server takes a while
# to start); many.py imports it from here as `connect`.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from ohfcheck import connect_when_up as connect  # noqa: E402


def cpu_ms(pid):
    """The process's user and system CPU time so far, in milliseconds (/proc/PID/stat)."""
    if pid is None:
        return None
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


async def churn(client, node_id, server_pid, fifo, rate, seconds=None):
    """Device-side changes at `rate` a second for `seconds`: how many reached the client as On/Off
    attribute_updated, and the server's CPU per change (the report, the cache, the event)."""
    seconds = seconds or float(os.environ.get("CHURN_SECONDS", "15"))
    events = []
    unsubscribe = client.subscribe_events(
        lambda event, data: events.append(data), EventType.ATTRIBUTE_UPDATED, node_filter=node_id)
    with open(fifo, "w") as device:
        cpu_before = cpu_ms(server_pid)
        device.write(f"churn {rate}\n")
        device.flush()
        await asyncio.sleep(seconds)
        device.write("churn 0\n")
        device.flush()
    await asyncio.sleep(2)  # the last reports (max interval floor) arrive
    cpu_after = cpu_ms(server_pid)
    unsubscribe()
    changes = rate * seconds
    on_off = sum(1 for data in events if isinstance(data, bool))
    return {"churn_rate": rate, "churn_seconds": seconds, "churn_changes": changes, "churn_events": on_off,
            "cpu_ms_per_change": (cpu_after - cpu_before) / changes if cpu_before is not None else None}


async def main(url, code, toggles, endpoint=1, server_pid=None, churn_fifo=None, churn_rate=0.0):
    async with aiohttp.ClientSession() as session:
        client = await connect(url, session)
        ready = asyncio.Event()
        listen = asyncio.create_task(client.start_listening(ready))
        await asyncio.wait_for(ready.wait(), 30)
        start = time.monotonic()
        node = await asyncio.wait_for(client.commission_with_code(code, network_only=True), 120)
        commission_ms = (time.monotonic() - start) * 1000
        updates = asyncio.Queue()
        client.subscribe_events(lambda event, value: updates.put_nowait((time.monotonic(), value)),
                                EventType.ATTRIBUTE_UPDATED, node_filter=node.node_id, attr_path_filter=f"{endpoint}/6/0")
        rtt, to_update = [], []
        cpu_before = cpu_ms(server_pid)
        for _ in range(toggles):
            while not updates.empty():
                updates.get_nowait()
            t0 = time.monotonic()
            await asyncio.wait_for(client.send_device_command(node.node_id, endpoint, Clusters.OnOff.Commands.Toggle()), 10)
            rtt.append((time.monotonic() - t0) * 1000)
            arrived, _ = await asyncio.wait_for(updates.get(), 10)
            to_update.append((arrived - t0) * 1000)
        cpu_after = cpu_ms(server_pid)
        result = {"node_id": node.node_id, "commission_ms": commission_ms, "rtt_ms": rtt, "update_ms": to_update,
                  "endpoints": len({int(path.split("/")[0]) for path in node.attributes})}
        if cpu_before is not None:
            result["cpu_ms_per_toggle"] = (cpu_after - cpu_before) / max(1, toggles)
        if churn_fifo:
            result.update(await churn(client, node.node_id, server_pid, churn_fifo, churn_rate))
        print(json.dumps(result), flush=True)
        listen.cancel()
        await client.disconnect()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 20,
                         int(sys.argv[4]) if len(sys.argv) > 4 else 1, int(sys.argv[5]) if len(sys.argv) > 5 else None,
                         sys.argv[6] if len(sys.argv) > 6 else None, float(sys.argv[7]) if len(sys.argv) > 7 else 0.0))
    except Exception as error:
        print(json.dumps({"error": repr(error)}), flush=True)
        sys.exit(1)
