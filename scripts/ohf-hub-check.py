#!/usr/bin/env python3
"""Drives a running MatterHub hub (`matterctl hub serve`) with the real Matter Server client
through a device's whole life: commission, control, read and write, share, interview, remove.

    ohf-hub-check.py ws://127.0.0.1:PORT/ws SETUP_CODE

Run it with the python of .peers/ohf-client (python-matter-server 8.1.2) or .peers/ohf-client-mpc
(matter-python-client 1.6.1). The hub must be able to reach a commissionable On/Off light with
that code (a dimmable light's Level Control is checked too). Prints one line per check and 'N passed, N failed'; exits 1 on any failure. Every wait
is bounded.
"""
import asyncio
import json
import sys
from pathlib import Path

import aiohttp
from chip.clusters import Objects as Clusters
from matter_server.common.errors import MatterError, NodeNotReady
from matter_server.common.models import APICommand, EventType

from ohfcheck import check, listening_client, run, wait_for


async def dim(client, node, node_id):
    """Level Control through the hub as Home Assistant's light entity drives it: MoveToLevelWithOnOff
    (the hub encodes the chip class's fields), reported as attribute_updated 1/8/0, the client's
    cluster object following, CurrentLevel read back from the device; a level of 255 refused with
    the device's CONSTRAINT_ERROR at once."""
    LC = Clusters.LevelControl
    level_updates = asyncio.Queue()
    client.subscribe_events(lambda event, value: level_updates.put_nowait(value), EventType.ATTRIBUTE_UPDATED,
                            node_filter=node_id, attr_path_filter="1/8/0")
    cluster = node.endpoints[1].get_cluster(LC)
    check("LevelControl's MinLevel and MaxLevel are 1 and 254", (cluster.minLevel, cluster.maxLevel) == (1, 254),
          repr((cluster.minLevel, cluster.maxLevel)))
    for level in (77, 200):
        command = LC.Commands.MoveToLevelWithOnOff(level=level, transitionTime=0, optionsMask=0, optionsOverride=0)
        result = await asyncio.wait_for(client.send_device_command(node_id, 1, command), 10)
        check(f"MoveToLevelWithOnOff({level}) answers null", result is None, repr(result))
        update = await wait_for(level_updates, lambda value, level=level: value == level)
        check(f"it is reported as attribute_updated [node, '1/8/0', {level}]", update is not None)
        check("the client's LevelControl object follows", node.endpoints[1].get_cluster(LC).currentLevel == level)
        values = await asyncio.wait_for(client.read_attribute(node_id, "1/8/0"), 10)
        check(f"read_attribute 1/8/0 gives {level} from the device", values.get("1/8/0") == level, repr(values))
    check("the light is on after raising its level", node.endpoints[1].get_cluster(Clusters.OnOff).onOff is True)
    try:
        await asyncio.wait_for(client.send_device_command(node_id, 1, LC.Commands.MoveToLevelWithOnOff(
            level=255, transitionTime=0, optionsMask=0, optionsOverride=0)), 10)
        check("MoveToLevelWithOnOff(255) is an error", False, "it succeeded")
    except MatterError as error:
        check("MoveToLevelWithOnOff(255) is an error result with CONSTRAINT_ERROR",
              "Constraint" in str(error) or "0x87" in str(error), str(error))


