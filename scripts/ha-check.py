#!/usr/bin/env python3
"""Real Home Assistant core, with its own Matter integration, against MatterHub's hub.

    .peers/homeassistant/bin/python scripts/ha-check.py --matterctl PATH --hub-state DIR
        --paa-store DIR --config DIR --light-code MT:... --light-fifo FIFO --plug-pin PIN
        [--plug-address ADDR] [--hub-port 5580] [--interface eth0]
        [--compare-pms --pms-work DIR [--pms-port 5581]] [--timeout 900]

Run it inside a lab host (scripts/lab), where avahi-daemon runs, with the python of
.peers/homeassistant (scripts/peers: Home Assistant 2026.2.3 on Python 3.13). It owns two
processes, stopped by their PIDs (they stay in this script's process group, so that whoever stops
that group stops them too):
  - the hub: `matterctl hub serve --state DIR --port P --paa-store X --allow-test-devices`, on
    loopback, restarted once with the same state;
  - Home Assistant: scripts/ha-launch.py (Home Assistant's own entry point, its Python version
    gate skipped) with `--skip-pip -c CONFIG` and a minimal configuration.yaml written here,
    restarted once through its own `homeassistant.restart` service.
The devices are the caller's: a dimmable light commissionable with --light-code, whose stdin is
the FIFO --light-fifo (a line "press" presses its button: it toggles itself), and a second device
(a plug) commissionable with --plug-pin, at --plug-address.

Everything goes through Home Assistant's own REST and WebSocket API, as its frontend does:
onboarding, the Matter config flow with the hub's URL, commissioning by QR code
(`matter/commission`) and by PIN only (`matter/commission_on_network`, first without an address),
light.turn_on/turn_off/toggle and brightness (timed from the service call to the state_changed
event), the device's own button, a hub restart, a Home Assistant restart, device removal as its
device page does it (no ghost device may come back; the plug, commissionable again once the hub has
left it, is then commissioned by PIN and --plug-address), and no Matter warning or error in its log.

With --compare-pms, the light is then handed over (a commissioning window opened through Home
Assistant) to python-matter-server 8.1.2 (scripts/pms-server: .peers/pms-server in a private mount
namespace, the CHIP SDK writes to /data and /tmp), which replaces the hub in Home Assistant's Matter
entry, and the same on/off/brightness calls are timed through it, so that both medians come from
one run. The processes' output goes to CONFIG-logs/.

Prints one line per check and ends with `ha-check: N passed, N failed`; exits 1 on any failure.
Every wait is bounded.
"""
import argparse
import asyncio
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

HA_LAUNCH = Path(__file__).resolve().with_name("ha-launch.py")
PMS_SERVER = Path(__file__).resolve().with_name("pms-server")
# Home Assistant's exit status when it stops to be restarted (homeassistant.const.RESTART_EXIT_CODE).
RESTART_EXIT_CODE = 100
CLIENT_ID = "http://127.0.0.1/"  # any URL: Home Assistant's OAuth client IDs are URLs
# The first line of a record in home-assistant.log: "2026-12-04 14:57:33.151 WARNING (MainThread) [logger] ...".
LOG_RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ ([A-Z]+) ")


# ---------------------------------------------------------------------------------------------
# Counted checks


class Fatal(Exception):
    """A failed check that the later checks depend on: the run stops there."""


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail="", failure=""):
        """Counts and prints one check, with `detail` (and `failure` when it failed); returns
        whether it passed."""
        if ok:
            self.passed += 1
            print(f"ok   {name}" + (f" ({detail})" if detail else ""), flush=True)
        else:
            self.failed += 1
            print(f"FAIL {name}" + (f": {detail}" if detail else "") + (f"\n{failure}" if failure else ""), flush=True)
        return bool(ok)

    def require(self, name, ok, detail="", failure=""):
        """A check whose failure ends the run."""
        if not self.check(name, ok, detail, failure):
            raise Fatal(name)

    def summary(self):
        print(f"ha-check: {self.passed} passed, {self.failed} failed", flush=True)
        return 1 if self.failed else 0


checks = Checks()


def info(text):
    """A line that is not a check (figures, context)."""
    print(f"     {text}", flush=True)


# ---------------------------------------------------------------------------------------------
# Child processes


