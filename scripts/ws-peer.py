#!/usr/bin/env python3
"""A WebSocket server we did not write (aiohttp), for MatterWebSocket's client tests.

    ws-peer.py tcp            # listens on 127.0.0.1, a free port; prints 'ready tcp PORT'
    ws-peer.py unix PATH      # listens on the Unix socket PATH; prints 'ready unix PATH'

On each connection to /ws it pings the client with b"srv" and, once the client's pong carries
that payload, sends "pong:srv". Then it answers every text message with "echo:" + text (binary with
its length), answers pings with pongs (autoping is off so it sees them), and on "close-me" closes
with code 4000 and reason "bye". It prints 'closed CODE' when a client closes. Run it with the
python of .peers/ohf-client (aiohttp). It exits after 120 s.
"""
import asyncio
import sys

from aiohttp import WSMsgType, web


async def handler(request):
    ws = web.WebSocketResponse(autoping=False, heartbeat=None, max_msg_size=0)
    await ws.prepare(request)
    await ws.ping(b"srv")
    async for msg in ws:
        if msg.type == WSMsgType.PONG:
            await ws.send_str("pong:" + msg.data.decode())
        elif msg.type == WSMsgType.PING:
            await ws.pong(msg.data)
        elif msg.type == WSMsgType.TEXT:
            if msg.data == "close-me":
                await ws.close(code=4000, message=b"bye")
                break
            await ws.send_str("echo:" + msg.data)
        elif msg.type == WSMsgType.BINARY:
            await ws.send_str("binary:%d" % len(msg.data))
        elif msg.type == WSMsgType.CLOSE:
            break
    print("closed %s" % ws.close_code, flush=True)
    return ws


async def main():
    app = web.Application()
    app.router.add_get("/ws", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    if sys.argv[1] == "unix":
        site = web.UnixSite(runner, sys.argv[2])
        await site.start()
        print("ready unix %s" % sys.argv[2], flush=True)
    else:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        print("ready tcp %d" % port, flush=True)
    await asyncio.sleep(120)


asyncio.run(main())
