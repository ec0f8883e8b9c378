"""Measures a running hub over its WebSocket API (run inside the hub's lab host, with the
ohf-client venv's aiohttp). One phase per call; prints one JSON object.

  available URL N T0        seconds from T0 (epoch) until the API answers and all N nodes are available
  idle PID SECONDS          the hub's CPU use (% of one core) over SECONDS, and its resident memory
  commands URL RATE SECONDS device_command Toggle to random nodes at RATE/s: round trip median, p99
  presses URL FIFO COUNT    'press i' into the devices' stdin, one at a time: time until the hub's
                            attribute_updated for 1/6/0 (a change no controller made)
  soak URL PID SECONDS RATE  (Benchmarks/hub-soak) watches every node's availability from the
                            events, sends Toggle to random available nodes at RATE/s, and samples the
                            hub's resident memory every 30 s; prints one JSON line per sample to
                            stderr and the summary on stdout
"""
import asyncio, json, os, random, statistics, sys, time

import aiohttp


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))] if s else None


class Client:
    def __init__(self, ws):
        self.ws, self.next_id, self.pending, self.events = ws, 0, {}, asyncio.Queue()
        self.reader = asyncio.create_task(self.read())

    @classmethod
    async def connect(cls, session, url, deadline):
        while True:
            try:
                ws = await session.ws_connect(url, max_msg_size=0)
                await ws.receive_json()  # server info
                return cls(ws)
            except (aiohttp.ClientError, OSError):
                if time.time() > deadline:
                    raise
                await asyncio.sleep(0.05)

    async def read(self):
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "event" in data:
                await self.events.put((time.perf_counter(), data))
            elif data.get("message_id") in self.pending:
                self.pending.pop(data["message_id"]).set_result((time.perf_counter(), data))

    async def call(self, command, **args):
        self.next_id += 1
        mid = str(self.next_id)
        future = asyncio.get_running_loop().create_future()
        self.pending[mid] = future
        sent = time.perf_counter()
        await self.ws.send_json({"message_id": mid, "command": command, "args": args})
        done, reply = await asyncio.wait_for(future, 30)
        if "error_code" in reply:
            raise RuntimeError(f"{command}: {reply}")
        return done - sent, reply["result"]


async def available(url, n, t0):
    async with aiohttp.ClientSession() as session:
        client = await Client.connect(session, url, time.time() + 60)
        answered = time.time() - t0
        _, nodes = await client.call("start_listening")
        up = {node["node_id"] for node in nodes if node["available"]}
        listed = len(nodes)
        became = [time.time() - t0 for _ in up]  # when each node became available
        deadline = time.time() + 120
        while len(up) < n and time.time() < deadline:
            try:
                _, event = await asyncio.wait_for(client.events.get(), max(0.1, deadline - time.time()))
            except asyncio.TimeoutError:
                break
            if event["event"] in ("node_updated", "node_added"):
                node = event["data"]
                if node["available"] and node["node_id"] not in up:
                    became.append(time.time() - t0)
                (up.add if node["available"] else up.discard)(node["node_id"])
        return {"listed_at_once": listed, "available": len(up), "api_after_s": round(answered, 3),
                "all_available_after_s": round(time.time() - t0, 3) if len(up) >= n else None,
                "half_available_after_s": round(pct(became, 50), 3) if became else None}


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024


async def idle(pid, seconds):
    before, start = cpu_seconds(pid), time.monotonic()
    await asyncio.sleep(seconds)
    used, wall = cpu_seconds(pid) - before, time.monotonic() - start
    return {"cpu_percent": round(100 * used / wall, 2), "rss_mb": round(rss_mb(pid), 1), "seconds": round(wall, 1)}


async def commands(url, rate, seconds):
    async with aiohttp.ClientSession() as session:
        client = await Client.connect(session, url, time.time() + 10)
        _, nodes = await client.call("start_listening")
        ids = [node["node_id"] for node in nodes if node["available"]]
        times, failures = [], []

        async def one(node):
            try:
                rtt, _ = await client.call("device_command", node_id=node, endpoint_id=1, cluster_id=6,
                                           command_name="Toggle", payload={})
                times.append(rtt * 1000)
            except Exception as e:  # noqa: BLE001 - counted and reported
                failures.append(str(e)[:200])

        tasks, start = [], time.perf_counter()
        for k in range(int(rate * seconds)):
            await asyncio.sleep(max(0, start + k / rate - time.perf_counter()))
            tasks.append(asyncio.create_task(one(random.choice(ids))))
        await asyncio.gather(*tasks)
        return {"sent": len(tasks), "ok": len(times), "median_ms": round(statistics.median(times), 2) if times else None,
                "p99_ms": round(pct(times, 99), 2) if times else None, "failures": failures[:3]}