class Child:
    """A process of this script, its output in a log file; stopped by its PID (SIGTERM, then
    SIGKILL). None of them forks a process of its own: the hub and Home Assistant run as started,
    and scripts/pms-server execs python-matter-server."""

    def __init__(self, name, argv, log_path):
        self.name = name
        self.log_path = Path(log_path)
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.process.pid

    def text(self):
        return self.log_path.read_text(errors="replace")

    def tail(self, lines=30):
        return "\n".join(self.text().splitlines()[-lines:])

    async def wait_for_line(self, pattern, timeout):
        """Whether a line matching `pattern` appears in the log within `timeout` s (False at once
        if the process exits)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern, self.text(), re.MULTILINE):
                return True
            if self.process.poll() is not None:
                return bool(re.search(pattern, self.text(), re.MULTILINE))
            await asyncio.sleep(0.05)
        return False

    async def wait_exit(self, timeout):
        """The exit status, or None if still running after `timeout` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (status := self.process.poll()) is not None:
                return status
            await asyncio.sleep(0.05)
        return self.process.poll()

    async def stop(self, grace=15):
        """SIGTERM, SIGKILL after `grace` s; the exit status (negative: the signal that ended it)."""
        if self.process.poll() is None:
            self.process.terminate()
            if await self.wait_exit(grace) is None:
                self.process.kill()
                await self.wait_exit(5)
        self.log.close()
        return self.process.poll()

    def kill_now(self):
        """Last resort at exit: SIGKILL if it still runs."""
        if self.process.poll() is None:
            self.process.kill()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                pass