async def credentials(client):
    """Network credentials as schema 12 lists them: the default entry through the client's own
    method, a named one through its send_command (the client refuses named ids below schema 12),
    get_all_credentials with SSIDs and never a passphrase, and removal (matter-python-client 1.6
    sends remove_wifi_credentials for the default entry to any server)."""
    await asyncio.wait_for(client.set_wifi_credentials("Home", "correct horse battery"), 10)
    info = await asyncio.wait_for(client.send_command("server_info"), 10)
    check("set_wifi_credentials: server_info says wifi_credentials_set", info.get("wifi_credentials_set") is True, repr(info))
    await asyncio.wait_for(client.send_command("set_wifi_credentials", ssid="Guest", credentials="guest secret 1", id="Guest"), 10)
    listed = await asyncio.wait_for(client.send_command("get_all_credentials"), 10)
    check("get_all_credentials lists the default and the named Wi-Fi entry",
          listed.get("wifi") == [{"id": "default", "ssid": "Home"}, {"id": "Guest", "ssid": "Guest"}], repr(listed))
    check("no passphrase is ever sent back", "horse" not in repr(listed) + repr(info) and "guest secret" not in repr(listed))
    check("the default Thread entry is listed, unset", listed.get("thread") == [{"id": "default"}], repr(listed))
    try:
        await asyncio.wait_for(client.send_command("set_wifi_credentials", ssid="Elsewhere", credentials="", id="Guest"), 10)
        check("a blank password for another SSID is refused", False, "it was accepted")
    except MatterError as error:
        check("a blank password for another SSID is refused", "passphrase" in str(error), str(error))
    # The hub takes a burst of 5 credential changes, then one a second (each is an fsync).
    await asyncio.sleep(2.1)
    await asyncio.wait_for(client.send_command("remove_wifi_credentials", id="Guest"), 10)
    if hasattr(client, "remove_wifi_credentials"):
        await asyncio.wait_for(client.remove_wifi_credentials(), 10)
        await asyncio.wait_for(client.remove_thread_dataset(), 10)
    else:
        await asyncio.wait_for(client.send_command("remove_wifi_credentials"), 10)
    info = await asyncio.wait_for(client.send_command("server_info"), 10)
    check("after removal wifi_credentials_set is false, thread_credentials_set stays false",
          info.get("wifi_credentials_set") is False and info.get("thread_credentials_set") is False, repr(info))
    try:
        await asyncio.wait_for(client.send_command("commission_with_code", code="34970112332", network_only=True,
                                                   wifi_credentials_id="Guest"), 10)
        check("commissioning with a Wi-Fi entry that is not stored is refused", False, "it was accepted")
    except MatterError as error:
        check("commissioning with a Wi-Fi entry that is not stored is refused, naming it", "'Guest'" in str(error), str(error))
    listed = await asyncio.wait_for(client.send_command("get_all_credentials"), 10)
    check("only the unset default entries are left", listed == {"wifi": [{"id": "default", "ssid": ""}], "thread": [{"id": "default"}]},
          repr(listed))


async def fabric_label(url, session, client):
    """The first connection to set the fabric label owns it while connected (schema 12): another
    one's set_default_fabric_label is answered but ignored; get_fabric_label says which holds."""
    await client.set_default_fabric_label("Home")
    other, other_listen, _ = await listening_client(url, session)
    await other.set_default_fabric_label("Intruder")
    label = await asyncio.wait_for(other.send_command("get_fabric_label"), 10)
    check("another connection's label is ignored while the first is connected", label == {"fabric_label": "Home"}, repr(label))
    other_listen.cancel()
    await other.disconnect()


def vector_image(vector_id):
    """An OTA image made by the CHIP SDK's ota_image_tool.py (testvectors/ota_image.json)."""
    vectors = json.loads((Path(__file__).resolve().parent.parent / "testvectors" / "ota_image.json").read_text())["vectors"]
    return bytes.fromhex(next(v for v in vectors if v["id"] == vector_id)["image"])