async def presses(url, fifo, count, n):
    async with aiohttp.ClientSession() as session:
        client = await Client.connect(session, url, time.time() + 10)
        await client.call("start_listening")
        latencies, missed = [], 0
        with open(fifo, "w") as devices:
            for _ in range(count):
                while not client.events.empty():
                    client.events.get_nowait()
                devices.write(f"press {random.randint(1, n)}\n")
                devices.flush()
                pressed = time.perf_counter()
                try:
                    while True:
                        at, event = await asyncio.wait_for(client.events.get(), 5)
                        if event["event"] == "attribute_updated" and event["data"][1] == "1/6/0":
                            latencies.append((at - pressed) * 1000)
                            break
                except asyncio.TimeoutError:
                    missed += 1
        return {"presses": count, "seen": len(latencies), "missed": missed,
                "median_ms": round(statistics.median(latencies), 2) if latencies else None,
                "p99_ms": round(pct(latencies, 99), 2) if latencies else None}


async def soak(url, pid, seconds, rate, warm_s):
    async with aiohttp.ClientSession() as session:
        client = await Client.connect(session, url, time.time() + 10)
        _, nodes = await client.call("start_listening")
        await client.call("matterhub/enable")
        known = {node["node_id"] for node in nodes}
        up = {node["node_id"] for node in nodes if node["available"]}
        went_down, removed, ok, failed, samples = 0, [], 0, [], []
        start = time.monotonic()

        async def watch():
            nonlocal went_down
            while True:
                _, event = await client.events.get()
                if event["event"] in ("node_updated", "node_added"):
                    node = event["data"]
                    if node["available"]:
                        up.add(node["node_id"])
                    elif node["node_id"] in up:
                        up.discard(node["node_id"])
                        went_down += 1
                elif event["event"] == "node_removed":
                    removed.append(event["data"])

        async def command(node):
            nonlocal ok
            try:
                await client.call("device_command", node_id=node, endpoint_id=1, cluster_id=6,
                                  command_name="Toggle", payload={})
                ok += 1
            except Exception as e:  # noqa: BLE001 - counted and reported (a node restarting fails)
                failed.append(str(e)[:160])

        async def sample():
            while True:
                try:
                    _, status = await client.call("matterhub/hub_status")
                except Exception as e:  # noqa: BLE001 - the sample says so
                    status = {"error": str(e)[:100]}
                samples.append({"t_s": round(time.monotonic() - start), "rss_mb": round(rss_mb(pid), 1),
                                "available": len(up), "went_unavailable": went_down,
                                "commands_ok": ok, "commands_failed": len(failed),
                                "messaging": status.get("messaging", status), "memory": status.get("memory")})
                print(json.dumps(samples[-1]), file=sys.stderr, flush=True)
                await asyncio.sleep(30)

        watcher, sampler, tasks = asyncio.create_task(watch()), asyncio.create_task(sample()), []
        k = 0
        while time.monotonic() - start < seconds:
            k += 1
            await asyncio.sleep(max(0, start + k / rate - time.monotonic()))
            if up:
                tasks.append(asyncio.create_task(command(random.choice(sorted(up)))))
        await asyncio.gather(*tasks)
        watcher.cancel(); sampler.cancel()
        _, nodes = await client.call("get_nodes")
        # Memory after warm-up (the first sample past warm_s, or the second) against the last, and
        # the least-squares slope over the samples after it (MB/hour: endpoints alone are noisy).
        warm = next((s for s in samples if s["t_s"] >= warm_s), samples[min(1, len(samples) - 1)])
        after = [s for s in samples if s["t_s"] >= warm["t_s"]]
        slope = 0.0
        if len(after) > 2:
            mt = sum(s["t_s"] for s in after) / len(after); mr = sum(s["rss_mb"] for s in after) / len(after)
            den = sum((s["t_s"] - mt) ** 2 for s in after)
            slope = sum((s["t_s"] - mt) * (s["rss_mb"] - mr) for s in after) / den * 3600 if den else 0.0
        return {"nodes_at_start": len(known), "nodes_at_end": len(nodes), "removed": removed,
                "available_at_end": sum(1 for node in nodes if node["available"]),
                "went_unavailable": went_down, "commands_ok": ok, "commands_failed": len(failed),
                "failure_examples": failed[:3], "rss_warm_mb": warm["rss_mb"], "rss_end_mb": samples[-1]["rss_mb"],
                "rss_max_mb": max(s["rss_mb"] for s in samples),
                "messaging_warm": warm["messaging"], "messaging_end": samples[-1]["messaging"],
                "memory_warm": warm.get("memory"), "memory_end": samples[-1].get("memory"),
                "rss_warm_t_s": warm["t_s"], "rss_slope_mb_per_hour": round(slope, 3),
                "rss_growth_percent": round(100 * (samples[-1]["rss_mb"] - warm["rss_mb"]) / warm["rss_mb"], 2)}


def main():
    phase, args = sys.argv[1], sys.argv[2:]
    if phase == "available":
        result = asyncio.run(available(args[0], int(args[1]), float(args[2])))
    elif phase == "idle":
        result = asyncio.run(idle(int(args[0]), float(args[1])))
    elif phase == "commands":
        result = asyncio.run(commands(args[0], float(args[1]), float(args[2])))
    elif phase == "presses":
        result = asyncio.run(presses(args[0], args[1], int(args[2]), int(args[3])))
    elif phase == "soak":
        result = asyncio.run(soak(args[0], int(args[1]), float(args[2]), float(args[3]), float(args[4]) if len(args) > 4 else 300))
    else:
        sys.exit(f"unknown phase {phase}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
