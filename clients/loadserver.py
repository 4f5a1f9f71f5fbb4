"""The transport's limit: a bare `websockets` server that broadcasts what it is sent.

`stud-client load --fanout N` runs it beside the table server, in its own
process, with the same connection settings (no compression, the same queue and
ping settings): N receivers connect to `/ws`, one driver to `/driver`, and each
binary message the driver sends goes to every receiver with
`websockets.asyncio.server.broadcast`, the bytes unchanged. Nothing else happens
here, so the time it takes is what the library and the kernel need. `GET /stats`
gives the number of broadcasts and the seconds spent in them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import time
from http import HTTPStatus

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response


async def serve_baseline(host: str, port: int) -> None:
    receivers: set[ServerConnection] = set()
    sends: list[float] = []  # seconds each broadcast() call took

    def stats(connection: ServerConnection, request: Request) -> Response | None:
        if request.path != "/stats":
            return None
        body = json.dumps({"broadcasts": len(sends), "seconds": sum(sends)}).encode()
        headers = Headers(
            [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
        )
        return Response(HTTPStatus.OK.value, "OK", headers, body)

    async def handler(ws: ServerConnection) -> None:
        if ws.request is not None and ws.request.path == "/driver":
            async for message in ws:
                t0 = time.perf_counter()
                broadcast(receivers, message)
                sends.append(time.perf_counter() - t0)
            return
        receivers.add(ws)
        try:
            await ws.wait_closed()
        finally:
            receivers.discard(ws)

    async with serve(
        handler,
        host,
        port,
        compression=None,
        max_queue=32,
        ping_interval=20,
        ping_timeout=20,
        close_timeout=5,
        max_size=1 << 20,
        process_request=stats,
    ):
        done = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, done.set)
        await done.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clients.loadserver", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--uvloop", action="store_true", help="run on uvloop")
    args = parser.parse_args(argv)
    if args.uvloop:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    asyncio.run(serve_baseline(args.host, args.port))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
