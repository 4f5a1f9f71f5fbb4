"""What the terminal table says is true of now: a refusal about a moment of play goes
when the table moves on."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from clients.tui import PlayScreen, StudApp
from tests.conftest import ClientFactory, ServerFactory
from tests.test_tui import LONG, phase, sees, shown, until, url

SIZES = [(80, 24), (120, 40)]


def message_style(app: StudApp) -> str:
    content = app.screen.query_one("#message", Static).content
    return str(getattr(content, "style", ""))


@pytest.mark.parametrize("size", SIZES)
async def test_a_refusal_about_a_moment_goes_when_the_table_moves_on(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """f with nothing to decide said "None of your hands is waiting for a decision." in
    red, and it stayed through the showdown into the next round's bets."""
    server = await make_server(timers={**LONG, "results": 0.2})
    app = StudApp(url(server), "ann", table="alpha")
    bob = await connect(server, "bob")
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await bob.request("sit", table="alpha", seat=1)
        await bob.request("ante", table="alpha", seat=1, amount=100)
        await bob.request("deal", table="alpha")
        await p.press("1", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("r")
        await until(p, lambda: (app.snapshot or {})["seats"][0]["decision"] == "raise", "raised")
        await p.press("f")
        await sees(p, app, "#message", "None of your hands is waiting for a decision.")
        assert "red" not in message_style(app) and "yellow" in message_style(app)
        await bob.request("fold", table="alpha", seat=1)
        await until(p, lambda: phase(app) == "showdown", "the showdown")
        assert "None of your hands" not in shown(app, "#message")
        await until(p, lambda: phase(app) == "waiting", "the next round")
        await p.press("r")  # said in the next round: there then, gone with it
        await sees(p, app, "#message", "No decision is due now.")
        assert "red" not in message_style(app)
        await p.press("1", "d")
        await bob.request("ante", table="alpha", seat=1, amount=100)
        await bob.request("deal", table="alpha")
        await until(p, lambda: phase(app) == "deciding", "the next deal")
        assert "No decision" not in shown(app, "#message")