async def ota_upload(client):
    """Schema 13's local firmware upload, as matterjs-server has it: initiate_ota_upload gives a
    single-use id; the raw .ota bytes go to POST /ota-upload/<id>; the answer parses into the
    client's MatterSoftwareVersion. A corrupt image, a spent id and an unknown one are error 101."""
    if not hasattr(client.connection, "post_ota_upload"):
        print("ota upload: this client has no upload", flush=True)
        return
    from matter_server.common.errors import exception_from_error_code
    from matter_server.common.helpers.util import dataclass_from_dict
    from matter_server.common.models import MatterSoftwareVersion

    async def upload(data):
        """The client's own upload_ota_file once the hub reports schema 13; its two steps before."""
        if client.server_info.schema_version >= 13:
            return await asyncio.wait_for(client.upload_ota_file(data), 20)
        ticket = await asyncio.wait_for(client.send_command("initiate_ota_upload"), 10)
        status, body = await asyncio.wait_for(client.connection.post_ota_upload(ticket["upload_id"], data), 20)
        if status != 200:
            raise exception_from_error_code(body["error_code"])(body["message"])
        return dataclass_from_dict(MatterSoftwareVersion, body)

    ticket = await asyncio.wait_for(client.send_command("initiate_ota_upload"), 10)
    check("initiate_ota_upload gives a 32-hex id, a lifetime and a size limit",
          len(ticket.get("upload_id", "")) == 32 and ticket.get("expires_in") == 60 and ticket.get("max_size", 0) >= 1 << 20,
          repr(ticket))
    image = vector_image("sdk-sha256-minimal")
    status, body = await asyncio.wait_for(client.connection.post_ota_upload(ticket["upload_id"], image), 20)
    stored = dataclass_from_dict(MatterSoftwareVersion, body) if status == 200 else None
    check("POST /ota-upload/<id> stores the image and answers its MatterSoftwareVersion",
          stored is not None and (stored.vid, stored.pid, stored.software_version, stored.software_version_string)
          == (0x1234, 0x5678, 0x01020304, "1.2.3.4") and stored.update_source.value == "local", f"{status} {body!r}")
    status, body = await asyncio.wait_for(client.connection.post_ota_upload(ticket["upload_id"], image), 20)
    check("the same id a second time is error 101", status == 400 and body.get("error_code") == 101, f"{status} {body!r}")
    status, body = await asyncio.wait_for(client.connection.post_ota_upload("0" * 32, image), 20)
    check("an unknown id is error 101", status == 400 and body.get("error_code") == 101, f"{status} {body!r}")
    corrupt = bytearray(vector_image("sdk-sha256-fff1-8000-v2"))
    corrupt[-1] ^= 0xFF
    try:
        await upload(bytes(corrupt))
        check("an image whose digest is wrong is refused", False, "it was stored")
    except MatterError as error:
        check("an image whose digest is wrong is refused with OtaUploadError (101) saying why",
              getattr(error, "error_code", None) == 101 and "sha-256" in str(error), f"{type(error).__name__}: {error}")
    again = await upload(image)
    check("an upload through the client's own path gives the same version", again.software_version == 0x01020304, repr(again))


async def onboarding_payload(client, code):
    """Schema 14's parse_onboarding_payload, sent raw, its answer parsed into
    matter-python-client's models."""
    if not hasattr(APICommand, "PARSE_ONBOARDING_PAYLOAD"):
        print("parse_onboarding_payload: this client has no such command", flush=True)
        return
    from matter_server.common.models import ManualOnboardingPayloadResult, QrOnboardingPayloadResult
    from matter_server.common.helpers.util import dataclass_from_dict
    qr = dataclass_from_dict(QrOnboardingPayloadResult,
                             await asyncio.wait_for(client.send_command(APICommand.PARSE_ONBOARDING_PAYLOAD, code=code), 10))
    p = qr.payloads[0] if qr.payloads else None
    check("parse_onboarding_payload decodes the QR code into QrOnboardingPayloadResult",
          qr.type == "qr" and len(qr.payloads) == 1 and p.setup_pin_code == 20202021 and p.vendor_id is not None
          and p.product_id is not None and p.version == 0 and p.discovery_capabilities == 4, repr(qr))
    manual = dataclass_from_dict(ManualOnboardingPayloadResult, await asyncio.wait_for(
        client.send_command(APICommand.PARSE_ONBOARDING_PAYLOAD, code="34970112332"), 10))
    check("parse_onboarding_payload decodes an 11-digit manual code (the SDK's 34970112332: discriminator 15)",
          manual.type == "manual" and manual.setup_pin_code == 20202021 and manual.short_discriminator == 15
          and manual.vendor_id is None, repr(manual))
    try:
        await asyncio.wait_for(client.send_command(APICommand.PARSE_ONBOARDING_PAYLOAD, code="MT:garbage"), 10)
        check("a code that does not decode is an error", False, "it was accepted")
    except MatterError as error:
        check("a code that does not decode is an error that says why", "parse_onboarding_payload" in str(error), str(error))


