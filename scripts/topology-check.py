#!/usr/bin/env python3
"""Asks a running MatterHub hub for the network map with matter-python-client (what Home
Assistant's Matter network map uses) and checks the graph of a known lab: two Thread devices that
hear each other (A reports B at LQI 3, B reports A at LQI 1), a Thread neighbour of A's that is not
the hub's (LQI 2), and a Wi-Fi device (RSSI -75 dBm, SSID "Home").

    topology-check.py ws://127.0.0.1:PORT/ws NODE_A NODE_B NODE_C EXTADDR_A EXTADDR_B EXTADDR_X

Every answer and event is parsed into the client's own NetworkTopology dataclasses. After the
first answer it prints 'asked'; the test then makes A report B as dead and forget the neighbour,
and the script waits for the network_topology_updated that shows it. Run it with the python of
.peers/ohf-client-mpc (matter-python-client 1.6.1). Prints one line per check and
'N passed, N failed'; exits 1 on any failure. Every wait is bounded.
"""
import asyncio
import sys

import aiohttp
from matter_server.common.errors import MatterError
from matter_server.common.helpers.util import dataclass_from_dict
from matter_server.common.models import EventType, NetworkTopology

from ohfcheck import check, listening_client, run, wait_for


def link(topology, a, b):
    """The connection between graph ids a and b (either direction), as (connection, a_to_b, b_to_a)."""
    for c in topology.connections:
        if (c.source, c.target) == (a, b):
            return c, c.source_to_target, c.target_to_source
        if (c.source, c.target) == (b, a):
            return c, c.target_to_source, c.source_to_target
    return None, None, None


async def thread_diagnostics(client, events, ext_a, ext_b):
    """Schema 12's get_thread_diagnostics as matter-python-client sends it: every network's batch
    at once (a refresh follows as thread_diagnostics_updated), one network's by ext_pan_id, an
    unknown network's empty batch, a malformed id refused with error 8."""
    async def ask(**args):
        if client.server_info.schema_version >= 12:
            return await asyncio.wait_for(client.get_thread_diagnostics(**args), 30)
        return await asyncio.wait_for(client.send_command("get_thread_diagnostics", **args), 30)

    batches = await ask()
    check("get_thread_diagnostics gives one batch per Thread network",
          isinstance(batches, list) and len(batches) == 1, repr(batches))
    batch = batches[0] if batches else {}
    check("the batch names the network the nodes joined, from the hub's nodes",
          (batch.get("extPanIdHex"), batch.get("networkName"), batch.get("source")) == ("39758EC8144B07FB", "OpenThread-5938", "matter")
          and isinstance(batch.get("collectedAt"), int) and "partialReason" not in batch, repr(batch))
    found = {n.get("extMacAddress"): n for n in batch.get("nodes", [])}
    node_a, node_b = found.get(ext_a), found.get(ext_b)
    check("A is a full Thread device that keeps its radio on, B an end device",
          node_a and node_a.get("mode") == {"rxOnWhenIdle": True, "ftd": True, "fullNetworkData": True}
          and node_b and node_b.get("mode") == {"rxOnWhenIdle": True, "ftd": False, "fullNetworkData": False}, repr(found))
    check("each node has its RLOC16 and the partition's leader data",
          node_a and isinstance(node_a.get("rloc16"), int) and (node_a.get("leaderData") or {}).get("partitionId") == 0x4D480001,
          repr(node_a))
    update = await wait_for(events, lambda e: e[0] == EventType.THREAD_DIAGNOSTICS_UPDATED, 30)
    check("the background refresh arrives as thread_diagnostics_updated",
          update is not None and update[1].get("extPanIdHex") == "39758EC8144B07FB", repr(update))
    one = await ask(ext_pan_id="39758ec8144b07fb", force=True)
    check("ext_pan_id (any case) with force gives that network's batch after reading the nodes again",
          isinstance(one, dict) and one.get("extPanIdHex") == "39758EC8144B07FB" and len(one.get("nodes", [])) == 2, repr(one))
    other = await ask(ext_pan_id="0000000000000001")
    check("a network none of the hub's nodes is on gives an empty batch saying so",
          isinstance(other, dict) and other.get("nodes") == [] and other.get("partialReason") == "no_source", repr(other))
    try:
        await asyncio.wait_for(client.send_command("get_thread_diagnostics", ext_pan_id="not-hex"), 10)
        check("a malformed ext_pan_id is refused", False, "it was accepted")
    except MatterError as error:
        check("a malformed ext_pan_id is refused with InvalidArguments (8)", getattr(error, "error_code", None) == 8, repr(error))


