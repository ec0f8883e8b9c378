#!/usr/bin/env python3
"""Decodes Thread datasets with python-otbr-api's parser (Home Assistant's OTBR client), for the
MatterNetworkCredentials cross-check. Run with .peers/otbr/bin/python (scripts/peers installs it).

  otbr-dataset.py FILE    FILE: one hex dataset per line; prints one JSON object per line:
                          {"error": "..."} or {"tlvs": [{"type", "data", decoded fields...}]}
"""
import json
import logging
import sys

from python_otbr_api.tlv_parser import Channel, DelayTimer, NetworkName, Timestamp, TLVError, parse_tlv

logging.disable(logging.CRITICAL)  # it logs unknown TLV types

for line in open(sys.argv[1]):
    line = line.strip()
    try:
        items = parse_tlv(line)
    except TLVError as e:
        print(json.dumps({"error": str(e)}))
        continue
    out = []
    for tag, item in items.items():
        t = {"type": int(tag), "data": item.data.hex()}
        if isinstance(item, Timestamp):
            t.update(seconds=item.seconds, ticks=item.ticks, authoritative=item.authoritative)
        elif isinstance(item, Channel):
            t["channel"] = item.channel
        elif isinstance(item, DelayTimer):
            t["delay"] = item.delay
        elif isinstance(item, NetworkName):
            t["name"] = item.name
        out.append(t)
    print(json.dumps({"tlvs": out}))