async def schema14(client, node_id, ours, auto_subscription):
    """Schema 14's interaction commands through matter-python-client's own methods (each refuses
    to send below schema 14), every answer parsed into its models: read with events and data
    versions, a data version filter, batched commands (the light takes one per invoke: a batch
    of two is refused before it is sent), wildcard and timed writes, the auto subscription off
    and a subscription of this connection with its listener, unsubscribe, the auto subscription
    back on; write_atomic_attribute of an attribute without the Atomic quality refused; a camera
    command refused by name. `ours`: the device is our virtual light; another (CircuitMatter)
    has no events, ignores data version filters, answers nothing for a cluster it lacks and
    never answers a TimedRequest: there its answers are shown and the hub's bounded errors checked.
    `auto_subscription`: the hub keeps its own subscriptions (the default), so the subscription
    commands are refused saying how to run it instead."""
    if not hasattr(client, "send_batched_device_commands") or client.server_info.schema_version < 14:
        print("schema 14: this client or server has no such commands", flush=True)
        return
    from matter_server.common.errors import InvalidArguments, InvalidCommand
    from matter_server.common.models import InteractionReport, SubscribeResult

    report = await asyncio.wait_for(client.read(node_id, attribute_paths=["1/6/*"], event_paths=[{"path": "0/40/*"}],
                                                event_min=0), 10)
    check("read gives an InteractionReport with values and data versions",
          isinstance(report, InteractionReport) and "1/6/0" in report.attributes and report.data_versions
          and "1/6" in report.data_versions, repr(report)[:400])
    if ours:
        check("read brings the device's events (BasicInformation StartUp)", any(e.cluster_id == 40 for e in report.events),
              repr(report.events))
    filtered = await asyncio.wait_for(client.read(node_id, attribute_paths=["1/6/0"], data_version_filters=[
        {"path": "1/6", "data_version": report.data_versions["1/6"]}]), 10)
    missing = await asyncio.wait_for(client.read(node_id, attribute_paths=["1/768/0"]), 10)
    if ours:
        check("a data version filter at the cluster's version skips it", filtered.attributes == {}, repr(filtered))
        check("a cluster the light lacks comes back as a PathStatus", missing.attribute_status is not None
              and missing.attribute_status.get("1/768/0") is not None and missing.attribute_status["1/768/0"].status == 0xC3,
              repr(missing))
    else:
        print(f"this device: events {len(report.events)}, filtered read {filtered.attributes}, "
              f"a cluster it lacks {missing.attributes} {missing.attribute_status}", flush=True)

    results = await asyncio.wait_for(client.send_batched_device_commands(node_id, [(1, Clusters.OnOff.Commands.On())]), 10)
    check("send_batched_device_commands gives a BatchedCommandResult per command",
          len(results) == 1 and results[0].status == 0, repr(results))
    try:
        await asyncio.wait_for(client.send_batched_device_commands(
            node_id, [(1, Clusters.OnOff.Commands.Off()), (1, Clusters.OnOff.Commands.On())]), 10)
        check("a batch beyond the light's MaxPathsPerInvoke is refused", False, "it was sent")
    except InvalidArguments as error:
        check("a batch beyond the light's MaxPathsPerInvoke is refused before it is sent", "MaxPathsPerInvoke" in str(error), str(error))

    try:
        written = await asyncio.wait_for(client.write_attribute(node_id, "0/40/5", "Timed lamp", timed_request_timeout_ms=1000), 15)
        check("a timed write_attribute succeeds", written and written[0]["Status"] == 0, repr(written))
    except MatterError as error:
        # CircuitMatter 0.4.1 never answers a TimedRequest: the hub's answer is bounded and says so.
        check("a timed write the device does not answer is an error result within its bound", not ours, str(error))
    if "1/8/17" in client.get_node(node_id).node_data.attributes:
        everywhere = await asyncio.wait_for(client.write_attribute(node_id, "*/8/17", 80), 10)
        check("write_attribute with * as the endpoint writes each endpoint with the attribute",
              [w["Path"]["EndpointId"] for w in everywhere] == [1] and everywhere[0]["Status"] == 0, repr(everywhere))

    if hasattr(client, "write_atomic_attribute"):  # matter-python-client 1.6 (schema 15)
        try:
            await asyncio.wait_for(client.write_atomic_attribute(node_id, "0/40/5", "x", None, skip_data_version_check=True), 10)
            check("write_atomic_attribute of NodeLabel is refused", False, "it was accepted")
        except InvalidArguments as error:
            check("write_atomic_attribute of an attribute without the Atomic quality is refused", "Atomic" in str(error), str(error))
    await client_subscription(client, node_id, auto_subscription)
    await camera(client, node_id)


