#!/usr/bin/env python3
# Writes testvectors/network_commissioning_commands.json: NetworkCommissioning (0x0031) commands,
# responses and structures as the CHIP SDK's Python cluster objects encode them.
# Run with the peers venv: .peers/venv/bin/python scripts/gen-network-commissioning-vectors.py
import json
import pathlib

from chip.clusters import Objects as O
from chip.clusters.Types import NullValue

NC = O.NetworkCommissioning
S = NC.Structs
SOURCE = ("home-assistant-chip-clusters 2025.7.0 (the CHIP SDK's Python cluster objects, "
          "chip.clusters.Objects.NetworkCommissioning), ClusterObject.ToTLV()")
ITEMS = [
    ("scan-networks-directed", "ScanNetworks", NC.Commands.ScanNetworks(ssid=b"HomeNet", breadcrumb=16)),
    ("scan-networks-thread", "ScanNetworks", NC.Commands.ScanNetworks(breadcrumb=16)),
    ("add-wifi", "AddOrUpdateWiFiNetwork",
     NC.Commands.AddOrUpdateWiFiNetwork(ssid=b"HomeNet", credentials=b"correct horse battery", breadcrumb=16)),
    ("add-wifi-open", "AddOrUpdateWiFiNetwork", NC.Commands.AddOrUpdateWiFiNetwork(ssid=b"Cafe", credentials=b"")),
    ("add-thread", "AddOrUpdateThreadNetwork",
     NC.Commands.AddOrUpdateThreadNetwork(operationalDataset=bytes.fromhex("0e080000000000010000000300000f"), breadcrumb=16)),
    ("connect-wifi", "ConnectNetwork", NC.Commands.ConnectNetwork(networkID=b"HomeNet", breadcrumb=17)),
    ("connect-thread", "ConnectNetwork", NC.Commands.ConnectNetwork(networkID=bytes.fromhex("39758ec8144b07fb"), breadcrumb=17)),
    ("network-config-success", "NetworkConfigResponse", NC.Commands.NetworkConfigResponse(networkingStatus=0, networkIndex=0)),
    ("network-config-bounds", "NetworkConfigResponse", NC.Commands.NetworkConfigResponse(networkingStatus=2, debugText="full")),
    ("connect-auth-failure", "ConnectNetworkResponse",
     NC.Commands.ConnectNetworkResponse(networkingStatus=7, debugText="auth", errorValue=15)),
    ("connect-success", "ConnectNetworkResponse", NC.Commands.ConnectNetworkResponse(networkingStatus=0, errorValue=NullValue)),
    ("scan-response-wifi", "ScanNetworksResponse", NC.Commands.ScanNetworksResponse(networkingStatus=0, wiFiScanResults=[
        S.WiFiInterfaceScanResultStruct(security=8, ssid=b"HomeNet", bssid=bytes(6), channel=6, wiFiBand=0, rssi=-50)])),
    ("scan-response-thread", "ScanNetworksResponse", NC.Commands.ScanNetworksResponse(networkingStatus=0, threadScanResults=[
        S.ThreadInterfaceScanResultStruct(panId=0x5938, extendedPanId=0x39758ec8144b07fb, networkName="OpenThread-5938",
                                          channel=15, version=4, extendedAddress=bytes(range(8)), rssi=-70, lqi=200)])),
    ("network-info", "NetworkInfo", S.NetworkInfoStruct(networkID=b"HomeNet", connected=True)),
]

vectors = [{"id": i, "source": SOURCE, "type": t, "tlv": o.ToTLV().hex()} for i, t, o in ITEMS]
doc = {"family": "network_commissioning_commands",
       "description": "NetworkCommissioning (0x0031) commands, responses and structures as the CHIP SDK's Python cluster "
                      "objects encode them (anonymous structure TLV). A decoder must read each and re-encode the same bytes.",
       "count": len(vectors), "vectors": vectors}
out = pathlib.Path(__file__).resolve().parent.parent / "testvectors/network_commissioning_commands.json"
out.write_text(json.dumps(doc, indent=1) + "\n")
print(f"wrote {len(vectors)} vectors to {out}")
