"""What a player reads on the terminal table, at 80x24 to 120x40 with a full table:
the lobby's columns, the link in words, refusals, results, names, the jackpot, the
progressive marker, messages on their own screen, and a spectator's s."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from clients.tui import StudApp
from tests.conftest import ServerFactory
from tests.test_tui import hold_reconnects, until, url

LONG_NAMES = ["Maximilian Alexandrovich", "Konstantinopoulou", "Terminal_Tom_Longname_X"]


def screen_lines(app: StudApp) -> list[str]:
    """The screen as a person reads it: its rows of text."""
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


async def test_the_lobby_shows_its_columns_lined_up_with_rows_and_no_scrollbar(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the lobby came, its headings were drawn as wide as their own words
    ("Table  Now  Free seats  Ante…"), out of line with the rows drawn later; at 80 and
    100 columns a horizontal scrollbar (a stray block on a highlighted row) sat under
    the rows."""
    server = await make_server()
    gate = hold_reconnects(monkeypatch)
    for size in ((100, 30), (80, 24)):
        app = StudApp(url(server), "ann")
        async with app.run_test(size=size) as p:
            await p.pause()
            assert not any("Free seats" in line for line in screen_lines(app))
            gate.set()
            table = app.screen.query_one(DataTable)
            await until(p, lambda: table.row_count == 2, "the lobby")  # noqa: B023
            lines = screen_lines(app)
            head = next(i for i, line in enumerate(lines) if "Free seats" in line)
            assert lines[head + 1].index("Waiting") == lines[head].index("Now"), lines
            assert "beta" in lines[head + 2] and lines[head + 3].startswith(" ↑/↓"), lines
        gate.clear()