async def client_subscription(client, node_id, auto_subscription):
    """subscribe, unsubscribe and the auto subscription switches: refused on a hub that keeps
    its own subscription to every node; on one run with --no-auto-subscription, a subscription
    of this connection whose report of an Off reaches its listener."""
    from matter_server.common.errors import InvalidArguments
    from matter_server.common.models import SubscribeResult
    if auto_subscription:
        try:
            await asyncio.wait_for(client.disable_auto_subscription(node_id), 10)
            check("disable_auto_subscription is refused while the hub subscribes to every node", False, "it was accepted")
        except InvalidArguments as error:
            check("disable_auto_subscription is refused while the hub subscribes to every node, saying how to run it",
                  "--no-auto-subscription" in str(error), str(error))
        return
    await asyncio.wait_for(client.disable_auto_subscription(node_id), 10)
    reports = asyncio.Queue()
    subscription = await asyncio.wait_for(client.subscribe(
        node_id, 0, 30, attribute_paths=["1/6/0"], listener=lambda event, data: reports.put_nowait((event, data))), 10)
    check("subscribe gives a SubscribeResult with the priming report",
          isinstance(subscription, SubscribeResult) and "1/6/0" in subscription.attributes, repr(subscription))
    await asyncio.wait_for(client.send_device_command(node_id, 1, Clusters.OnOff.Commands.Off()), 10)
    heard = await wait_for(reports, lambda item: item[0] == EventType.SUBSCRIPTION_REPORT and item[1].attributes.get("1/6/0") is False)
    check("the subscription's report reaches its listener as SubscriptionReportData",
          heard is not None and heard[1].subscription_id == subscription.subscription_id and heard[1].node_id == node_id, repr(heard))
    await asyncio.wait_for(client.unsubscribe(node_id, subscription.subscription_id), 10)
    await asyncio.wait_for(client.enable_auto_subscription(node_id), 35)
    check("enable_auto_subscription returns with the node available", client.get_node(node_id).available)


async def camera(client, node_id):
    from matter_server.common.errors import InvalidCommand
    try:
        await asyncio.wait_for(client.send_command("camera_get_capabilities", require_schema=14, node_id=node_id, endpoint_id=1), 10)
        check("camera_get_capabilities is refused", False, "it was accepted")
    except InvalidCommand as error:
        check("camera_get_capabilities is refused by name", "camera" in str(error), str(error))


