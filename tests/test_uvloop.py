"""The server on uvloop (`stud-client load --server-loop uvloop`): a whole round, and a
table timer whose deadline passed before it was set (uvloop answers `call_at` for a
past moment with a plain `Handle`, which has no `when()`)."""

from __future__ import annotations

import asyncio
import time

import uvloop

from clients.connection import StudClient
from server.app import StudServer
from tests.conftest import make_config


def test_a_round_and_a_late_timer_on_uvloop() -> None:
    async def scenario() -> None:
        server = StudServer(make_config(timers={"betting": 0.3, "decision": 30, "results": 0.2}))
        await server.start()
        client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        try:
            assert type(asyncio.get_running_loop()).__module__.startswith("uvloop")
            await client.hello(name="ann")
            await client.request("sit", table="alpha")
            await client.request("ante", table="alpha", seat=0, amount=100)
            room = server.rooms["alpha"]
            time.sleep(0.4)  # the loop held past the betting deadline, as a busy one is
            room._cancel_timer()
            room._reschedule()  # set for a moment already past
            room._reschedule()  # a command that leaves the deadline as it was
            assert room._timer is not None and room._timer[1] == room.table.deadline
            await client.wait_table("alpha", lambda snap: snap["phase"] == "deciding")
            await client.request("raise", table="alpha", seat=0)
            await client.wait_table("alpha", lambda snap: snap["phase"] == "showdown")
            assert server.metrics.errors == {}
        finally:
            await client.close()
            await server.stop(grace=0)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(scenario())