def free_port():
    """A TCP port free on 127.0.0.1 now (in this network namespace)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# Home Assistant's WebSocket API


class HAError(Exception):
    pass


class HAWebSocket:
    """A client of Home Assistant's WebSocket API (/api/websocket): numbered commands, and every
    state_changed event kept with the monotonic time it arrived."""

    def __init__(self, session, base_url):
        self.session = session
        self.url = base_url.replace("http://", "ws://") + "/api/websocket"
        self.ws = None
        self.next_id = 1
        self.pending = {}
        self.reader = None
        self.history = []  # (arrival time, entity_id, new_state or None)
        self.states = {}  # entity_id -> the latest state object
        self.changed = asyncio.Condition()

    async def connect(self, access_token):
        self.ws = await self.session.ws_connect(self.url, max_msg_size=0, timeout=aiohttp.ClientWSTimeout(ws_close=10))
        first = await self.ws.receive_json(timeout=10)
        if first.get("type") != "auth_required":
            raise HAError(f"expected auth_required, got {first}")
        await self.ws.send_json({"type": "auth", "access_token": access_token})
        reply = await self.ws.receive_json(timeout=10)
        if reply.get("type") != "auth_ok":
            raise HAError(f"authentication refused: {reply}")
        self.reader = asyncio.create_task(self._read())
        # Events first, then the current states: no change can fall between the two.
        await self.command({"type": "subscribe_events", "event_type": "state_changed"})
        for state in await self.command({"type": "get_states"}):
            self.states[state["entity_id"]] = state

    async def _read(self):
        try:
            async for message in self.ws:
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                payload = json.loads(message.data)
                # Home Assistant may batch messages in one JSON array.
                for item in payload if isinstance(payload, list) else [payload]:
                    await self._dispatch(item)
        finally:
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(HAError("the WebSocket connection closed"))
            self.pending.clear()

    async def _dispatch(self, item):
        if item.get("type") == "result":
            future = self.pending.pop(item.get("id"), None)
            if future and not future.done():
                if item.get("success"):
                    future.set_result(item.get("result"))
                else:
                    future.set_exception(HAError(json.dumps(item.get("error"))))
        elif item.get("type") == "event":
            event = item["event"]
            if event.get("event_type") == "state_changed":
                data = event["data"]
                async with self.changed:
                    self.history.append((time.monotonic(), data["entity_id"], data.get("new_state")))
                    if data.get("new_state") is None:
                        self.states.pop(data["entity_id"], None)
                    else:
                        self.states[data["entity_id"]] = data["new_state"]
                    self.changed.notify_all()

    def send(self, message):
        """Sends a command; a future for its result."""
        message = dict(message, id=self.next_id)
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[message["id"]] = future
        asyncio.create_task(self.ws.send_json(message))
        return future

    async def command(self, message, timeout=30):
        return await asyncio.wait_for(self.send(message), timeout)

    async def wait_state(self, entity_id, predicate, since, timeout):
        """The first state of `entity_id` recorded at history index >= `since` that satisfies
        `predicate`, with its arrival time; (None, None) after `timeout` s."""
        deadline = time.monotonic() + timeout
        async with self.changed:
            while True:
                for arrived, entity, state in self.history[since:]:
                    if entity == entity_id and state is not None and predicate(state):
                        return state, arrived
                since = len(self.history)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None, None
                try:
                    await asyncio.wait_for(self.changed.wait(), remaining)
                except TimeoutError:
                    return None, None

    async def wait_current(self, entity_id, predicate, timeout):
        """Waits until the latest state of `entity_id` satisfies `predicate`; it, or None."""
        state = self.states.get(entity_id)
        if state is not None and predicate(state):
            return state
        found, _ = await self.wait_state(entity_id, predicate, len(self.history), timeout)
        return found

    async def close(self):
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            try:
                await asyncio.wait_for(self.reader, 5)
            except (TimeoutError, HAError):
                pass


# ---------------------------------------------------------------------------------------------
# Home Assistant itself


class HomeAssistant:
    """Home Assistant core in CONFIG, started through scripts/ha-launch.py."""

    def __init__(self, session, config_dir, interface, output_log):
        self.session = session
        self.output_log = output_log
        self.config = Path(config_dir)
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.access_token = None
        self.refresh_token = None
        self.ws = None
        self._write_configuration(interface)

    def _write_configuration(self, interface):
        """A minimal configuration: the API, its WebSocket, onboarding and the config panel's
        API; no default_config, so the zeroconf, ssdp, dhcp and bluetooth integrations do not
        load (Home Assistant's HTTP client still opens a python-zeroconf socket to resolve .local
        names: one more reason to run it in a lab host only)."""
        self.config.mkdir(parents=True, exist_ok=True)
        (self.config / "configuration.yaml").write_text(
            "homeassistant:\n"
            "  name: MatterHub lab\n"
            "  time_zone: UTC\n"
            "  unit_system: metric\n"
            "http:\n"
            "  server_host: 127.0.0.1\n"
            f"  server_port: {self.port}\n"
            "api:\n"
            "websocket_api:\n"
            "onboarding:\n"
            "config:\n")
        # Home Assistant's network settings (Settings > System > Network), stored as its UI stores
        # them. Every aiohttp session of Home Assistant resolves names through a zeroconf
        # instance, which joins the mDNS groups on the enabled interfaces; with none enabled (a lab
        # host has only link-local addresses and no default route, so none is detected) it joins
        # on the default interface, which fails with ENODEV, and the Matter client session with it.
        storage = self.config / ".storage"
        storage.mkdir(exist_ok=True)
        (storage / "core.network").write_text(json.dumps(
            {"version": 1, "minor_version": 1, "key": "core.network", "data": {"configured_adapters": [interface]}}))

    def start(self):
        self.process = Child("home-assistant", [sys.executable, str(HA_LAUNCH), "--skip-pip", "-c", str(self.config)],
                             self.output_log)

    async def wait_api(self, path, timeout, headers=None):
        """Whether GET `path` answers 200 within `timeout` s (False at once if HA exits)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.process.poll() is not None:
                return False
            try:
                async with self.session.get(self.base + path, headers=headers,
                                            timeout=aiohttp.ClientTimeout(total=5)) as response:
                    if response.status == 200:
                        return True
            except (aiohttp.ClientError, TimeoutError):
                pass
            await asyncio.sleep(0.2)
        return False

    @property
    def auth(self):
        return {"Authorization": f"Bearer {self.access_token}"}

    async def onboard(self):
        """Creates the owner through the onboarding API and exchanges its auth code for tokens."""
        async with self.session.post(self.base + "/api/onboarding/users", json={
                "client_id": CLIENT_ID, "name": "Lab Owner", "username": "owner",
                "password": "lab-owner-password", "language": "en"}) as response:
            body = await response.json(content_type=None)
            if response.status != 200 or "auth_code" not in body:
                raise HAError(f"onboarding/users: {response.status} {body}")
        await self._token({"grant_type": "authorization_code", "code": body["auth_code"], "client_id": CLIENT_ID})

    async def _token(self, form):
        async with self.session.post(self.base + "/auth/token", data=form) as response:
            body = await response.json(content_type=None)
            if response.status != 200 or "access_token" not in body:
                raise HAError(f"auth/token: {response.status} {body}")
        self.access_token = body["access_token"]
        self.refresh_token = body.get("refresh_token", self.refresh_token)

    async def refresh(self):
        """A fresh access token from the refresh token (after a restart)."""
        await self._token({"grant_type": "refresh_token", "refresh_token": self.refresh_token, "client_id": CLIENT_ID})

    async def rest(self, method, path, body=None):
        async with self.session.request(method, self.base + path, json=body, headers=self.auth,
                                        timeout=aiohttp.ClientTimeout(total=60)) as response:
            data = await response.json(content_type=None)
            if response.status != 200:
                raise HAError(f"{method} {path}: {response.status} {data}")
            return data

    async def open_websocket(self):
        self.ws = HAWebSocket(self.session, self.base)
        await self.ws.connect(self.access_token)
        return self.ws

    def log_lines(self):
        """Home Assistant's log, the previous run's first (it keeps one backup at each start)."""
        lines = []
        for name in ("home-assistant.log.1", "home-assistant.log"):
            path = self.config / name
            if path.exists():
                lines += path.read_text(errors="replace").splitlines()
        return lines


