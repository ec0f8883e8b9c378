#!/usr/bin/env python3
"""Schema 15's write_atomic_attribute through matter-python-client 1.6.1's own method, with the
CHIP SDK's Thermostat PresetStruct objects as the value (the client turns them into tag-keyed
dicts), against a running hub that can reach a virtual thermostat (`virtual-device --kind
thermostat`) with that setup code:

    atomic-write-check.py ws://127.0.0.1:PORT/ws SETUP_CODE

Commissions it, reads Presets with its data version, writes two presets atomically, reads them
back, has a stale data version refused (DATA_VERSION_MISMATCH, 146) and then taken with
ignore_data_version_mismatch, and a preset the thermostat refuses (an unknown scenario) rolled
back with its CONSTRAINT_ERROR. Prints one line per check and 'N passed, N failed'; exits 1 on
any failure. Every wait is bounded.
"""
import asyncio
import sys

import aiohttp
from chip.clusters import Objects as Clusters

from ohfcheck import check, listening_client, run

PRESETS = "1/513/80"


def builtin(entry):
    """A preset as read (tag-keyed, the handle in base64) back as the SDK's PresetStruct."""
    import base64
    return Clusters.Thermostat.Structs.PresetStruct(
        presetHandle=base64.b64decode(entry["0"]), presetScenario=entry["1"], name=entry.get("2"),
        coolingSetpoint=entry.get("3"), heatingSetpoint=entry.get("4"), builtIn=entry.get("5"))


def preset(scenario, name, heating):
    return Clusters.Thermostat.Structs.PresetStruct(presetHandle=None, presetScenario=scenario, name=name,
                                                    heatingSetpoint=heating, builtIn=False)


async def main(url, code):
    async with aiohttp.ClientSession() as session:
        client, _, _ = await listening_client(url, session)
        check("the hub reports schema 15", client.server_info.schema_version >= 15, str(client.server_info.schema_version))
        node_id = (await asyncio.wait_for(client.commission_with_code(code, network_only=True), 60)).node_id

        async def presets():
            report = await asyncio.wait_for(client.read(node_id, attribute_paths=[PRESETS]), 10)
            return report.attributes.get(PRESETS), report.data_versions["1/513"]

        listed, version = await presets()
        kept = [builtin(p) for p in listed or []]  # the built-in presets stay (the thermostat refuses their removal)
        written = await asyncio.wait_for(client.write_atomic_attribute(
            node_id, PRESETS, kept + [preset(3, "Sleep", 1800)], version), 15)
        check("write_atomic_attribute of the presets with a new one succeeds", written and written[0]["Status"] == 0, repr(written))
        listed, _ = await presets()
        names = [p.get("2") for p in listed or []]
        check("the presets read back, the new one with a handle the thermostat gave",
              names == ["Home", "Away", "Sleep"] and all(p.get("0") for p in listed), repr(listed))

        vacation = kept + [preset(5, "Vacation", 1600)]
        stale = await asyncio.wait_for(client.write_atomic_attribute(node_id, PRESETS, vacation, version), 15)
        check("a stale data version is refused with DATA_VERSION_MISMATCH", stale and stale[0]["Status"] == 146, repr(stale))
        forced = await asyncio.wait_for(client.write_atomic_attribute(
            node_id, PRESETS, vacation, version, ignore_data_version_mismatch=True), 15)
        check("ignore_data_version_mismatch writes it again without the version", forced and forced[0]["Status"] == 0, repr(forced))

        refused = await asyncio.wait_for(client.write_atomic_attribute(
            node_id, PRESETS, kept + [preset(99, "Odd", 1600)], None, skip_data_version_check=True), 15)
        check("a preset the thermostat refuses is rolled back with CONSTRAINT_ERROR", refused and refused[0]["Status"] == 0x87,
              repr(refused))
        listed, _ = await presets()
        check("the refused write changed nothing", [p.get("2") for p in listed or []] == ["Home", "Away", "Vacation"], repr(listed))
        await asyncio.wait_for(client.remove_node(node_id), 30)
        await client.disconnect()


sys.exit(run(main(sys.argv[1], sys.argv[2])))
