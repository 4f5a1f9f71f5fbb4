"""What the terminal table says of the player's state holds: the no-seat line offers s
only when a seat can be taken, a resumed player keeps its name through a lost session,
a decision says which of the player's hands still waits, and a decision key pressed again
names the hand it did nothing to, and the legend explains the short words the seats
show."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from clients.tui import PlayScreen, StudApp
from clients.tui.render import legend_text, seats_text
from tests.conftest import ClientFactory, ServerFactory
from tests.test_tui import LONG, phase, sees, shown, until, url
from tests.test_tui_moments import progressive_round
from tests.test_tui_small import NINE

SIT = "press s to sit"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_no_seat_line_offers_s_only_when_a_seat_can_be_taken(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """Every seat taken: "No seat: press s to sit." stood right above "every seat is
    taken: you watch until one is free", and s was refused. Playing elsewhere, too."""
    server = await make_server(timers=LONG, tables=NINE)
    others = [await connect(server, f"Player{n}") for n in range(9)]
    for n, other in enumerate(others):
        await other.request("sit", table="nine", seat=n)
    app = StudApp(url(server), "Alexandrina Konstantinov", table="nine", backoff=(0.01, 0.02))
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await sees(p, app, "#keys", "every seat is taken")
        assert "No seat" in shown(app, "#player") and SIT not in shown(app, "#player")
        await p.press("1")  # a chip with no seat: no s to press either
        await until(p, lambda: app.message, "the chip's answer")
        assert "press s" not in app.message, app.message
        await others[4].request("stand", table="nine", seat=4)
        await sees(p, app, "#player", SIT)  # a seat is free: s takes it
        await connect(server, token=app.link.token)  # the same player, another device
        await sees(p, app, "#message", "Playing elsewhere")
        assert "No seat" in shown(app, "#player") and SIT not in shown(app, "#player")


async def test_a_resumed_player_whose_session_was_lost_comes_back_under_its_own_name(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Resumed by `--token` (no `--name`: the OS user's, "root"), then a server that no
    longer knew the token: the new player was called "root", not Terry80."""
    server = await make_server()
    earlier = await connect(server, "Terry80")
    token = earlier.token
    await earlier.close()
    app = StudApp(url(server), "root", token=token, backoff=(0.01, 0.02))
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: app.link.welcome.get("resumed") is True, "a resumed welcome")
        assert app.player_name == "Terry80"
        first = app.player_id
        await server.store.revoke_token(token)  # as a server restarted without its data
        assert app.link.client is not None
        await app.link.client.close()
        await until(p, lambda: app.link.connected and app.player_id != first, "a new player")
        assert app.link.welcome["name"] == "Terry80" and app.player_name == "Terry80"


async def test_a_decision_key_pressed_again_on_the_only_hand_names_it(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """r, then r again with one hand: "None of your hands is waiting for a decision.",
    where several hands said which seat was raised already."""
    server = await make_server(timers=LONG)
    bob = await connect(server, "bob")
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await bob.request("sit", table="alpha", seat=1)
        await bob.request("ante", table="alpha", seat=1, amount=500)
        await bob.request("deal", table="alpha")
        await p.press("2", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("r")
        await until(p, lambda: (app.snapshot or {})["seats"][0]["decision"], "the raise")
        await p.press("r")
        said = await sees(p, app, "#message", "nothing sent")
        assert "Seat 1 was raised already" in said, said


async def test_a_decision_says_which_hand_still_waits(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """r on one of two hands said nothing; a second r only selected the other, and a
    player who meant it to raise that one too saw its hand folded by the clock."""
    server = await make_server(timers=LONG)
    bob = await connect(server, "bob")
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s")
        await until(p, lambda: app.own_seats() == [0, 1], "two seats")
        await bob.request("sit", table="alpha", seat=2)
        await bob.request("ante", table="alpha", seat=2, amount=500)
        await bob.request("deal", table="alpha")
        app.selected = 0
        await p.press("2", "tab", "2", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        app.selected = 0
        await p.press("r")
        await until(p, lambda: (app.snapshot or {})["seats"][0]["decision"], "the raise")
        said = await sees(p, app, "#message", "Seat 2")
        assert "raised" in said and "waiting" in said and "nothing" in said, said
        assert app.selected == 0  # the selection stays, as ever
        await p.press("r")
        said = await sees(p, app, "#message", "Seat 1 was raised already")
        assert app.selected == 1 and (app.snapshot or {})["seats"][1]["decision"] is None


def test_a_decision_names_every_hand_still_waiting_where_the_line_has_room() -> None:
    """At 80 columns, three hands: "Seat 1 raised. Seat 2 waits: …", seat 3 unsaid."""
    from clients.tui.words import decided_text

    words = decided_text(0, "raise", [1, 2])
    fits = [w for w in words if cell_len(w) <= 78]
    assert fits and "2" in fits[0] and "3" in fits[0] and "nothing sent" in fits[0], words


@pytest.mark.parametrize("width", [76, 116])
def test_the_legend_says_what_a_short_progressive_result_is(width: int) -> None:
    """ "(P -$1)" on the seats at 80 columns, and the legend only "P progressive bet"."""
    lost = progressive_round("no_qualify", 0)
    seats = seats_text(lost, "p0", 0, width)
    short = re.search(r"\(P [+-]\$[\d.,]+\)", seats.plain)
    assert short is not None or width > 100, seats.plain  # the short form at 80 columns
    legend = legend_text(lost, seats, width=width).plain
    assert cell_len(legend) <= width and "…" not in legend, legend
    assert "No qualify" in legend and "P progressive" in legend, legend
    if short is not None:
        # said as it reads, and what it is: the progressive's part of the net
        said = re.escape(short.group(0))
        assert re.search(rf"{said}:? (its|the progressive's) (part|result)", legend), legend
