#!/usr/bin/env python3
"""Multi-admin through a running hub, seen by the real Matter Server client: the client
commissions a device through the hub, asks the hub to open a commissioning window, the CHIP SDK
controller (another fabric) joins with the returned code and toggles the device twice; each change
must reach the client as attribute_updated [node, "1/6/0", value], in order.

    ohf-hub-share-check.py ws://127.0.0.1:PORT/ws SETUP_CODE CHIP_WORKDIR

Run it with the python of .peers/ohf-client, as root inside a lab host (scripts/chip-controller
needs a mount namespace). Prints one line per check and 'N passed, N failed'; exits 1 on any
failure. Every wait is bounded.
"""
import asyncio
import json
import os
import sys

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.common.models import EventType

from ohfcheck import check, listening_client, run, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


async def chip_controller(workdir, code):
    """Runs scripts/chip-controller (commission with code, read, toggle twice, keep its fabric);
    returns its exit status and its JSON result lines."""
    proc = await asyncio.create_subprocess_exec(os.path.join(ROOT, "scripts/chip-controller"), workdir, "--code", code,
                                                "--keep", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await asyncio.wait_for(proc.communicate(), 150)
    try:
        with open(os.path.join(workdir, "results.jsonl")) as f:
            lines = [json.loads(line) for line in f if line.strip()]
    except OSError:
        lines = []
    if proc.returncode != 0:
        print(output.decode(errors="replace")[-3000:], flush=True)
    return proc.returncode, lines


async def main(url, code, workdir):
    async with aiohttp.ClientSession() as session:
        client, listen, events = await listening_client(url, session)
        node_data = await asyncio.wait_for(client.commission_with_code(code, network_only=True), 60)
        node_id = node_data.node_id
        updates = asyncio.Queue()
        client.subscribe_events(lambda event, value: updates.put_nowait(value), EventType.ATTRIBUTE_UPDATED,
                                node_filter=node_id, attr_path_filter="1/6/0")

        window = await asyncio.wait_for(client.open_commissioning_window(node_id), 15)
        check("open_commissioning_window gives a QR code and a pin",
              window.setup_qr_code.startswith("MT:") and window.setup_pin_code > 0, repr(window))
        status, lines = await chip_controller(workdir, window.setup_qr_code)
        steps = {line.get("step"): line for line in lines if "step" in line}
        check("the CHIP controller commissions the device with the hub's code",
              steps.get("commission", {}).get("ok") is True, repr(lines[-3:]))
        on_off = steps.get("on-off", {})
        check("the CHIP controller toggles it", status == 0 and on_off.get("ok") is True, repr(on_off))
        before = on_off.get("before")
        # The controller toggled twice: not-before, then before again.
        first = await wait_for(updates, lambda value: value == (not before))
        check("its first toggle reaches our client as attribute_updated", first is not None)
        second = await wait_for(updates, lambda value: value == before)
        check("its second toggle reaches our client as attribute_updated", second is not None)
        node = client.get_node(node_id)
        check("the client's cluster object follows", node.endpoints[1].get_cluster(Clusters.OnOff).onOff == before)
        fabrics = await asyncio.wait_for(client.read_attribute(node_id, "0/62/3"), 10)
        check("the device now has two fabrics (CommissionedFabrics)", fabrics.get("0/62/3") == 2, repr(fabrics))
        check("the listen loop is still running", not listen.done(), repr(listen.done() and listen.exception()))
        await client.disconnect()


sys.exit(run(main(sys.argv[1], sys.argv[2], sys.argv[3])))