# ---------------------------------------------------------------------------------------------
# Registry helpers


def nodes_of(device):
    """The Matter node IDs in a device registry entry's identifiers
    ("deviceid_<CFID>-<NODE>-MatterNodeDevice"): one, unless Home Assistant merged devices."""
    nodes = set()
    for domain, value in device.get("identifiers", []):
        if domain == "matter":
            match = re.fullmatch(r"deviceid_([0-9A-F]{16})-([0-9A-F]{16})-MatterNodeDevice", value)
            if match:
                nodes.add(int(match.group(2), 16))
    return nodes


async def matter_devices(ws, entry_id):
    """Device registry entries of the Matter config entry by node ID: {node: device}."""
    devices = await ws.command({"type": "config/device_registry/list"})
    return {node: d for d in devices if entry_id in d.get("config_entries", []) for node in nodes_of(d)}


async def wait_new_device(ws, entry_id, known, timeout=30):
    """A Matter device whose node is not in `known`, within `timeout` s: (node, device) or (None, None)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for node, device in (await matter_devices(ws, entry_id)).items():
            if node not in known:
                return node, device
        await asyncio.sleep(0.3)
    return None, None


async def wait_entity(ws, device_id, domain, timeout=30):
    """The entity_id of `device_id`'s entity in `domain`, within `timeout` s, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        entities = await ws.command({"type": "config/entity_registry/list"})
        for entity in entities:
            if entity.get("device_id") == device_id and entity["entity_id"].startswith(domain + "."):
                return entity["entity_id"]
        await asyncio.sleep(0.3)
    return None


async def config_entry_state(ha, entry_id):
    entries = await ha.rest("GET", "/api/config/config_entries/entry")
    return next((e.get("state") for e in entries if e.get("entry_id") == entry_id), None)


async def wait_entry_loaded(ha, entry_id, timeout):
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        state = await config_entry_state(ha, entry_id)
        if state == "loaded":
            return state
        await asyncio.sleep(0.3)
    return state


