#!/usr/bin/env python3
"""The measuring client of Benchmarks/hub-bench: the real Matter Server client
(python-matter-server 8.1.2) against one server (our hub or python-matter-server), one virtual
device. Prints one JSON object: the commissioning time through the API, every device_command
round trip, and every time from a command to its attribute_updated (milliseconds).

    client.py ws://127.0.0.1:5580/ws SETUP_CODE [TOGGLES]

Run with the python of .peers/ohf-client. Every wait is bounded; a failure prints
{"error": ...} and exits 1.
"""
import asyncio
import json
import sys
import time

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.client import MatterClient
from matter_server.common.models import EventType


async def connect(url, session, seconds=90):
    """Connects once the server answers (python-matter-server takes a while to start)."""
    deadline = time.monotonic() + seconds
    while True:
        client = MatterClient(url, session)
        try:
            await asyncio.wait_for(client.connect(), 10)
            return client
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.5)


async def main(url, code, toggles):
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
                                EventType.ATTRIBUTE_UPDATED, node_filter=node.node_id, attr_path_filter="1/6/0")
        rtt, to_update = [], []
        for _ in range(toggles):
            while not updates.empty():
                updates.get_nowait()
            t0 = time.monotonic()
            await asyncio.wait_for(client.send_device_command(node.node_id, 1, Clusters.OnOff.Commands.Toggle()), 10)
            rtt.append((time.monotonic() - t0) * 1000)
            arrived, _ = await asyncio.wait_for(updates.get(), 10)
            to_update.append((arrived - t0) * 1000)
        print(json.dumps({"node_id": node.node_id, "commission_ms": commission_ms, "rtt_ms": rtt, "update_ms": to_update}),
              flush=True)
        listen.cancel()
        await client.disconnect()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 20))
    except Exception as error:
        print(json.dumps({"error": repr(error)}), flush=True)
        sys.exit(1)
