"""Shared pieces of the scripts that drive a running hub with the real Matter Server client
(python-matter-server 8.1.2 or matter-python-client): counted checks, bounded waits for events,
a listening client. Imported by scripts/ohf-hub-*.py (the scripts folder is on sys.path when one
of them runs)."""
import asyncio

from matter_server.client import MatterClient

passed = 0
failed = 0


def check(name, ok, detail=""):
    """Counts and prints one check."""
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}", flush=True)
    else:
        failed += 1
        print(f"FAIL {name} {detail}", flush=True)


def summary():
    """Prints 'N passed, N failed'; the exit status for the script."""
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


async def wait_for(queue, predicate, seconds=10):
    """The first queued item that satisfies predicate, within seconds (else None)."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                item = await queue.get()
                if predicate(item):
                    return item
    except TimeoutError:
        return None


async def connect_when_up(url, session, seconds=90):
    """A connected client, retrying until the server answers (python-matter-server takes seconds
    to start) or `seconds` have passed."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        client = MatterClient(url, session)
        try:
            await asyncio.wait_for(client.connect(), 10)
            return client
        except Exception:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.5)


async def listening_client(url, session):
    """A connected client whose start_listening is ready: (client, listen task, event queue).
    The queue gets every (event, data) the client signals."""
    client = MatterClient(url, session)
    await asyncio.wait_for(client.connect(), 10)
    ready = asyncio.Event()
    listen = asyncio.create_task(client.start_listening(ready))
    await asyncio.wait_for(ready.wait(), 30)
    events = asyncio.Queue()
    client.subscribe_events(lambda event, data: events.put_nowait((event, data)))
    return client, listen, events


def run(main):
    """Runs main(); a crash is a failed check with its reason, not a hang. Returns the exit status."""
    try:
        asyncio.run(main)
    except Exception as error:
        check("the run completed", False, repr(error))
    return summary()
