#!/usr/bin/env python3
"""Drives a MatterHub API server with the real Matter Server client (ws-api.md section 8).

    ws-client-check.py ws://127.0.0.1:PORT/ws NODE_ID

Run it with the python of .peers/ohf-client (python-matter-server 8.1.2) or .peers/ohf-client-mpc
(matter-python-client 1.6.1). The server must serve an available On/Off light as NODE_ID.
Prints one line per check and 'N passed, N failed'; exits 1 on any failure. Every wait is bounded.
"""
import asyncio
import os
import sys

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.client import MatterClient
from matter_server.common.errors import InvalidCommand, NodeNotReady
from matter_server.common.models import EventType

import ohfcheck
from ohfcheck import check

async def main(url, node_id):
    async with aiohttp.ClientSession() as session:
        client = MatterClient(url, session)
        await asyncio.wait_for(client.connect(), 10)
        info = client.server_info
        check("server info: schema >= 11 and min <= 11",
              info.schema_version >= 11 and info.min_supported_schema_version <= 11,
              f"{info.schema_version}/{info.min_supported_schema_version}")
        check("server info: compressed_fabric_id is an int", isinstance(info.compressed_fabric_id, int))

        ready = asyncio.Event()
        listen = asyncio.create_task(client.start_listening(ready))
        try:
            await asyncio.wait_for(ready.wait(), 30)
        except asyncio.TimeoutError:
            pass
        if listen.done():
            check("start_listening is running", False, repr(listen.exception()))
            return
        check("start_listening ready within 30 s", ready.is_set())

        node = client.get_node(node_id)
        check("node is available", node.available)
        types = [t.__name__ for t in node.endpoints[1].device_types]
        check("endpoint 1 is an OnOffLight", "OnOffLight" in types, str(types))
        on_off = node.endpoints[1].get_cluster(Clusters.OnOff)
        check("OnOff.onOff is a bool", isinstance(on_off.onOff, bool), repr(on_off.onOff))
        check("device_info.vendorName is set", bool(node.device_info and node.device_info.vendorName))

        updates = asyncio.Queue()
        client.subscribe_events(lambda event, data: updates.put_nowait(data), EventType.ATTRIBUTE_UPDATED,
                                node_filter=node_id, attr_path_filter="1/6/0")
        check("set_default_fabric_label returns None", await client.set_default_fabric_label("Home") is None)

        for command, expect in (("Toggle", not on_off.onOff), ("On", True), ("Off", False)):
            result = await asyncio.wait_for(
                client.send_device_command(node_id, 1, getattr(Clusters.OnOff.Commands, command)()), 10)
            check(f"device_command {command} returns None", result is None, repr(result))
            try:
                data = await asyncio.wait_for(updates.get(), 5)
                # The client signals an attribute_updated with the raw new value.
                check(f"attribute_updated after {command}", data is expect, repr(data))
            except asyncio.TimeoutError:
                check(f"attribute_updated after {command}", False, "none within 5 s")
            value = client.get_node(node_id).endpoints[1].get_cluster(Clusters.OnOff).onOff
            check(f"client's OnOff value after {command}", value is expect, repr(value))

        values = await asyncio.wait_for(client.read_attribute(node_id, ["1/6/0", "0/40/1"]), 10)
        check("read_attribute returns path -> value", isinstance(values, dict) and isinstance(values.get("1/6/0"), bool)
              and values.get("0/40/1") == node.device_info.vendorName, repr(values))

        try:
            await asyncio.wait_for(client.send_device_command(999999, 1, Clusters.OnOff.Commands.On()), 10)
            check("unknown node gives NodeNotReady", False, "no error")
        except NodeNotReady:
            check("unknown node gives NodeNotReady", True)
        except Exception as e:  # noqa: BLE001
            check("unknown node gives NodeNotReady", False, repr(e))
        try:
            await asyncio.wait_for(client.send_command("no_such_command"), 10)
            check("unknown command gives InvalidCommand", False, "no error")
        except InvalidCommand as e:
            check("unknown command gives InvalidCommand", "no_such_command" in str(e), str(e))
        except Exception as e:  # noqa: BLE001
            check("unknown command gives InvalidCommand", False, repr(e))

        await asyncio.sleep(0.2)
        check("listen task still running", not listen.done(), repr(listen.exception()) if listen.done() else "")
        await client.disconnect()
        try:
            await asyncio.wait_for(listen, 5)
        except Exception:  # noqa: BLE001
            pass


if __name__ == "__main__":
    try:
        # A token from the environment (never the argument list) goes on the URL, as a user
        # gives it to Home Assistant for a hub that requires it.
        token = os.environ.get("MATTERHUB_TOKEN")
        url = sys.argv[1] + (f"?token={token}" if token else "")
        asyncio.run(main(url, int(sys.argv[2])))
    except Exception as e:  # noqa: BLE001
        check("client ran to the end", False, repr(e))
    sys.exit(ohfcheck.summary() or (0 if ohfcheck.passed else 1))
