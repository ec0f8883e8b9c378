#!/usr/bin/env python3
"""Writes testvectors/matter-server/attribute_values.json: Matter TLV values and the JSON that
python-matter-server 8.1.2 sends for them (ws-api.md section 5.2).

Each TLV encoding comes from the CHIP SDK's Python TLV writer (chip.tlv, home-assistant-chip-clusters
2025.7.0); the JSON from decoding it with chip.tlv's reader, as the server does for attribute
reports, and encoding that with matter_server.common.helpers.json's encoder. Run with the
.peers/ohf-client venv: .peers/ohf-client/bin/python scripts/gen-attribute-vectors.py
"""
import json
import orjson
from chip.tlv import TLVReader, TLVWriter, float32, uint
from matter_server.common.helpers.json import json_encoder_default

CASES = [
    ("bool true", True),
    ("bool false", False),
    ("uint8", uint(128)),
    ("uint16 vendor id", uint(65521)),
    ("uint32", uint(166480)),
    ("uint64 max", uint(2**64 - 1)),
    ("uint64 above int64", uint(2**63)),
    ("int8 negative (RSSI)", -61),
    ("int64 min", -2**63),
    ("int zero", 0),
    ("float32", float32(21.5)),
    ("float32 inexact", float32(0.1)),
    ("double", 1.25),
    ("utf8 string", "Nabu Casa"),
    ("utf8 non-ascii", "K\u00fcche \u2603"),
    ("empty string", ""),
    ("octet string", b"myssid"),
    ("octet string 2-byte pad", b"\x00"),
    ("octet string 1-byte pad", b"\x01\x02"),
    ("empty octet string", b""),
    ("null", None),
    ("list of uint", [uint(3), uint(4), uint(6), uint(29)]),
    ("empty list", []),
    ("list of bytes", [b"\x15\x30\x01\x01"]),
    ("struct CapabilityMinima", {0: uint(3), 1: uint(3)}),
    ("list of DeviceTypeStruct", [{0: uint(256), 1: uint(1)}]),
    ("ACL entry (fabric-scoped, null field)", [{1: uint(5), 2: uint(2), 3: [uint(112233)], 4: None, 254: uint(1)}]),
    ("fabric descriptor with 64-bit ids", [{1: b"\x04" + bytes(range(64)), 2: uint(65521), 3: uint(0x2906C908D115D362),
                                            4: uint(0xFFFFFFFEFFFFFFFF), 5: "Home", 254: uint(1)}]),
    ("nested struct in list in struct", {0: [{0: "WIFI_STA_DEF", 1: True, 2: None}], 7: uint(1)}),
]


def main():
    vectors = []
    for i, (name, value) in enumerate(CASES, 1):
        w = TLVWriter()
        w.put(None, value)
        tlv = bytes(w.encoding)
        decoded = TLVReader(tlv).get()["Any"]
        text = orjson.dumps(decoded, option=orjson.OPT_NON_STR_KEYS, default=json_encoder_default).decode()
        vectors.append({"id": f"attr-{i:03}", "name": name, "valid": True, "tlv": tlv.hex(), "json": text,
                        "source": "chip.tlv TLVWriter/TLVReader (home-assistant-chip-clusters 2025.7.0) + "
                                  "python-matter-server 8.1.2 common/helpers/json.py encoder"})
    doc = {"family": "matter-server-attribute-values",
           "description": "Matter TLV attribute values and their tag-keyed JSON, as python-matter-server sends them.",
           "count": len(vectors), "vectors": vectors}
    with open("testvectors/matter-server/attribute_values.json", "w") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")


main()
