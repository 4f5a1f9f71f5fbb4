"""The server on uvloop (its default where uvloop is installed): a whole round, and a
table timer whose deadline passed before it was set (uvloop answers `call_at` for a
past moment with a plain `Handle`, which has no `when()`); which loop `event_loop`
picks."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

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
            room.clock.cancel()
            room._reschedule()  # set for a moment already past
            room._reschedule()  # a command that leaves the deadline as it was
            timer = room.clock._timer
            assert timer is not None and timer[1] == room.table.deadline
            await client.wait_table("alpha", lambda snap: snap["phase"] == "deciding")
            await client.request("raise", table="alpha", seat=0)
            await client.wait_table("alpha", lambda snap: snap["phase"] == "showdown")
            assert server.metrics.errors == {}
        finally:
            await client.close()
            await server.stop(grace=0)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(scenario())


def _serving_line(*args: str, env: dict[str, str] | None = None) -> str:
    """Start `stud-server serve` on a free port; its startup line, then SIGTERM."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", *args],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "serving on" in line:
                return line
        raise AssertionError(f"no startup line; exit {proc.wait()}")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


def test_the_server_runs_on_uvloop_unless_asked_for_asyncio() -> None:
    assert "(uvloop)" in _serving_line()
    assert "(asyncio)" in _serving_line("--event-loop", "asyncio")
    assert "(asyncio)" in _serving_line(env={"STUD_EVENT_LOOP": "asyncio"})
    assert "(uvloop)" in _serving_line("--event-loop", "uvloop", env={"STUD_EVENT_LOOP": "asyncio"})


def test_a_bad_event_loop_setting_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[server]\nevent_loop = "tokio"\n')
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "server.event_loop: one of auto, uvloop, asyncio" in done.stderr
