"""The server's log lines: the text format (the default outside the image) carries
the same fields as the JSON one, so an operator can tell which table, round or
request a line is about."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from dataclasses import replace

import pytest

from server.app import STOOD_STILL, StudServer
from server.cli import JsonFormatter, TextFormatter
from tests.conftest import make_config


def record(msg: str, **extra: object) -> logging.LogRecord:
    r = logging.LogRecord("stud.room", logging.WARNING, __file__, 1, msg, (), None)
    for k, v in extra.items():
        setattr(r, k, v)
    return r


def test_a_text_line_names_the_record_s_fields() -> None:
    r = record("round voided", round_id="alpha-7", why="every ante was taken back", epoch=3)
    line = TextFormatter().format(r)
    assert "WARNING stud.room: round voided" in line
    assert line.endswith(' round_id=alpha-7 why="every ante was taken back" epoch=3')


def test_a_text_line_without_fields_is_the_plain_line() -> None:
    line = TextFormatter().format(record("shutting down"))
    assert line.endswith("WARNING stud.room: shutting down")


def test_a_text_line_keeps_the_traceback_after_the_fields() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        r = record("request failed", table="alpha")
        r.exc_info = sys.exc_info()
    first, *rest = TextFormatter().format(r).splitlines()
    assert first.endswith("request failed table=alpha")
    assert rest[-1] == "ValueError: boom"


def test_the_json_line_carries_the_same_fields() -> None:
    out = json.loads(JsonFormatter().format(record("table claimed", table="alpha", epoch=2)))
    assert out["msg"] == "table claimed" and out["table"] == "alpha" and out["epoch"] == 2


async def test_a_process_that_stood_still_says_so(caplog: pytest.LogCaptureFixture) -> None:
    """After a pause (SIGSTOP, a VM suspended) the store's timeouts are logged as Redis
    trouble; the process says first that it was itself that stood still."""
    server = StudServer(make_config())
    await server.start()
    try:
        await asyncio.sleep(0.2)  # the loop's watch is waiting on its timer
        caplog.clear()
        time.sleep(STOOD_STILL + 0.5)  # the event loop stands still, as under SIGSTOP
        for _ in range(100):
            if any("stood still" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.02)
        said = [r for r in caplog.records if "stood still" in r.getMessage()]
        assert len(said) == 1 and said[0].levelname == "WARNING"
    finally:
        await server.stop(grace=0)


async def test_a_background_loop_that_fails_once_goes_on_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The throttled pushes (meters, spectator counts, the lobby) and the connection
    sweep ran in loops with no guard: one exception ended the loop for good, the
    lobby never pushed again, and nothing was logged (a spawned task's exception was
    never read). A failing step is logged and the loop goes on; any spawned task that
    fails is logged."""
    caplog.set_level(logging.INFO)
    server = StudServer(replace(make_config(), jackpot_push_interval=0.05))
    await server.start()
    try:
        flushes: list[int] = []
        flush = server.lobby.flush

        def failing_once() -> None:
            flushes.append(1)
            if len(flushes) == 1:
                raise RuntimeError("a bug in the lobby")
            flush()

        server.lobby.flush = failing_once  # type: ignore[method-assign]
        for _ in range(200):
            if len(flushes) >= 3:
                break
            await asyncio.sleep(0.02)
        assert len(flushes) >= 3  # the loop went on
        assert any("a bug in the lobby" in r.getMessage() for r in caplog.records)

        async def broken() -> None:
            raise RuntimeError("a spawned bug")

        server.spawn(broken())
        for _ in range(100):
            if any(r.exc_info and "a spawned bug" in str(r.exc_info[1]) for r in caplog.records):
                break
            await asyncio.sleep(0.01)
        assert any(r.exc_info and "a spawned bug" in str(r.exc_info[1]) for r in caplog.records)
    finally:
        await server.stop(grace=0)


async def test_a_graceful_shutdown_says_each_step_to_the_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """After "shutting down" a process used to log nothing more: its leases given up,
    its connections closed and its exit went unsaid, so an operator could not tell a
    finished shutdown from a hung one."""
    from clients.connection import StudClient

    caplog.set_level(logging.INFO, logger="stud")
    server = StudServer(make_config())
    await server.start()
    client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws", history=False)
    await client.hello(name="Ann")
    caplog.clear()
    await server.stop(grace=0)
    with contextlib.suppress(Exception):
        await client.close()
    lines = [r for r in caplog.records if r.name.startswith("stud")]
    said = [r.getMessage() for r in lines]
    assert "leases given up" in said, said
    assert "connections closed" in said, said
    assert said[-1] == "stopped", said
    assert said.index("leases given up") < said.index("connections closed")
    given_up = lines[said.index("leases given up")]
    assert given_up.tables == len(server.config.tables)  # type: ignore[attr-defined]
    closed = lines[said.index("connections closed")]
    assert closed.connections == 1  # type: ignore[attr-defined]
