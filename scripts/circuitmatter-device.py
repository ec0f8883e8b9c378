#!/usr/bin/env python3
"""Runs a CircuitMatter 0.4.1 on/off light with a fixed setup code, for the lab tests.

usage: .peers/venv/bin/python scripts/circuitmatter-device.py STATE_DIR [--passcode P] [--discriminator D]

Writes STATE_DIR/matter-device-state.json on first start with the given passcode and
discriminator (default 20202021 / 3840; a fresh salt, verifier and DAC, formed with
CircuitMatter's own helpers so the file has exactly the shape it expects), then serves Matter on
UDP 5541 and advertises through avahi-publish-service (so run it inside a lab host:
scripts/lab exec <lab> <host> ...). Use a fresh STATE_DIR per commissioning run.
"""
import argparse
import binascii
import json
import os
import pathlib
import sys
import time

from circuitmatter import certificates
from circuitmatter.utility import random

VENDOR_ID, PRODUCT_ID = 0xFFF4, 0x1234  # hard-coded in CircuitMatter 0.4.1
ITERATIONS = 10000


def write_state(path: pathlib.Path, passcode: int, discriminator: int) -> None:
    cd = certificates.generate_certificates(vendor_id=VENDOR_ID, product_id=PRODUCT_ID)
    dac_cert, dac_key = certificates.generate_dac(VENDOR_ID, PRODUCT_ID, "CircuitMatter", random)
    salt = random.urandom(32)
    verifier = certificates.compute_verifier(passcode, salt, ITERATIONS)

    def b64(b: bytes) -> str:
        return binascii.b2a_base64(b, newline=False).decode("utf-8")

    state = {
        "discriminator": discriminator,
        "passcode": passcode,
        "manual_code": certificates.compute_manual_code(discriminator, passcode),
        "iteration-count": ITERATIONS,
        "salt": b64(salt),
        "verifier": b64(verifier),
        "devices": {"root": {"0x3e": {"cd": b64(cd), "dac_cert": b64(dac_cert), "dac_key": b64(dac_key)}}},
    }
    path.write_text(json.dumps(state, indent=1))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("state_dir")
    parser.add_argument("--passcode", type=int, default=20202021)
    parser.add_argument("--discriminator", type=int, default=3840)
    args = parser.parse_args()
    state_dir = pathlib.Path(args.state_dir)
    state_dir.mkdir(parents=True, exist_ok=True)
    state = state_dir / "matter-device-state.json"
    if not state.exists():
        write_state(state, args.passcode, args.discriminator)
    os.chdir(state_dir)

    import circuitmatter as cm
    from circuitmatter.device_types.lighting import on_off

    class Light(on_off.OnOffLight):
        def on(self):
            print("light: on", flush=True)

        def off(self):
            print("light: off", flush=True)

    matter = cm.CircuitMatter(state_filename=str(state))
    matter.add_device(Light("light1"))
    print("circuitmatter: ready", flush=True)
    while True:
        matter.process_packets()
        time.sleep(0.005)


if __name__ == "__main__":
    sys.exit(main())
