"""The server's log lines: the text format (the default outside the image) carries
the same fields as the JSON one, so an operator can tell which table, round or
request a line is about."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time

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