async def add_matter_entry(ha, url):
    """The Matter config flow as a person goes through it: the integration, then its manual form
    with the server's URL. The new entry's ID."""
    flow = await ha.rest("POST", "/api/config/config_entries/flow", {"handler": "matter", "show_advanced_options": False})
    checks.require("the Matter config flow opens its manual form", flow.get("type") == "form" and flow.get("step_id") == "manual",
                   failure=json.dumps(flow))
    result = await ha.rest("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"url": url})
    checks.require(f"the manual form with {url} creates the Matter entry", result.get("type") == "create_entry",
                   failure=json.dumps(result))
    return result["result"]["entry_id"]


# ---------------------------------------------------------------------------------------------
# Light control, timed


def is_on(state):
    return state["state"] == "on"


def is_off(state):
    return state["state"] == "off"


def available(state):
    return state["state"] not in ("unavailable", "unknown")


def brightness_near(target, tolerance=3):
    """On at `target` brightness (0-255), give or take the level rounding (1-254 in Matter)."""
    def predicate(state):
        b = state.get("attributes", {}).get("brightness")
        return state["state"] == "on" and b is not None and abs(b - target) <= tolerance
    return predicate


async def timed_call(ws, entity_id, domain, service, data, predicate, label, times):
    """Calls the service and waits for the state_changed that satisfies `predicate`: one check,
    the time from the call to that event appended to `times`."""
    since = len(ws.history)
    started = time.monotonic()
    result = ws.send({"type": "call_service", "domain": domain, "service": service, "service_data": data,
                      "target": {"entity_id": entity_id}})
    state, arrived = await ws.wait_state(entity_id, predicate, since, 10)
    error = None
    try:
        await asyncio.wait_for(result, 10)
    except (HAError, TimeoutError) as e:
        error = repr(e)
    if state is not None:
        times.append(arrived - started)
    checks.check(label, state is not None and error is None,
                 f"{(arrived - started) * 1000:.1f} ms" if state is not None and error is None
                 else f"state {ws.states.get(entity_id, {}).get('state')} "
                      f"{ws.states.get(entity_id, {}).get('attributes', {}).get('brightness')}; service call: {error}")


async def light_sequence(ws, light, prefix=""):
    """On, off, toggle and brightness through Home Assistant's light services; the times."""
    times = []
    # From a known state: off.
    if not is_off(ws.states.get(light, {"state": "?"})):
        await timed_call(ws, light, "light", "turn_off", {}, is_off, f"{prefix}light.turn_off to start from off", [])
    for round_number in range(1, 6):
        await timed_call(ws, light, "light", "turn_on", {}, is_on, f"{prefix}light.turn_on turns it on ({round_number}/5)", times)
        await timed_call(ws, light, "light", "turn_off", {}, is_off, f"{prefix}light.turn_off turns it off ({round_number}/5)", times)
    await timed_call(ws, light, "light", "toggle", {}, is_on, f"{prefix}light.toggle from off turns it on", times)
    await timed_call(ws, light, "light", "toggle", {}, is_off, f"{prefix}light.toggle from on turns it off", times)
    await timed_call(ws, light, "light", "turn_on", {"brightness": 200}, brightness_near(200),
                     f"{prefix}light.turn_on brightness 200 from off: on at 200", times)
    await timed_call(ws, light, "light", "turn_on", {"brightness": 100}, brightness_near(100),
                     f"{prefix}light.turn_on brightness 100 while on: dimmed to 100", times)
    await timed_call(ws, light, "light", "turn_off", {}, is_off, f"{prefix}light.turn_off after dimming", times)
    # MoveToLevelWithOnOff to a level below the one kept while off must turn the light on at it.
    await timed_call(ws, light, "light", "turn_on", {"brightness": 40}, brightness_near(40),
                     f"{prefix}light.turn_on brightness 40 from off (lower than before): on at 40", times)
    await timed_call(ws, light, "light", "turn_on", {"brightness": 180}, brightness_near(180),
                     f"{prefix}light.turn_on brightness 180 while on: brightened to 180", times)
    return times


def median_ms(times):
    return statistics.median(times) * 1000 if times else float("nan")


# ---------------------------------------------------------------------------------------------
# The run


def start_hub(args, logs):
    return Child("hub", [args.matterctl, "hub", "serve", "--state", args.hub_state, "--port", str(args.hub_port),
                         "--paa-store", args.paa_store, "--allow-test-devices"], logs / "hub.log")



async def commission(ws, message, name):
    """Sends a commissioning command through Home Assistant and requires it to succeed; the
    check's detail is the time it took (or the error)."""
    started = time.monotonic()
    try:
        await ws.command(message, timeout=120)
        error = None
    except (HAError, TimeoutError) as e:
        error = repr(e)
    checks.require(name, error is None, error or f"{time.monotonic() - started:.2f} s")

async def run(args, session, children):
    # The processes' output: CONFIG-logs/hub.log, home-assistant.stdout.log, pms.log.
    logs = Path(str(Path(args.config).resolve()) + "-logs")
    logs.mkdir(parents=True, exist_ok=True)
    run_started = time.monotonic()

    # The hub.
    hub = start_hub(args, logs)
    children.append(hub)
    checks.require("the hub starts (hub: ready)", await hub.wait_for_line(r"^hub: ready", 60), failure=hub.tail())
    hub_url = f"ws://127.0.0.1:{args.hub_port}/ws"

    # Home Assistant: start, onboarding, the Matter entry.
    ha = HomeAssistant(session, args.config, args.interface, logs / "home-assistant.stdout.log")
    ha.start()
    children.append(ha.process)
    started = time.monotonic()
    checks.require("Home Assistant starts and its API answers", await ha.wait_api("/api/onboarding", 180),
                   failure=ha.process.tail())
    info(f"Home Assistant answered {time.monotonic() - started:.1f} s after its start")
    await ha.onboard()
    checks.require("onboarding creates the owner and /auth/token gives its access token", ha.access_token is not None)
    checks.require("the REST API answers with that token", await ha.wait_api("/api/", 10, ha.auth))
    entry_id = await add_matter_entry(ha, hub_url)
    state = await wait_entry_loaded(ha, entry_id, 60)
    checks.require("the Matter entry loads (connected to the hub)", state == "loaded", f"state {state}")
    ws = await ha.open_websocket()

    # Commissioning by QR code.
    await commission(ws, {"type": "matter/commission", "code": args.light_code},
                     "matter/commission with the light's QR code succeeds")
    light_node, light_device = await wait_new_device(ws, entry_id, set())
    checks.require("the light appears in the device registry", light_device is not None)
    checks.check("its device entry carries the vendor and model", bool(light_device.get("manufacturer") and light_device.get("model")),
                 f"{light_device.get('manufacturer')} / {light_device.get('model')}")
    light = await wait_entity(ws, light_device["id"], "light")
    checks.require("the light's light entity is created", light is not None)
    state = await ws.wait_current(light, available, 30)
    checks.require(f"{light} is available", state is not None, failure=repr(ws.states.get(light)))
    checks.check(f"{light} supports brightness", "brightness" in (state["attributes"].get("supported_color_modes") or []),
                 repr(state["attributes"].get("supported_color_modes")))

    # Commissioning by PIN only: Home Assistant's "shared device" path.
    await commission(ws, {"type": "matter/commission_on_network", "pin": args.plug_pin},
                     "matter/commission_on_network with only the plug's PIN succeeds")
    plug_node, plug_device = await wait_new_device(ws, entry_id, {light_node})
    checks.require("the plug appears in the device registry", plug_device is not None)
    # Two devices must stay two: Home Assistant merges device entries that share an identifier,
    # and it takes the SerialNumber as one ("serial_<SerialNumber>").
    checks.require("the light and the plug are two devices in Home Assistant", plug_device["id"] != light_device["id"],
                   f"serial numbers {light_device.get('serial_number')!r} and {plug_device.get('serial_number')!r}")
    plug = await wait_entity(ws, plug_device["id"], "switch")
    checks.require("the plug's switch entity is created", plug is not None)
    checks.require(f"{plug} is available", await ws.wait_current(plug, available, 30) is not None, failure=repr(ws.states.get(plug)))
    unused = []
    await timed_call(ws, plug, "switch", "turn_on", {}, is_on, f"switch.turn_on turns {plug} on", unused)
    await timed_call(ws, plug, "switch", "turn_off", {}, is_off, f"switch.turn_off turns {plug} off", unused)

    # The light through its services, timed.
    times = await light_sequence(ws, light)
    hub_median = median_ms(times)
    info(f"service call to state_changed through the hub: median {hub_median:.1f} ms over {len(times)} calls "
         f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})" if times else "no timed call succeeded")

    # The device's own button: the light toggles itself and Home Assistant follows.
    before = ws.states[light]["state"]
    since = len(ws.history)
    pressed = time.monotonic()
    fifo = os.open(args.light_fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO if nobody reads it: a clear error
    os.write(fifo, b"press\n")
    os.close(fifo)
    expected = "off" if before == "on" else "on"
    found, arrived = await ws.wait_state(light, lambda s: s["state"] == expected, since, 10)
    checks.check(f"the light's own button ({before} -> {expected}) reaches Home Assistant", found is not None,
                 f"{(arrived - pressed) * 1000:.0f} ms" if found else f"still {ws.states[light]['state']}")

    # A hub restart: the entities go unavailable and come back with the device's state.
    light_state = ws.states[light]["state"]
    plug_state = ws.states[plug]["state"]
    since = len(ws.history)
    status = await hub.stop()
    checks.check("the hub stops on SIGTERM", status == 0, f"exit status {status}")
    gone, _ = await ws.wait_state(light, lambda s: s["state"] == "unavailable", since, 20)
    checks.check(f"{light} becomes unavailable while the hub is down", gone is not None)
    restarted = time.monotonic()
    hub = start_hub(args, logs)
    children.append(hub)
    checks.require("the hub starts again with its state", await hub.wait_for_line(r"^hub: ready", 60), failure=hub.tail())
    back = await ws.wait_current(light, lambda s: s["state"] == light_state, 90)
    checks.check(f"after the hub restart {light} is back, {light_state}", back is not None,
                 f"{time.monotonic() - restarted:.1f} s" if back else repr(ws.states.get(light)))
    back = await ws.wait_current(plug, lambda s: s["state"] == plug_state, 30)
    checks.check(f"after the hub restart {plug} is back, {plug_state}", back is not None, failure=repr(ws.states.get(plug)))
    await timed_call(ws, light, "light", "toggle", {}, is_off if light_state == "on" else is_on,
                     f"{light} answers light.toggle after the hub restart", [])

    # Home Assistant restarts itself (its homeassistant.restart service exits with status 100,
    # for its supervisor to start it again: here, this script).
    light_state = ws.states[light]["state"]
    # (its result may never come: the connection closes as Home Assistant stops)
    restart = ws.send({"type": "call_service", "domain": "homeassistant", "service": "restart", "service_data": {}})
    restart.add_done_callback(lambda future: future.exception())
    status = await ha.process.wait_exit(120)
    checks.require("homeassistant.restart stops Home Assistant with the restart status (100)", status == RESTART_EXIT_CODE,
                   f"exit status {status}")
    await ws.close()
    restarted = time.monotonic()
    ha.start()
    children.append(ha.process)
    checks.require("Home Assistant starts again", await ha.wait_api("/api/onboarding", 180), failure=ha.process.tail())
    await ha.refresh()
    checks.require("the REST API answers after the restart", await ha.wait_api("/api/", 30, ha.auth))
    ws = await ha.open_websocket()
    back = await ws.wait_current(light, lambda s: s["state"] == light_state, 90)
    checks.check(f"after the Home Assistant restart {light} is back, {light_state}", back is not None,
                 f"{time.monotonic() - restarted:.1f} s after the new start" if back else repr(ws.states.get(light)))
    devices = await matter_devices(ws, entry_id)
    checks.check("the same two Matter devices are registered",
                 set(devices) == {light_node, plug_node} and len({d["id"] for d in devices.values()}) == 2,
                 repr({node: d["id"] for node, d in devices.items()}))
    await timed_call(ws, light, "light", "toggle", {}, is_off if light_state == "on" else is_on,
                     f"{light} answers light.toggle after the Home Assistant restart", [])

    # Device removal as the device page does it: the Matter integration removes the node from
    # the hub (async_remove_config_entry_device -> remove_node). No ghost may come back.
    try:
        await ws.command({"type": "config/device_registry/remove_config_entry", "config_entry_id": entry_id,
                          "device_id": plug_device["id"]}, timeout=60)
        error = None
    except (HAError, TimeoutError) as e:
        error = repr(e)
    checks.check("removing the plug's device from the Matter entry succeeds", error is None, error or "")
    ghosts = []
    for _ in range(20):  # 20 looks over 6 s
        devices = await matter_devices(ws, entry_id)
        if plug_node in devices or plug_device["id"] in {d["id"] for d in devices.values()}:
            ghosts.append(time.monotonic())
        await asyncio.sleep(0.3)
    checks.check("no device comes back for the removed node (6 s)", not ghosts, f"seen {len(ghosts)} times")
    entities = await ws.command({"type": "config/entity_registry/list"})
    checks.check(f"{plug} is gone from the entity registry", all(e["entity_id"] != plug for e in entities))
    checks.check("the light is still registered", light_node in await matter_devices(ws, entry_id))

    # The removed device left the hub's fabric, so it is commissionable again: commission it by
    # its PIN and address (the other form of commission_on_network).
    if args.plug_address:
        started = time.monotonic()
        try:
            await ws.command({"type": "matter/commission_on_network", "pin": args.plug_pin, "ip_addr": args.plug_address},
                             timeout=120)
            error = None
        except (HAError, TimeoutError) as e:
            error = repr(e)
        checks.check(f"the removed plug is commissioned again by PIN and ip_addr {args.plug_address}", error is None,
                     error or f"{time.monotonic() - started:.2f} s")
        if error is None:
            node, device = await wait_new_device(ws, entry_id, {light_node, plug_node})
            checks.check("it is a new node in the device registry", device is not None, f"node {node}")
            if device is not None:
                entity = await wait_entity(ws, device["id"], "switch")
                checks.check("its switch entity is created and available",
                             entity is not None and await ws.wait_current(entity, available, 30) is not None, repr(entity))

    # Home Assistant's log: no warning or error about Matter, in either of its runs. A record is
    # its first line and the lines that follow it (a traceback), matched as a whole.
    records = []
    for line in ha.log_lines():
        if LOG_RECORD.match(line) or not records:
            records.append([line])
        else:
            records[-1].append(line)
    serious = [r for r in records if LOG_RECORD.match(r[0]) and LOG_RECORD.match(r[0]).group(1) in ("WARNING", "ERROR", "CRITICAL")]
    flagged = [r for r in serious if "matter" in "\n".join(r).lower()]
    checks.check("Home Assistant logged no Matter warning or error", not flagged,
                 "\n".join("\n".join(r[:1] + r[-1:] if len(r) > 1 else r) for r in flagged[:10]))
    for record in serious:
        if record not in flagged and "Skipping pip installation" not in record[0]:  # (that one is --skip-pip's)
            info(f"other log record: {record[0][:200]}")

    # The comparison with python-matter-server (after the log scan: its own run may log what it likes).
    pms_median = None
    if args.compare_pms:
        pms_median = await compare_pms(args, ha, ws, entry_id, light_device, logs, children)

    await ws.close()
    info(f"median service call to state_changed: hub {hub_median:.1f} ms"
         + (f", python-matter-server {pms_median:.1f} ms" if pms_median is not None else ""))
    info(f"ha-check took {time.monotonic() - run_started:.0f} s")


async def compare_pms(args, ha, ws, entry_id, light_device, logs, children):
    """The light handed to python-matter-server 8.1.2 and the same calls timed through it; its median."""
    # A commissioning window on the light, opened through Home Assistant and the hub.
    try:
        window = await ws.command({"type": "matter/open_commissioning_window", "device_id": light_device["id"]}, timeout=60)
        error = None
    except (HAError, TimeoutError) as e:
        window, error = None, repr(e)
    checks.require("matter/open_commissioning_window on the light gives a code", error is None and window.get("setup_qr_code"),
                   failure=error or repr(window))
    # Home Assistant has one Matter entry: the hub's goes (the hub keeps the light), the server's comes.
    await ha.rest("DELETE", f"/api/config/config_entries/entry/{entry_id}")

    # scripts/pms-server: python-matter-server 8.1.2 in a private mount namespace (the CHIP SDK
    # writes to /data and /tmp), on loopback, with the SDK's test PAA.
    pms_work = Path(args.pms_work)
    server = Child("python-matter-server", [str(PMS_SERVER), str(pms_work), str(pms_work / "storage"), str(args.pms_port)],
                   logs / "pms.log")
    children.append(server)
    up = False
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and server.process.poll() is None and not up:
        try:
            async with ha.session.get(f"http://127.0.0.1:{args.pms_port}/info", timeout=aiohttp.ClientTimeout(total=3)) as r:
                up = r.status == 200
        except (aiohttp.ClientError, TimeoutError):
            await asyncio.sleep(0.5)
    checks.require("python-matter-server 8.1.2 starts", up, failure=server.tail())
    pms_entry = await add_matter_entry(ha, f"ws://127.0.0.1:{args.pms_port}/ws")
    state = await wait_entry_loaded(ha, pms_entry, 60)
    checks.require("the Matter entry for python-matter-server loads", state == "loaded", f"state {state}")
    try:
        await ws.command({"type": "matter/commission", "code": window["setup_qr_code"]}, timeout=180)
        error = None
    except (HAError, TimeoutError) as e:
        error = repr(e)
    checks.require("python-matter-server commissions the light through the window (a second fabric)", error is None, error or "")
    _, device = await wait_new_device(ws, pms_entry, set())
    checks.require("the light appears under python-matter-server's entry", device is not None)
    light = await wait_entity(ws, device["id"], "light")
    checks.require("its light entity is created and available",
                   light is not None and await ws.wait_current(light, available, 30) is not None, repr(light))
    times = await light_sequence(ws, light, prefix="python-matter-server: ")
    median = median_ms(times)
    # (python-matter-server subscribes with a MinIntervalFloor of 1 s, NODE_SUBSCRIPTION_FLOOR_DEFAULT,
    # which a device honours: its reports, and so Home Assistant's states, come about 1 s late.)
    info(f"service call to state_changed through python-matter-server: median {median:.1f} ms over {len(times)} calls")
    await ha.rest("DELETE", f"/api/config/config_entries/entry/{pms_entry}")
    await server.stop()
    return median


async def main(args):
    children = []
    status = 1
    # SIGTERM (a caller's time limit) ends the run as a failure, with its processes stopped.
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, asyncio.current_task().cancel)
    async with aiohttp.ClientSession() as session:
        try:
            async with asyncio.timeout(args.timeout):
                await run(args, session, children)
        except Fatal:
            pass
        except TimeoutError:
            checks.check(f"the run finished within {args.timeout} s", False)
        except asyncio.CancelledError:
            checks.check("the run was not stopped from outside (SIGTERM)", False)
        except Exception as error:  # a crash is a failed check with its reason, not a hang
            checks.check("the run completed", False, repr(error))
        finally:
            shown = set()
            for child in reversed(children):
                if child.process.poll() is None:
                    await child.stop()
                # What the processes said, for the reader of a failure (a restarted one's log once).
                if checks.failed and child.log_path not in shown:
                    shown.add(child.log_path)
                    print(f"----- {child.name}: the last lines of {child.log_path}\n{child.tail(25)}", flush=True)
            for child in children:
                child.kill_now()
            status = checks.summary()
    return status


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matterctl", required=True, help="the matterctl binary")
    parser.add_argument("--hub-state", required=True, help="the hub's state directory (new)")
    parser.add_argument("--hub-port", type=int, default=5580)
    parser.add_argument("--paa-store", required=True, help="PAA folder for the hub (the devices' test PAA)")
    parser.add_argument("--config", required=True, help="Home Assistant's config directory (new)")
    parser.add_argument("--light-code", required=True, help="the light's QR code")
    parser.add_argument("--light-fifo", required=True, help="FIFO read by the light's stdin ('press' lines)")
    parser.add_argument("--plug-pin", type=int, required=True, help="the second device's setup PIN")
    parser.add_argument("--plug-address", help="the second device's IP address (for commission_on_network's ip_addr)")
    parser.add_argument("--interface", default="eth0", help="the network interface Home Assistant uses")
    parser.add_argument("--timeout", type=float, default=900, help="limit for the whole run, in seconds")
    parser.add_argument("--compare-pms", action="store_true", help="also time the light through python-matter-server 8.1.2")
    parser.add_argument("--pms-work", help="a new folder for python-matter-server (scripts/pms-server's WORKDIR)")
    parser.add_argument("--pms-port", type=int, default=5581)
    args = parser.parse_args()
    if args.compare_pms and not args.pms_work:
        parser.error("--compare-pms needs --pms-work")
    return args


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_arguments())))
