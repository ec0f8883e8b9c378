#!/usr/bin/env python3
"""Writes Codegen/clusters/model.json, the input of Codegen/clusters/generate.py: every cluster of
the CHIP SDK's Python cluster objects (home-assistant-chip-clusters 2025.7.0: chip.clusters.Objects
for IDs, names, field tags, types, nullability, optionality, responses, timed invokes and writes;
chip.clusters.CHIPClusters for which attributes are writable).

Why these objects and not the spec's data-model XML: they are what python-matter-server, its
successor matter-python-client and Home Assistant decode and encode with, so the hub's names and
field tags are the clients' by construction, and they install from PyPI (the XML would have to be
copied out of connectedhomeip). What they lack is integer widths: an unsigned or signed integer is
"uint"/"int" here (enums and bitmaps get the width their values need), which is also all the range
checking those clients do.

Run with the .peers/venv interpreter: .peers/venv/bin/python Codegen/clusters/extract.py
"""
import enum
import json
import os
import typing

import aenum
from chip import ChipUtility  # noqa: F401  (chip.clusters needs it loaded first)
from chip.clusters import CHIPClusters
from chip.clusters import ClusterObjects
from chip.clusters import Objects as C
from chip.clusters.Types import Nullable
from chip.tlv import float32

SOURCE = "home-assistant-chip-clusters 2025.7.0 (chip.clusters.Objects, chip.clusters.CHIPClusters)"


def owner_and_name(t):
    """'OnOff.StartUpOnOffEnum' for OnOff.Enums.StartUpOnOffEnum (Globals too)."""
    parts = t.__qualname__.split(".")
    return f"{parts[0]}.{parts[-1]}"


def kind(t):
    origin = typing.get_origin(t)
    if origin is typing.Union:
        args = [a for a in typing.get_args(t) if a is not type(None)]
        nullable = Nullable in args
        args = [a for a in args if a is not Nullable]
        if len(args) != 1:
            raise SystemExit(f"a union of {args} is not a Matter type")
        inner = kind(args[0])
        return f"nullable<{inner}>" if nullable else inner
    if origin in (list, typing.List):
        return f"list<{kind(typing.get_args(t)[0])}>"
    if t is bool:
        return "bool"
    if t is int:
        return "int"
    if t is float32:
        return "float"
    if t is float:
        return "double"
    if t is str:
        return "string"
    if t is bytes:
        return "bytes"
    if isinstance(t, type) and issubclass(t, enum.IntFlag):
        return "bitmap:" + owner_and_name(t)
    if isinstance(t, type) and issubclass(t, (enum.IntEnum, aenum.IntEnum)):
        return "enum:" + owner_and_name(t)
    if isinstance(t, type) and issubclass(t, int):
        return "uint"
    if isinstance(t, type) and issubclass(t, ClusterObjects.ClusterObject):
        return "struct:" + owner_and_name(t)
    raise SystemExit(f"no Matter type for {t}")


def is_optional(t):
    return typing.get_origin(t) is typing.Union and any(a is type(None) for a in typing.get_args(t))


def fields(descriptor):
    return [{"name": f.Label, "tag": f.Tag, "type": kind(f.Type), **({"optional": True} if is_optional(f.Type) else {})}
            for f in descriptor.Fields]


def members(holder, base):
    return [(n, v) for n, v in vars(holder).items() if isinstance(v, type) and issubclass(v, base)] if holder else []


def enums_and_bitmaps(cluster):
    enums = [{"name": n, "values": [[m.name[1:] if m.name.startswith("k") else m.name, m.value]
                                    for m in e if m.name != "kUnknownEnumValue"]}
             for n, e in members(getattr(cluster, "Enums", None), (enum.IntEnum, aenum.IntEnum))]
    bitmaps = [{"name": n, "bits": [[m.name[1:] if m.name.startswith("k") else m.name, m.value] for m in b]}
               for n, b in members(getattr(cluster, "Bitmaps", None), enum.IntFlag)]
    structs = [{"name": n, "fields": fields(s.descriptor)}
               for n, s in members(getattr(cluster, "Structs", None), ClusterObjects.ClusterObject)]
    return enums, bitmaps, structs


def writable_attributes(cluster_id):
    for info in vars(CHIPClusters.ChipClusters).values():
        if isinstance(info, dict) and info.get("clusterId") == cluster_id:
            return {a for a, d in info["attributes"].items() if d.get("writable")}
    return set()


def cluster_entry(name, cluster):
    enums, bitmaps, structs = enums_and_bitmaps(cluster)
    mandatory = {f.Tag for f in cluster.descriptor.Fields if not is_optional(f.Type)}
    writable = writable_attributes(cluster.id)
    attributes = []
    for attr_name, a in members(getattr(cluster, "Attributes", None), ClusterObjects.ClusterAttributeDescriptor):
        entry = {"id": a.attribute_id, "name": attr_name, "type": kind(a.attribute_type.Type)}
        if a.attribute_id in writable:
            entry["writable"] = True
        if a.must_use_timed_write:
            entry["timedWrite"] = True
        if a.attribute_id not in mandatory:
            entry["optional"] = True
        attributes.append(entry)
    commands = []
    for command_name, c in members(getattr(cluster, "Commands", None), ClusterObjects.ClusterCommand):
        entry = {"id": c.command_id, "name": command_name, "direction": "toServer" if c.is_client else "toClient",
                 "fields": fields(c.descriptor)}
        if c.is_client and c.response_type:
            entry["response"] = c.response_type
        if c.must_use_timed_invoke:
            entry["timed"] = True
        commands.append(entry)
    events = [{"id": e.event_id, "name": n, "fields": fields(e.descriptor)}
              for n, e in members(getattr(cluster, "Events", None), ClusterObjects.ClusterEvent)]
    return {"id": cluster.id, "name": name, "attributes": sorted(attributes, key=lambda x: x["id"]),
            "commands": sorted(commands, key=lambda x: (x["direction"] != "toServer", x["id"])),
            "events": sorted(events, key=lambda x: x["id"]), "enums": enums, "bitmaps": bitmaps, "structs": structs}


def main():
    clusters = [cluster_entry(n, c) for n, c in vars(C).items()
                if isinstance(c, type) and issubclass(c, ClusterObjects.Cluster) and c is not ClusterObjects.Cluster
                and hasattr(c, "id")]
    clusters.sort(key=lambda c: c["id"])
    enums, bitmaps, structs = enums_and_bitmaps(C.Globals)
    model = {"source": SOURCE, "generator": "Codegen/clusters/extract.py",
             "globals": {"enums": enums, "bitmaps": bitmaps, "structs": structs}, "clusters": clusters}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model.json")
    with open(path, "w") as f:
        json.dump(model, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"{len(clusters)} clusters, {sum(len(c['attributes']) for c in clusters)} attributes, "
          f"{sum(len(c['commands']) for c in clusters)} commands, {sum(len(c['events']) for c in clusters)} events")


main()
