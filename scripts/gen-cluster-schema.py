#!/usr/bin/env python3
"""Writes testvectors/matter-server/cluster_schema.json: the type of every attribute and the
fields of every event of the clusters whose writes and events the hub converts, and every
client-to-server command (fields, response, timed invoke) of the clusters whose commands
device_command sends, as the CHIP SDK's Python cluster objects (home-assistant-chip-clusters
2025.7.0, chip.clusters.Objects) declare them. The MatterServerAPI tests check the hub's
hand-written tables (AttributeSchema, ClusterEventCatalog, DeviceCommandCatalog) against it.

Kinds: bool, uint (also enums and bitmaps), int, float (float32), double, string, bytes,
list<K>, nullable<K>, struct{name/tag:K,...} (a '?' after the tag marks an optional field).
Run with the .peers/ohf-client venv: .peers/ohf-client/bin/python scripts/gen-cluster-schema.py
"""
import json
import os
import typing

from chip import ChipUtility  # noqa: F401  (chip.clusters needs it loaded first)
from chip.clusters import ClusterObjects
from chip.clusters import Objects as C
from chip.clusters.Types import Nullable
from chip.tlv import float32

CLUSTERS = ["Identify", "OnOff", "LevelControl", "BasicInformation", "BridgedDeviceBasicInformation", "AccessControl", "Binding",
            "GeneralCommissioning", "LocalizationConfiguration", "TimeFormatLocalization", "UnitLocalization",
            "Switch", "BooleanState", "BooleanStateConfiguration", "ModeSelect", "LaundryWasherControls", "SmokeCoAlarm",
            "ValveConfigurationAndControl", "DoorLock", "WindowCovering", "PumpConfigurationAndControl", "Thermostat",
            "FanControl", "ThermostatUserInterfaceConfiguration", "ColorControl", "OccupancySensing"]

# The clusters whose commands device_command encodes (DeviceCommandCatalog): what Home Assistant's
# Matter integration sends, and the commissioning clusters.
COMMAND_CLUSTERS = ["Identify", "OnOff", "LevelControl", "ColorControl", "DoorLock", "WindowCovering", "Thermostat",
                    "OperationalCredentials", "AdministratorCommissioning", "FanControl", "ModeSelect",
                    "LaundryWasherMode", "RefrigeratorAndTemperatureControlledCabinetMode", "RvcRunMode", "RvcCleanMode",
                    "DishwasherMode", "OvenMode", "EnergyEvseMode", "WaterHeaterMode",
                    "DeviceEnergyManagementMode", "OperationalState", "RvcOperationalState", "OvenCavityOperationalState",
                    "ValveConfigurationAndControl", "SmokeCoAlarm", "BooleanStateConfiguration", "HepaFilterMonitoring",
                    "ActivatedCarbonFilterMonitoring", "WaterHeaterManagement", "EnergyEvse", "ServiceArea",
                    "TemperatureControl", "MicrowaveOvenControl", "TimeSynchronization", "ClosureControl", "ClosureDimension"]


def kind(t):
    origin = typing.get_origin(t)
    if origin is typing.Union:
        args = [a for a in typing.get_args(t) if a is not type(None)]
        nullable = Nullable in args
        args = [a for a in args if a is not Nullable]
        inner = kind(args[0]) if len(args) == 1 else "any"
        return f"nullable<{inner}>" if nullable else inner
    if origin in (list, typing.List):
        return f"list<{kind(typing.get_args(t)[0])}>"
    if t is bool:
        return "bool"
    if t is int:
        return "int"
    if isinstance(t, type) and issubclass(t, int):  # uint, and the enums and bitmaps (aenum)
        return "uint"
    if t is float32:
        return "float"
    if t is float:
        return "double"
    if t is str:
        return "string"
    if t is bytes:
        return "bytes"
    if isinstance(t, type) and issubclass(t, ClusterObjects.ClusterObject):
        return "struct{" + ",".join(field(f) for f in t.descriptor.Fields) + "}"
    return f"unknown:{t}"


def field(f):
    optional = any(a is type(None) for a in typing.get_args(f.Type)) if typing.get_origin(f.Type) is typing.Union else False
    return f"{f.Label}/{f.Tag}{'?' if optional else ''}:{kind(f.Type)}"


def main():
    attributes, events = [], []
    for name in CLUSTERS:
        cluster = getattr(C, name)
        for attr_name, a in sorted(vars(cluster.Attributes).items()):
            if isinstance(a, type) and hasattr(a, "attribute_id"):
                attributes.append({"id": f"attribute-{a.cluster_id}-{a.attribute_id}", "cluster": a.cluster_id,
                                   "attribute": a.attribute_id, "name": f"{name}.{attr_name}",
                                   "type": kind(a.attribute_type.Type)})
        for event_name, e in sorted(vars(getattr(cluster, "Events", object)).items()):
            if isinstance(e, type) and hasattr(e, "event_id"):
                events.append({"id": f"event-{e.cluster_id}-{e.event_id}", "cluster": e.cluster_id, "event": e.event_id,
                               "name": event_name, "fields": [field(f) for f in e.descriptor.Fields]})
    commands = []
    for name in COMMAND_CLUSTERS:
        cluster = getattr(C, name)
        for command_name, c in sorted(vars(getattr(cluster, "Commands", object)).items()):
            if not (isinstance(c, type) and hasattr(c, "command_id") and c.is_client):
                continue
            entry = {"id": f"command-{c.cluster_id}-{c.command_id}", "cluster": c.cluster_id, "command": c.command_id,
                     "name": command_name, "fields": [field(f) for f in c.descriptor.Fields],
                     "timed": bool(c.must_use_timed_invoke)}
            response = getattr(cluster.Commands, c.response_type, None) if c.response_type else None
            if response is not None:
                entry["response"] = {"name": c.response_type, "command": response.command_id,
                                     "fields": [field(f) for f in response.descriptor.Fields]}
            commands.append(entry)
    out = {"family": "matter-server-cluster-schema",
           "description": "Attribute types, event fields and client commands of the CHIP SDK cluster objects, in the kinds of scripts/gen-cluster-schema.py.",
           "source": "chip.clusters.Objects (home-assistant-chip-clusters 2025.7.0), via scripts/gen-cluster-schema.py",
           "vectors": sorted(attributes, key=lambda x: (x["cluster"], x["attribute"]))
           + sorted(events, key=lambda x: (x["cluster"], x["event"]))
           + sorted(commands, key=lambda x: (x["cluster"], x["command"]))}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../testvectors/matter-server/cluster_schema.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{len(attributes)} attributes, {len(events)} events, {len(commands)} commands")


main()
