#!/usr/bin/env python3
"""Firmware updates through a running hub with the real Matter Server client (matter-python-client):
from the DCL (the lab's HTTPS stand-in, scripts/dcl-standin.py), from a local upload, and a
device that refuses the first image it downloads.

    ohf-ota-check.py ws://127.0.0.1:PORT/ws CODE FAULT_CODE IMAGE_V3

CODE is a virtual light at version 1; FAULT_CODE one at version 1 with --fault ota-refuse-image;
the hub's DCL publishes version 2 of their product (FFF1/8000) for version 1; IMAGE_V3 is version 3
of it, uploaded here. Prints one line per check and 'N passed, N failed'; exits 1 on any failure.
Every wait is bounded.
"""
import asyncio
import sys
from pathlib import Path

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.common.errors import MatterError
from matter_server.common.models import EventType

from ohfcheck import check, listening_client, run


def follow(client, node_id):
    """The requestor's UpdateState (0/42/2) and UpdateStateProgress (0/42/3) values the client is told."""
    seen = {"0/42/2": [], "0/42/3": []}
    for path, values in seen.items():
        client.subscribe_events(lambda event, value, values=values: values.append(value), EventType.ATTRIBUTE_UPDATED,
                                node_id, path)
    return seen


async def version(client, node_id):
    return (await asyncio.wait_for(client.read_attribute(node_id, "0/40/9"), 15)).get("0/40/9")


async def update(client, node_id, to, seconds=180):
    """update_node to `to`; the seconds it took."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.wait_for(client.update_node(node_id, to), seconds)
    return loop.time() - started


async def main(url, code, fault_code, image_v3):
    async with aiohttp.ClientSession() as session:
        client, listen, events = await listening_client(url, session)
        node = (await asyncio.wait_for(client.commission_with_code(code, network_only=True), 60)).node_id
        seen = follow(client, node)

        # From the DCL: the stand-in lists version 2 for nodes at 1.
        offer = await asyncio.wait_for(client.check_node_update(node), 30)
        check("check_node_update offers version 2 from the DCL as a MatterSoftwareVersion",
              offer is not None and offer.software_version == 2 and offer.software_version_string == "2.0.0"
              and offer.update_source.value == "main-net-dcl" and offer.vid == 0xFFF1 and offer.pid == 0x8000, repr(offer))
        took = await update(client, node, 2)
        print(f"update_node to version 2 from the DCL returned after {took:.1f} s", flush=True)
        check("the node runs version 2", await version(client, node) == 2)
        check("the client saw the requestor download (UpdateState 4) with progress between 0 and 100",
              4 in seen["0/42/2"] and any(isinstance(p, int) and 0 < p < 100 for p in seen["0/42/3"]), repr(seen))
        check("check_node_update: up to date", await asyncio.wait_for(client.check_node_update(node), 30) is None)

        # A local upload (schema 13): version 3, offered to the node at version 2 and installed.
        stored = await asyncio.wait_for(client.upload_ota_file(Path(image_v3).read_bytes()), 30)
        check("upload_ota_file stores version 3", stored.software_version == 3 and stored.update_source.value == "local", repr(stored))
        offer = await asyncio.wait_for(client.check_node_update(node), 30)
        check("check_node_update offers the uploaded version 3", offer is not None and offer.software_version == 3
              and offer.update_source.value == "local", repr(offer))
        took = await update(client, node, 3)
        print(f"update_node to the uploaded version 3 returned after {took:.1f} s", flush=True)
        check("the node runs version 3", await version(client, node) == 3)

        # A device that refuses the first image it downloads: a named error, still version 1 and
        # controllable, and the retry installs it.
        faulty = (await asyncio.wait_for(client.commission_with_code(fault_code, network_only=True), 60)).node_id
        offer = await asyncio.wait_for(client.check_node_update(faulty), 30)
        check("check_node_update offers the faulty device version 3", offer is not None and offer.software_version == 3, repr(offer))
        try:
            await update(client, faulty, 3)
            check("update_node of a device that refuses the image is an error", False, "it succeeded")
        except MatterError as error:
            check("update_node of a device that refuses the image names the step", "refused" in str(error), str(error))
        check("the faulty device still runs version 1", await version(client, faulty) == 1)
        before = (await asyncio.wait_for(client.read_attribute(faulty, "1/6/0"), 15)).get("1/6/0")
        await asyncio.wait_for(client.send_device_command(faulty, 1, Clusters.OnOff.Commands.Toggle()), 15)
        after = (await asyncio.wait_for(client.read_attribute(faulty, "1/6/0"), 15)).get("1/6/0")
        check("the faulty device is still controllable", before is not None and after == (not before), f"{before} -> {after}")
        await asyncio.sleep(1)
        took = await update(client, faulty, 3)
        print(f"the retry returned after {took:.1f} s", flush=True)
        check("the retry installs version 3", await version(client, faulty) == 3)
        listen.cancel()
        await client.disconnect()


sys.exit(run(main(*sys.argv[1:5])))
