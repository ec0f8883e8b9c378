#!/usr/bin/env python3
"""Drives a Matter Server (python-matter-server 8.1.2, or our hub) with the real OHF client for the
move-in tests (issue 30): commission devices on the server that is left, then check that the
server moved to serves the same nodes.

    migration-check.py commission URL SETUP_CODE...      prints {"nodes": [{"node_id", "attributes": n}, ...]}
    migration-check.py verify URL NODE_ID... [--attributes FILE] [--seconds S]
    migration-check.py api-import URL KIND STORAGE_DIR NODE_ID...

`api-import` moves the home in through the running hub's matterhub/import: the dry run must list
exactly NODE_ID..., a wrong token must be refused with nothing imported, and the dry run's token
must import them all; a listening OHF client connected before must be made to reconnect (1012).

`verify` waits (at most S seconds, default 60) until every node is listed and available, checks
that the nodes' attributes include the ones in FILE (a python-matter-server node file: NodeLabel,
VendorID, ProductID, the Fabrics list) with equal values, toggles each node's OnOff on endpoint 1
and waits for the attribute_updated of each change. It prints one line per check and
'migration: N passed, N failed'; exit 1 on any failure. Run it with the python of .peers/ohf-client
(scripts/ohfcheck.py, beside it, counts the checks).
"""
import asyncio
import json
import sys
import time

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.client import MatterClient
from matter_server.common.models import EventType

import ohfcheck
from ohfcheck import check, connect_when_up

async def listening(url, session):
    client = await connect_when_up(url, session)
    ready = asyncio.Event()
    task = asyncio.create_task(client.start_listening(ready))
    await asyncio.wait_for(ready.wait(), 60)
    return client, task


async def commission(url, codes):
    async with aiohttp.ClientSession() as session:
        client, task = await listening(url, session)
        nodes = []
        for code in codes:
            node = await asyncio.wait_for(client.commission_with_code(code, network_only=True), 120)
            nodes.append({"node_id": node.node_id, "attributes": len(node.attributes)})
        print(json.dumps({"nodes": nodes}), flush=True)
        task.cancel()


# The attributes `verify` compares with the source's node file: what identifies the device and
# the fabric it is on (values the device does not change by itself).
COMPARED = ["0/40/1", "0/40/2", "0/40/3", "0/40/4", "0/40/5", "0/62/1", "0/62/5", "1/29/0"]


async def verify(url, node_ids, attributes_file, seconds):
    expected = {}
    if attributes_file:
        with open(attributes_file) as f:
            stored = json.load(f)["nodes"]
        expected = {int(k): v.get("attributes", {}) for k, v in stored.items()}
    async with aiohttp.ClientSession() as session:
        start = time.monotonic()
        client, task = await listening(url, session)
        deadline = start + seconds
        listed = {}
        while time.monotonic() < deadline:
            listed = {n.node_id: n for n in client.get_nodes()}
            if all(i in listed and listed[i].available for i in node_ids):
                break
            await asyncio.sleep(0.2)
        elapsed = time.monotonic() - start
        check(f"the server lists nodes {sorted(listed)} (wanted {sorted(node_ids)})", set(node_ids) <= set(listed))
        check(f"all {len(node_ids)} available within {seconds} s (took {elapsed:.1f} s)",
              all(i in listed and listed[i].available for i in node_ids))
        print(f"migration: available after {elapsed:.2f} s", flush=True)
        for node_id in node_ids:
            node = listed.get(node_id)
            if node is None:
                continue
            want = expected.get(node_id, {})
            for path in COMPARED:
                if path in want:
                    got = node.node_data.attributes.get(path)
                    check(f"node {node_id} {path} is what the old server had", got == want[path], f"{got!r} != {want[path]!r}")
            updates = asyncio.Queue()
            unsubscribe = client.subscribe_events(lambda event, value: updates.put_nowait(value), EventType.ATTRIBUTE_UPDATED,
                                                  node_filter=node_id, attr_path_filter="1/6/0")
            before = node.get_attribute_value(1, None, Clusters.OnOff.Attributes.OnOff)
            try:
                await asyncio.wait_for(client.send_device_command(node_id, 1, Clusters.OnOff.Commands.Toggle()), 15)
                value = await asyncio.wait_for(updates.get(), 15)
                check(f"node {node_id} toggles ({before} -> {value})", value == (not before), repr(value))
            except Exception as error:  # a timeout or the server's error
                check(f"node {node_id} toggles", False, repr(error))
            unsubscribe()
        task.cancel()


async def hub_call(ws, counter, command, args):
    counter[0] += 1
    message_id = f"import-{counter[0]}"
    await ws.send_json({"message_id": message_id, "command": command, "args": args})
    while True:
        frame = await asyncio.wait_for(ws.receive_json(), 60)
        if frame.get("message_id") == message_id:
            return frame


async def api_import(url, kind, storage, node_ids):
    async with aiohttp.ClientSession() as session:
        listener, task = await listening(url, session)
        ws = await session.ws_connect(url)
        await ws.receive_json()  # server info
        counter = [0]
        check("matterhub/enable", "result" in await hub_call(ws, counter, "matterhub/enable", {}))
        args = {"kind": kind, "path": storage}
        dry = await hub_call(ws, counter, "matterhub/import", args)
        plan = dry.get("result", {})
        planned = sorted(n["node_id"] for n in plan.get("plan", {}).get("nodes", []) if n.get("imported"))
        check(f"the dry run plans nodes {planned} (wanted {sorted(node_ids)})", planned == sorted(node_ids), repr(dry)[:300])
        wrong = await hub_call(ws, counter, "matterhub/import", dict(args, confirm="0" * 32))
        check("a token that is not the dry run's is refused", wrong.get("matterhub_error") == "importRefused", repr(wrong)[:300])
        devices = await hub_call(ws, counter, "matterhub/devices", {})
        check("nothing was imported before the confirmation", devices.get("result") == [], repr(devices)[:300])
        start = time.monotonic()
        done = await hub_call(ws, counter, "matterhub/import", dict(args, confirm=plan.get("confirm", "")))
        result = done.get("result", {})
        check(f"the confirmed import took {result.get('imported')} nodes in {1000 * (time.monotonic() - start):.0f} ms",
              result.get("imported") == len(node_ids), repr(done)[:300])
        # Its listen loop ends when the hub closes the connection (quietly, or raising ConnectionClosed).
        try:
            await asyncio.wait_for(task, 15)
            ended = "ended"
        except asyncio.TimeoutError:
            ended = None
        except Exception as error:  # noqa: BLE001
            ended = f"ended: {type(error).__name__}"
        check(f"the listening OHF client was made to reconnect ({ended or 'still connected after 15 s'})", ended is not None)
        await ws.close()
        del listener


def main(argv):
    if len(argv) >= 3 and argv[1] == "commission":
        asyncio.run(commission(argv[2], argv[3:]))
        return 0
    if len(argv) >= 3 and argv[1] == "verify":
        args, attributes, seconds = [], None, 60.0
        it = iter(argv[3:])
        for a in it:
            if a == "--attributes":
                attributes = next(it)
            elif a == "--seconds":
                seconds = float(next(it))
            else:
                args.append(int(a))
        asyncio.run(verify(argv[2], args, attributes, seconds))
        print("migration: ", end="")
        return ohfcheck.summary() if ohfcheck.passed > 0 else 1
    if len(argv) >= 5 and argv[1] == "api-import":
        asyncio.run(api_import(argv[2], argv[3], argv[4], [int(a) for a in argv[5:]]))
        print("migration: ", end="")
        return ohfcheck.summary() if ohfcheck.passed > 0 else 1
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