async def main(url, code):
    async with aiohttp.ClientSession() as session:
        client, listen, events = await listening_client(url, session)
        await fabric_label(url, session, client)
        await credentials(client)
        await ota_upload(client)
        await onboarding_payload(client, code)

        if client.server_info.schema_version >= 14 and hasattr(client, "send_batched_device_commands"):
            # Schema 14: how long the hub looks for the device.
            node_data = await asyncio.wait_for(client.commission_with_code(code, network_only=True, discovery_timeout_s=45), 60)
        else:
            node_data = await asyncio.wait_for(client.commission_with_code(code, network_only=True), 60)
        node_id = node_data.node_id
        # A hub run with --no-auto-subscription takes enable_auto_subscription (this flow needs
        # its reports); one that subscribes to every node refuses it.
        auto_subscription = True
        if hasattr(client, "enable_auto_subscription") and client.server_info.schema_version >= 14:
            try:
                await asyncio.wait_for(client.enable_auto_subscription(node_id), 35)
                auto_subscription = False
                print("the hub runs without auto subscription: switched on for this node", flush=True)
            except MatterError as error:
                check("enable_auto_subscription on a hub that subscribes to every node says how to run it",
                      "--no-auto-subscription" in str(error), str(error))
        # The client signals attribute_updated with the new value only (matched by node and path).
        on_off_updates = asyncio.Queue()
        client.subscribe_events(lambda event, value: on_off_updates.put_nowait(value), EventType.ATTRIBUTE_UPDATED,
                                node_filter=node_id, attr_path_filter="1/6/0")
        added = await wait_for(events, lambda e: e[0] == EventType.NODE_ADDED)
        check("node_added arrives", added is not None)
        node = client.get_node(node_id)
        check("the new node is available", node.available)
        check("its VendorName is known", bool(node.device_info and node.device_info.vendorName),
              repr(node.device_info and node.device_info.vendorName))
        types = [t.__name__ for t in node.endpoints[1].device_types]
        dimmable = "1/8/0" in node.node_data.attributes
        # CircuitMatter's light is an On/Off Light; ours, with Level Control, a Dimmable Light.
        check("endpoint 1 is a light", ("DimmableLight" if dimmable else "OnOffLight") in types, str(types))

        # Commands the device lists in AcceptedCommandList (1/6/65529) must work and be reported;
        # one it does not support must come back as an error result at once, not hang.
        accepted = node.node_data.attributes.get("1/6/65529") or []
        state = None
        for command, command_id, expected in ((Clusters.OnOff.Commands.On(), 1, True),
                                              (Clusters.OnOff.Commands.Off(), 0, False),
                                              (Clusters.OnOff.Commands.Toggle(), 2, None)):
            name = type(command).__name__
            if command_id not in accepted:
                try:
                    await asyncio.wait_for(client.send_device_command(node_id, 1, command), 10)
                    check(f"{name} (not accepted by the device) is an error", False, "it succeeded")
                except MatterError as error:
                    check(f"{name} (not accepted by the device) is an error result", True, str(error))
                continue
            expected = (not state) if expected is None else expected
            try:
                result = await asyncio.wait_for(client.send_device_command(node_id, 1, command), 10)
            except MatterError as error:
                # Some devices list a command they then refuse (CircuitMatter 0.4.1 and Toggle):
                # the device's IM status must come back as the error, at once.
                check(f"{name}, refused by the device, is an error result with its IM status",
                      "Unsupported" in str(error) or "0x81" in str(error), str(error))
                continue
            check(f"{name} answers null", result is None, repr(result))
            update = await wait_for(on_off_updates, lambda value: value == expected)
            check(f"{name} is reported as attribute_updated [node, '1/6/0', {expected}]", update is not None)
            state = expected
        await asyncio.wait_for(client.send_device_command(node_id, 1, Clusters.OnOff.Commands.On()), 10)
        if state is not True:  # a device that refused Toggle may still be off: its report must come
            await wait_for(on_off_updates, lambda value: value is True)
        check("the client's cluster object follows", node.endpoints[1].get_cluster(Clusters.OnOff).onOff is True)

        # Commands Home Assistant sends to a robot vacuum, a valve and a vacuum's areas, here to
        # a light that has none of those clusters: the hub encodes each and the device's answer
        # comes back (UnsupportedCluster from a device that follows the spec; CircuitMatter 0.4.1
        # answers with an empty InvokeResponse), not a refusal by the hub.
        for command in (Clusters.RvcOperationalState.Commands.GoHome(),
                        Clusters.ValveConfigurationAndControl.Commands.Open(targetLevel=50),
                        Clusters.ServiceArea.Commands.SelectAreas(newAreas=[1, 2])):
            name = type(command).__name__
            try:
                await asyncio.wait_for(client.send_device_command(node_id, 1, command), 15)
                check(f"{name} to a cluster the light lacks is an error", False, "it succeeded")
            except MatterError as error:
                answer = "UnsupportedCluster" if "UnsupportedCluster" in str(error) else "another error"
                check(f"{name} reaches the device, which answers {answer}", "not supported by this hub" not in str(error), str(error))

        if dimmable:
            await dim(client, node, node_id)

        # General Diagnostics on the root node (mandatory there; Home Assistant's diagnostics
        # warn without it): NetworkInterfaces, RebootCount, UpTime.
        diagnostics = node.node_data.attributes
        if diagnostics.get("0/40/1") == "MatterHub":  # our virtual device (CircuitMatter has none)
            check("the root node has General Diagnostics",
                  all(f"0/51/{a}" in diagnostics for a in (0, 1, 2, 8)) and 0x33 in (diagnostics.get("0/29/1") or []),
                  repr({k: v for k, v in diagnostics.items() if k.startswith("0/51/")}))
        values = await asyncio.wait_for(client.read_attribute(node_id, "0/40/1"), 10)
        check("read_attribute 0/40/1 gives VendorName", isinstance(values.get("0/40/1"), str), repr(values))
        written = await asyncio.wait_for(client.write_attribute(node_id, "0/40/5", "Desk lamp"), 10)
        check("write_attribute NodeLabel succeeds", written and written[0]["Status"] == 0, repr(written))
        label = await asyncio.wait_for(client.read_attribute(node_id, "0/40/5"), 10)
        check("the NodeLabel reads back", label.get("0/40/5") == "Desk lamp", repr(label))

        # Firmware: check_node_update parses into the client's MatterSoftwareVersion (an image the
        # hub holds for this vendor and product) or is None; update_node of a version the hub does
        # not offer is an error result.
        update = await asyncio.wait_for(client.check_node_update(node_id), 10)
        if update is None:
            print("check_node_update: no update", flush=True)
        else:
            check("check_node_update gives a MatterSoftwareVersion from the hub's images",
                  update.vid == diagnostics.get("0/40/2") and update.pid == diagnostics.get("0/40/4")
                  and update.software_version > diagnostics.get("0/40/9") and update.update_source.value == "local", repr(update))
            print(f"check_node_update offers {update.software_version} ({update.software_version_string}) "
                  f"from {update.update_source.value}", flush=True)
            try:
                await asyncio.wait_for(client.update_node(node_id, update.software_version + 1), 10)
                check("update_node to a version not offered is an error", False, "it succeeded")
            except MatterError as error:
                check("update_node to a version not offered is an error result", "offers version" in str(error), str(error))
            requestor = 0x2A in (diagnostics.get("0/29/1") or [])
            try:
                await asyncio.wait_for(client.update_node(node_id, update.software_version), 10)
                check("update_node announces the hub's OTA provider", requestor, "it succeeded without a requestor")
            except MatterError as error:
                check("update_node of a node without an OTA Requestor says so", not requestor and "Requestor" in str(error), str(error))

        if 0 in (node.node_data.attributes.get("0/60/65529") or []):
            window = await asyncio.wait_for(client.open_commissioning_window(node_id), 15)
            check("open_commissioning_window gives codes",
                  window.setup_manual_code and window.setup_qr_code.startswith("MT:") and window.setup_pin_code > 0,
                  repr(window))
        else:
            try:
                await asyncio.wait_for(client.open_commissioning_window(node_id), 5)
                check("open_commissioning_window on a device without the command is an error", False, "it succeeded")
            except MatterError as error:
                check("open_commissioning_window on a device without the command is an error at once", True, str(error))

        await schema14(client, node_id, ours=diagnostics.get("0/40/1") == "MatterHub", auto_subscription=auto_subscription)

        await asyncio.wait_for(client.interview_node(node_id), 30)
        updated = await wait_for(events, lambda e: e[0] == EventType.NODE_UPDATED and getattr(e[1], "node_id", None) == node_id)
        check("interview_node is followed by node_updated", updated is not None)

        try:
            await client.send_device_command(999999, 1, Clusters.OnOff.Commands.On())
            check("an unknown node is NodeNotReady", False, "no error")
        except NodeNotReady:
            check("an unknown node is NodeNotReady", True)

        await asyncio.wait_for(client.remove_node(node_id), 30)
        removed = await wait_for(events, lambda e: e[0] == EventType.NODE_REMOVED and e[1] == node_id)
        check("remove_node is followed by node_removed", removed is not None)
        # Nothing about the node may follow: a node_updated after node_removed makes the client
        # (and Home Assistant) add the node back as a ghost.
        ghost = await wait_for(events, lambda e: getattr(e[1], "node_id", e[1]) == node_id, 3)
        check("no event about the removed node follows node_removed", ghost is None, repr(ghost))
        check("the client no longer lists the removed node", node_id not in [n.node_id for n in client.get_nodes()])
        check("the listen loop is still running", not listen.done(), repr(listen.done() and listen.exception()))
        await client.disconnect()


sys.exit(run(main(sys.argv[1], sys.argv[2])))