async def main(url, a, b, c, ext_a, ext_b, ext_x):
    async with aiohttp.ClientSession() as session:
        client, listen, events = await listening_client(url, session)
        # Sent by name: the client's get_network_topology() also wants server_info's schema >= 13.
        raw = await asyncio.wait_for(client.send_command("get_network_topology", refresh=True), 60)
        topology = dataclass_from_dict(NetworkTopology, raw)
        check("get_network_topology parses into matter-python-client's NetworkTopology", isinstance(topology, NetworkTopology))
        nodes = {n.id: n for n in topology.nodes}
        node_a, node_b, node_c = nodes.get(a), nodes.get(b), nodes.get(c)
        check("the three nodes are matter nodes with their node_id",
              all(n is not None and n.kind == "matter" and str(n.node_id) == i for n, i in ((node_a, a), (node_b, b), (node_c, c))),
              repr(topology.nodes))
        check("A and B are on Thread with their extended addresses and roles",
              node_a and node_b and (node_a.network_type, node_b.network_type) == ("thread", "thread")
              and (node_a.ext_address, node_b.ext_address) == (ext_a, ext_b)
              and (node_a.role, node_b.role) == ("router", "end_device"),
              repr((node_a, node_b)))
        check("A's Thread network name and extended PAN ID come from the dataset it joined",
              node_a and node_a.network_name == "OpenThread-5938" and node_a.ext_pan_id == "39758EC8144B07FB",
              repr(node_a))
        connection, a_to_b, b_to_a = link(topology, a, b)
        check("A-B is one Thread link, strong, with each side's own report (A: LQI 3, B: LQI 1)",
              connection is not None and connection.network == "thread" and connection.strength == "strong"
              and a_to_b and (a_to_b.strength, a_to_b.lqi, a_to_b.rssi) == ("strong", 3, -58)
              and b_to_a and (b_to_a.strength, b_to_a.lqi) == ("weak", 1),
              repr(connection))
        unknown = nodes.get(f"unknown_{ext_x}")
        check("A's neighbour that is not the hub's is a thread_unknown node, a router",
              unknown is not None and unknown.kind == "thread_unknown" and unknown.role == "router"
              and unknown.ext_address == ext_x, repr(unknown))
        connection, _, _ = link(topology, a, f"unknown_{ext_x}")
        check("linked to A at medium strength", connection is not None and connection.strength == "medium", repr(connection))
        ap = nodes.get("ap_024D48000001")
        check("the Wi-Fi device's access point is a wifi_ap node with its BSSID and SSID",
              ap is not None and ap.kind == "wifi_ap" and ap.bssid == "02:4D:48:00:00:01" and ap.ssid == "Home",
              repr(ap))
        check("the Wi-Fi device is a station on SSID Home",
              node_c and (node_c.network_type, node_c.role, node_c.ssid) == ("wifi", "station", "Home"), repr(node_c))
        connection, c_to_ap, _ = link(topology, c, "ap_024D48000001")
        check("C-AP is a Wi-Fi link at medium strength (-75 dBm)",
              connection is not None and connection.network == "wifi" and connection.strength == "medium"
              and c_to_ap and c_to_ap.rssi == -75, repr(connection))
        cached = dataclass_from_dict(NetworkTopology, await asyncio.wait_for(client.send_command("get_network_topology"), 10))
        check("without refresh the same graph comes from the cache",
              sorted(n.id for n in cached.nodes) == sorted(nodes) and len(cached.connections) == len(topology.connections),
              repr(cached))

        await thread_diagnostics(client, events, ext_a, ext_b)

        print("asked", flush=True)

        def changed(item):
            event, data = item
            if event != EventType.NETWORK_TOPOLOGY_UPDATED:
                return False
            ids = {n.id for n in data.nodes}
            connection, a_to_b, _ = link(data, a, b)
            return f"unknown_{ext_x}" not in ids and connection is not None and a_to_b is not None and a_to_b.strength == "none"

        update = await wait_for(events, changed, 30)
        check("network_topology_updated shows A's report of B dead and its other neighbour gone", update is not None)
        if update is not None:
            connection, _, b_to_a = link(update[1], a, b)
            check("A-B stays, at B's weak report", connection.strength == "weak" and b_to_a.strength == "weak", repr(connection))
        listen.cancel()
        await client.disconnect()


if __name__ == "__main__":
    sys.exit(run(main(*sys.argv[1:8])))
