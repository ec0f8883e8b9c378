#!/usr/bin/env python3
"""Makes a python-matter-server storage with N nodes from a real one (the vector that
python-matter-server 8.1.2 wrote: testvectors/python-matter-server/storage-8.1.2): the same
chip.json (its CA and IPK), and N copies of its first node, with node IDs 1...N and their own
NodeLabel. For timing `matterctl import` beyond what python-matter-server commissions in a run.

    gen-storage.py SOURCE_DIR TARGET_DIR N
"""
import copy
import json
import os
import shutil
import sys


def main(source, target, n):
    os.makedirs(target, exist_ok=True)
    shutil.copy(os.path.join(source, "chip.json"), os.path.join(target, "chip.json"))
    name = next(f for f in os.listdir(source) if f.endswith(".json") and f != "chip.json")
    with open(os.path.join(source, name)) as f:
        data = json.load(f)
    template = data["nodes"][sorted(data["nodes"], key=int)[0]]
    nodes = {}
    for i in range(1, n + 1):
        node = copy.deepcopy(template)
        node["node_id"] = i
        node["attributes"]["0/40/5"] = f"Light {i}"
        nodes[str(i)] = node
    data["nodes"] = nodes
    data["last_node_id"] = n
    with open(os.path.join(target, name), "w") as f:
        json.dump(data, f, indent=2)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
