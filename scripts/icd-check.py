#!/usr/bin/env python3
"""Drives a running MatterHub hub with matter-python-client (1.6.1) through a sleepy device's
life: matterjs-server's ICD commands (get_icd_state, register_icd, unregister_icd, resync_icd),
each answer parsed into the client's IcdStateData, and a command sent while the device sleeps.

    icd-check.py ws://127.0.0.1:PORT/ws SETUP_CODE IDLE_SECONDS

The hub must reach a commissionable LIT virtual light (`virtual-device --icd lit`) with that code,
waking every IDLE_SECONDS. It leaves the light registered with the hub. Prints one line per check and 'N passed, N failed'; exits 1 on any
failure. Every wait is bounded.
"""
import asyncio
import sys
import time

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.common.errors import MatterError, NodeNotExists
from matter_server.common.models import EventType, IcdStateData

from ohfcheck import check, listening_client, run


async def icd_state_until(client, node_id, predicate, seconds):
    """The node's IcdStateData once predicate holds for it, within seconds (else the last one)."""
    deadline = time.monotonic() + seconds
    while True:
        state = await asyncio.wait_for(client.get_icd_state(node_id), 10)
        if predicate(state) or time.monotonic() > deadline:
            return state
        await asyncio.sleep(0.2)


async def main(url, code, idle):
    async with aiohttp.ClientSession() as session:
        client, listen, events = await listening_client(url, session)
        check("the hub serves schema 12 or later", client.server_info.schema_version >= 12,
              str(client.server_info.schema_version))
        node_id = (await asyncio.wait_for(client.commission_with_code(code, network_only=True), 60)).node_id
        # Every availability the hub announces for the node from here on (node_updated).
        availability = []
        client.subscribe_events(lambda event, data: availability.append(getattr(data, "available", None)),
                                EventType.NODE_UPDATED, node_filter=node_id)

        state = await asyncio.wait_for(client.get_icd_state(node_id), 10)
        check("get_icd_state parses into IcdStateData", isinstance(state, IcdStateData), repr(state))
        check("the hub registered with the LIT-capable device when it commissioned it",
              state.supported is True and state.lit_supported is True and state.registered is True
              and isinstance(state.next_expected_checkin, int) and state.next_expected_checkin > time.time() * 1000 - 60_000,
              repr(state))
        try:
            await asyncio.wait_for(client.get_icd_state(node_id + 1000), 10)
            check("get_icd_state of an unknown node is an error", False, "it succeeded")
        except NodeNotExists:
            check("get_icd_state of an unknown node is NodeNotExists (5)", True)

        try:
            await asyncio.wait_for(client.register_icd(node_id), 30)
            check("register_icd twice is an error", False, "it succeeded")
        except MatterError as error:
            check("register_icd twice is an error that says so", "already registered" in str(error), str(error))

        # Registered, the device sleeps between wakes; the hub says so and keeps it available.
        state = await icd_state_until(client, node_id, lambda s: s.awake is False and s.operating_mode == "LIT", 3 * idle + 10)
        check("the device is reported asleep in LIT mode, still available",
              state.awake is False and state.operating_mode == "LIT" and state.available is True, repr(state))
        node = client.get_node(node_id)
        was_on = node.endpoints[1].get_cluster(Clusters.OnOff).onOff
        started = time.monotonic()
        result = await asyncio.wait_for(client.send_device_command(node_id, 1, Clusters.OnOff.Commands.Toggle()), 3 * idle + 30)
        waited = time.monotonic() - started
        check(f"a Toggle sent while it sleeps is delivered at its wake ({waited:.1f} s later)", result is None, repr(result))
        values = await asyncio.wait_for(client.read_attribute(node_id, "1/6/0"), 3 * idle + 30)
        check("the device toggled", values.get("1/6/0") is (not was_on), repr(values))

        # Three wakes more: available all the time.
        await asyncio.sleep(3 * idle)
        check(f"available throughout ({3 * idle} s more of sleeping; no node_updated said unavailable)",
              client.get_node(node_id).available is True and False not in availability, repr(availability))

        state = await asyncio.wait_for(client.unregister_icd(node_id), 3 * idle + 30)
        check("unregister_icd answers the unregistered state", state.registered is False and state.next_expected_checkin is None,
              repr(state))
        state = await asyncio.wait_for(client.register_icd(node_id), 3 * idle + 30)
        check("register_icd after unregistering answers the registered state", state.registered is True
              and isinstance(state.next_expected_checkin, int), repr(state))
        state = await asyncio.wait_for(client.unregister_icd(node_id, force=True), 10)
        check("unregister_icd with force forgets the registration here at once", state.registered is False, repr(state))
        result = await asyncio.wait_for(client.resync_icd(node_id), 10)
        check("resync_icd answers None", result is None, repr(result))
        # The device still holds the hub's (now stale) registration and operates as LIT: once it
        # is reached again, the hub registers anew by itself (as matterjs-server's controller does).
        state = await icd_state_until(client, node_id, lambda s: s.registered is True and s.available is True, 6 * idle + 30)
        check("after resync the hub registers again by itself once it reaches the device",
              state.registered is True and state.available is True, repr(state))
        listen.cancel()
        await client.disconnect()


if __name__ == "__main__":
    sys.exit(run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
