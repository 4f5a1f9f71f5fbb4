"""Live rounds over real WebSockets: several players, spectators, money to the cent."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest

from clients.connection import ServerError, StudClient
from server.config import ConfigError
from tests.conftest import ClientFactory, ServerFactory, make_config
from tests.decks import shuffles

DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]
DEALER_NOTHING = ["Qd", "Jc", "9h", "4s", "2d"]
START = 100_000  # starting credits in these tests, cents
SEED = 100_000  # jackpot seed


def phase(p: str) -> Any:
    return lambda snap: snap["phase"] == p


async def showdown(client: StudClient, table: str = "alpha") -> dict[str, Any]:
    return await client.wait_table(table, phase("showdown"))


async def balance_settles(client: StudClient, expected: int) -> None:
    await client.wait_for(
        lambda c: c.balance.get("balance") == expected and c.balance.get("held") == 0
    )


async def test_players_and_spectators_play_a_round_to_the_cent(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    alice_cards = ["Kh", "Ks", "Kd", "7c", "7d"]  # full house: 8:1 at casino-stud, progressive $100
    bob_cards = ["3c", "5d", "8s", "Th", "Jh"]  # jack high: loses everything when he raises
    server = await make_server(shuffle=shuffles([alice_cards, bob_cards, DEALER_AK]))
    alice, bob = await connect(server, "alice"), await connect(server, "bob")
    watcher = await connect(server, "watcher")
    for c in (alice, bob, watcher):
        await c.request("join", table="alpha")
    assert (await alice.request("sit", table="alpha", seat=0))["seat"] == 0
    assert (await bob.request("sit", table="alpha"))["seat"] == 1  # any free seat
    await alice.request("ante", table="alpha", seat=0, amount=500, progressive=True)
    await bob.request("ante", table="alpha", seat=1, amount=1_000)
    snap = await watcher.wait_table("alpha", phase("betting"))
    assert snap["seats"][0]["ante"] == 500 and snap["seats"][0]["progressive"] is True
    await alice.request("deal", table="alpha")
    await bob.request("deal", table="alpha")
    snap = await watcher.wait_table("alpha", phase("deciding"))
    assert snap["dealer"]["cards"] == [None, None, None, None, "2d"]
    # hands are private until showdown: five backs for everyone in the snapshot...
    assert snap["hands"] == "private"
    assert snap["seats"][0]["cards"] == [None] * 5 and snap["seats"][0]["hand"] is None
    # ...and each player's own cards in a frame to that player alone
    own = await alice.wait_for(lambda c: next((f for f in c.frames if f["t"] == "hand"), None))
    assert own["seats"] == [
        {"seat": 0, "cards": alice_cards, "hand": {"category": "FULL_HOUSE", "label": "Full House"}}
    ]
    assert own["round_id"] == snap["round_id"]
    assert not any(f["t"] == "hand" for f in watcher.frames)
    bob_own = await bob.wait_for(lambda c: next((f for f in c.frames if f["t"] == "hand"), None))
    assert bob_own["seats"][0]["cards"] == bob_cards
    await alice.request("raise", table="alpha", seat=0)
    await bob.request("raise", table="alpha", seat=1)
    snap = await showdown(watcher)
    assert snap["dealer"]["cards"] == DEALER_AK
    assert snap["dealer"]["hand"]["category"] == "ACE_KING"
    a, b = snap["seats"][0]["result"], snap["seats"][1]["result"]
    # ante 1:1, raise 8:1, the progressive's $100 prize, less its $1 stake
    assert (a["outcome"], a["net"]) == ("win", 500 + 8 * 1_000 + 10_000 - 100)
    assert a["progressive_prize"] == 10_000
    assert (b["outcome"], b["net"]) == ("lose", -3_000)
    await balance_settles(alice, START + 8_500 + 10_000 - 100)
    await balance_settles(bob, START - 3_000)
    # half of the $1 progressive feeds the meter (contribution_bp 5000)
    await watcher.wait_for(lambda c: c.jackpots.get("main") == SEED + 50)
    totals = await server.store.totals()
    assert totals["meter:main"] == SEED + 50
    assert sum(totals.values()) == 0  # double entry: every cent came from somewhere
    # the round ends after the results pause and the table waits again
    await watcher.wait_table("alpha", phase("waiting"))
    # PROTOCOL.md section 1: no float ever appears in a frame (the welcome's too)
    await alice.request("history")
    await alice.wait_for(lambda c: any(f["t"] == "history" for f in c.frames))
    for c in (alice, bob, watcher):
        assert [f["t"] for f in c.frames if floats(f)] == []


def test_a_message_rate_the_welcome_could_not_carry_is_refused() -> None:
    """The welcome tells clients `rate_per_second`, and frames carry no floats."""
    with pytest.raises(ConfigError, match="whole number"):
        make_config(limits={"rate_per_second": 2.5})
    assert make_config(limits={"rate_per_second": 5}).limits.rate_per_second == 5


def floats(value: Any) -> bool:
    """Whether a float is anywhere inside a decoded frame."""
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(floats(k) or floats(v) for k, v in value.items())
    return isinstance(value, list | tuple) and any(floats(v) for v in value)


async def test_dealer_not_qualifying_tie_fold_and_multi_hand(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    h1 = ["Ah", "Ks", "9d", "4c", "2h"]  # ties the dealer exactly
    h2 = ["As", "Kh", "9c", "4d", "2s"]  # ties too
    h3 = ["3c", "3d", "8s", "Th", "Jh"]  # pair, folded
    round1 = [h1, h2, h3, DEALER_AK]
    round2 = [["2h", "5s", "8d", "Tc", "Jd"], DEALER_NOTHING]
    server = await make_server(shuffle=shuffles(round1, round2))
    carol = await connect(server, "carol")
    await carol.request("join", table="alpha")
    for seat in (0, 1, 2):
        await carol.request("sit", table="alpha", seat=seat)
    with_err = None
    try:
        await carol.request("sit", table="alpha", seat=3)
    except ServerError as e:
        with_err = e.code
    assert with_err == "seat_limit"
    for seat in (0, 1, 2):
        await carol.request("ante", table="alpha", seat=seat, amount=200)
    assert carol.balance["held"] == 3 * 400
    await carol.request("deal", table="alpha")
    await carol.wait_table("alpha", phase("deciding"))
    await carol.request("raise", table="alpha", seat=0)
    await carol.request("raise", table="alpha", seat=1)
    await carol.request("fold", table="alpha", seat=2)
    snap = await showdown(carol)
    assert [s["result"]["outcome"] for s in snap["seats"][:3]] == ["push", "push", "fold"]
    await balance_settles(carol, START - 200)
    await carol.wait_table("alpha", phase("waiting"))
    # round 2: one hand, the dealer does not qualify: ante pays 1:1, raise returned
    await carol.request("ante", table="alpha", seat=0, amount=300)
    await carol.request("deal", table="alpha")
    await carol.wait_table("alpha", phase("deciding"))
    await carol.request("raise", table="alpha", seat=0)
    snap = await showdown(carol)
    assert snap["seats"][0]["result"]["outcome"] == "no_qualify"
    assert snap["dealer"]["qualifies"] is False
    await balance_settles(carol, START - 200 + 300)


async def test_disconnect_mid_decision_autofolds_and_reconnect_resumes(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(
        shuffle=shuffles(
            [["2c", "3c", "4c", "5c", "7d"], ["Th", "Ts", "4d", "8h", "9s"], DEALER_AK]
        ),
        timers={"betting": 30, "decision": 0.5, "results": 30},
    )
    dave, erin = await connect(server, "dave"), await connect(server, "erin")
    for c in (dave, erin):
        await c.request("join", table="alpha")
        await c.request("sit", table="alpha")
        await c.request("ante", table="alpha", seat=int(c is erin), amount=100)
    await dave.request("deal", table="alpha")
    await erin.request("deal", table="alpha")
    await erin.wait_table("alpha", phase("deciding"))
    token = dave.token
    await dave.close()  # gone mid-decision
    snap = await erin.wait_table("alpha", lambda s: s["seats"][0]["connected"] is False)
    await erin.request("raise", table="alpha", seat=1)
    snap = await showdown(erin)
    assert snap["seats"][0]["decision"] == "fold" and snap["seats"][0]["auto"] is True
    assert snap["seats"][0]["left"] is False  # the clock folded it, not a leave
    assert snap["seats"][0]["result"]["net"] == -100  # the ante is lost, nothing else
    # dave comes back with his token: same player, same seat, a snapshot straight away
    dave2 = await connect(server, None, token=token)
    assert dave2.welcome["resumed"] is True and dave2.welcome["seats"] == {"alpha": [0]}
    assert dave2.balance["balance"] == START - 100 and dave2.balance["held"] == 0
    snap = await dave2.wait_table("alpha", lambda s: s["seats"][0]["connected"] is True)
    assert snap["seats"][0]["player_id"] == dave2.player_id


async def test_betting_is_not_held_for_a_player_gone_with_nothing_bet(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The rest said Deal: the one whose connection closed (within the reconnect grace)
    with no ante is not waited for until the betting's timer (30 s here) runs out."""
    server = await make_server(timers={"betting": 30, "decision": 30, "results": 30})
    dave, erin = await connect(server, "dave"), await connect(server, "erin")
    for c in (dave, erin):
        await c.request("join", table="alpha")
        await c.request("sit", table="alpha")
    await erin.request("ante", table="alpha", seat=1, amount=100)
    await erin.request("deal", table="alpha")
    snap = await erin.wait_table("alpha", phase("betting"))  # dave may still bet
    await dave.close()
    snap = await erin.wait_table("alpha", phase("deciding"))
    assert snap["seats"][0]["connected"] is False and snap["seats"][0]["ante"] == 0


async def test_spectator_takes_a_seat_and_spectators_cannot_act(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    player, fan = await connect(server, "player"), await connect(server, "fan")
    await player.request("join", table="alpha")
    await fan.request("join", table="alpha")
    await player.request("sit", table="alpha", seat=0)
    await player.request("ante", table="alpha", seat=0, amount=100)
    for t, fields in [
        ("ante", {"seat": 0, "amount": 100}),
        ("fold", {"seat": 0}),
        ("withdraw", {"seat": 0}),
        ("deal", {}),
    ]:
        try:
            await fan.request(t, table="alpha", **fields)
            raise AssertionError(f"{t} by a spectator was accepted")
        except ServerError as e:
            assert e.code in ("not_your_seat", "not_seated"), e.code
    await fan.request("lobby")
    lobby = fan.lobby
    assert lobby is not None
    row = next(r for r in lobby["tables"] if r["id"] == "alpha")
    assert row["spectators"] == 1 and row["taken"] == 1
    assert (await fan.request("sit", table="alpha"))["seat"] == 1
    await fan.request("ante", table="alpha", seat=1, amount=100)
    snap = await player.wait_table(
        "alpha", lambda s: s["seats"][1] and s["seats"][1]["ante"] == 100
    )
    assert snap["spectators"] == 0


async def test_the_spectator_count_follows_joins_seats_and_leaves(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Every snapshot carries the count of viewers without a seat (kept between changes)."""
    server = await make_server()
    a, b, c = [await connect(server, n) for n in "abc"]
    for client in (a, b, c):
        await client.request("join", table="alpha")

    async def count_is(n: int) -> None:
        await a.wait_table("alpha", lambda s: s["spectators"] == n)

    await count_is(3)
    await a.request("sit", table="alpha", seat=0)
    await count_is(2)
    await b.request("sit", table="alpha", seat=1)
    await count_is(1)
    await c.request("leave", table="alpha")
    await count_is(0)
    await b.request("stand", table="alpha", seat=1)
    await count_is(1)
    await b.request("sit", table="alpha", seat=2)  # another seat: the same players again
    await count_is(0)
    await c.request("join", table="alpha")
    await count_is(1)
    assert server.rooms["alpha"].audience.spectator_count() == 1


async def test_a_requests_last_survives_the_spectator_count_sent_with_it(
    make_server: ServerFactory, connect: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The throttled push of a spectator count and a player's request land in one loop
    turn: the one snapshot they share still names the request (PROTOCOL.md, `last`).
    Clients that show who did what would otherwise miss the request."""
    server = await make_server(jackpot_push_interval=3600)  # pushes only when called here
    watcher, player = await connect(server, "watcher"), await connect(server, "player")
    passer_by = await connect(server, "passer-by")
    for c in (watcher, player, passer_by):
        await c.request("join", table="alpha")
    room = server.rooms["alpha"]
    publish = room.publish

    def push() -> None:
        server.refresh_later(room)
        server.refresh_rooms()

    def publish_and_push(started: float | None = None) -> None:
        # the push runs once the turn is over, just before this turn's snapshot goes out
        asyncio.get_running_loop().call_soon(push)
        publish(started)

    monkeypatch.setattr(room, "publish", publish_and_push)
    await player.request("sit", table="alpha", seat=0)
    snap = await watcher.wait_table("alpha", lambda s: s["seats"][0] is not None)
    assert snap["last"] == {"seat": 0, "action": "sit"}
    assert snap["spectators"] == 2
    monkeypatch.undo()
    seq = snap["seq"]
    server.refresh_later(room)
    server.refresh_rooms()  # the count went out with the sit: nothing to send again
    await passer_by.close()  # a count changed by no request at all
    await asyncio.wait_for(_until(lambda: room.audience.spectator_count() == 1), 5)
    server.refresh_rooms()
    snap = await watcher.wait_table("alpha", lambda s: s["seq"] > seq)
    assert snap["last"] is None and snap["spectators"] == 1
    assert snap["seq"] == seq + 1  # one snapshot for the one change, none for the sit again


async def _until(check: Callable[[], bool]) -> None:
    while not check():
        await asyncio.sleep(0.01)


async def test_betting_timer_deals_and_funds_are_checked(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(
        timers={"betting": 0.3, "decision": 30, "results": 0.2},
        wallet={"starting_credits": 1_000, "starting_bonus": 5_000},
    )
    c = await connect(server, "frank")
    await c.request("join", table="alpha")
    await c.request("sit", table="alpha")
    # 400 ante needs 400 + 800 for the raise = 1,200 > 1,000: the bonus would cover it
    try:
        await c.request("ante", table="alpha", seat=0, amount=400)
        raise AssertionError("accepted without funds")
    except ServerError as e:
        assert e.code == "bonus_not_playable"
        assert (e.frame["needed"], e.frame["available"]) == (1_200, 1_000)
        assert "bonus credits, which cannot be wagered" in e.frame["message"]
    try:
        await c.request("ante", table="alpha", seat=0, amount=5_000)
        raise AssertionError("accepted without funds")
    except ServerError as e:
        assert e.code == "insufficient_funds" and e.frame["needed"] == 15_000
        assert e.frame["bonus"] > 0 and "bonus" not in e.frame["message"]  # not the reason
    await c.request("ante", table="alpha", seat=0, amount=300, progressive=True)
    # nobody says deal: the betting timer deals
    await c.wait_table("alpha", phase("deciding"))
    await c.request("buy_chips", amount=50_000)
    await c.wait_for(lambda cl: cl.balance["balance"] == 1_000 - 400 + 50_000)


async def test_a_command_that_keeps_the_deadline_keeps_its_timer(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The betting timer is set by the first ante; a second ante leaves the deadline
    as it was, so the same timer stays (not cancelled and set again), and it deals."""
    server = await make_server(timers={"betting": 0.5, "decision": 30, "results": 0.2})
    room = server.rooms["alpha"]
    a, b = await connect(server, "ann"), await connect(server, "bob")
    for c in (a, b):
        await c.request("sit", table="alpha")
    await a.request("ante", table="alpha", seat=0, amount=100)
    timer = room.clock._timer
    assert timer is not None and timer[1] == room.table.deadline
    await b.request("ante", table="alpha", seat=1, amount=100)
    assert room.clock._timer is timer and not timer[0].cancelled()
    await a.wait_table("alpha", phase("deciding"))  # nobody said deal: the timer did


async def test_other_tables_keep_playing_and_jackpot_is_shared(
    make_server: ServerFactory, connect: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="stud.room")
    royal = ["Ah", "Kh", "Qh", "Jh", "Th"]
    server = await make_server(
        shuffle=shuffles([royal, DEALER_AK], [["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    )
    a, b = await connect(server, "a"), await connect(server, "b")
    await a.request("join", table="alpha")
    await b.request("join", table="beta")
    await a.request("sit", table="alpha")
    await b.request("sit", table="beta")
    await a.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    await b.request("ante", table="beta", seat=0, amount=100, progressive=True)
    meter_before_claim = SEED + 50 + 50
    await a.request("deal", table="alpha")
    await a.wait_table("alpha", phase("deciding"))
    await a.request("raise", table="alpha", seat=0)
    won = await b.wait_for(lambda c: next((f for f in c.frames if f["t"] == "jackpot_won"), None))
    assert won["amount"] == meter_before_claim and won["category"] == "ROYAL_FLUSH"
    logged = [r for r in caplog.records if r.getMessage() == "jackpot won"]  # for operators
    assert [(r.table, r.category, r.amount) for r in logged] == [  # type: ignore[attr-defined]
        ("alpha", "ROYAL_FLUSH", meter_before_claim)
    ]
    await b.wait_for(lambda c: c.jackpots.get("main") == SEED)  # reset to the seed
    # the showdown, though the table may be waiting again already (a 0.2 s pause)
    snap = await a.wait_for(
        lambda c: next(
            (f for f in c.frames if f["t"] == "table" and f["phase"] == "showdown"), None
        )
    )
    assert snap["seats"][0]["result"]["progressive_prize"] == meter_before_claim
    await balance_settles(a, START - 100 - 100 + 100 + 100 * 200 + 100 + meter_before_claim)
    await a.request("history")
    record = next(f for f in a.frames if f["t"] == "history")["rounds"][0]
    result = record["seats"][0]["result"]
    assert record["jackpots"] == {"0": meter_before_claim}
    assert result["progressive_prize"] == meter_before_claim  # the meter's prize, in history too
    assert result["net"] == snap["seats"][0]["result"]["net"]
    assert record["balance_after"] - record["balance_before"] == result["net"]
    # beta is unaffected and plays on
    await b.request("deal", table="beta")
    await b.wait_table("beta", phase("deciding"))
    await b.request("fold", table="beta", seat=0)
    await showdown(b, "beta")
    await asyncio.sleep(0)


async def test_a_fixed_progressive_prize_is_logged_as_one_paid_by_the_house(
    make_server: ServerFactory, connect: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """Operators count every progressive prize from the log, not only the meter's."""
    caplog.set_level(logging.INFO, logger="stud.room")
    server = await make_server(shuffle=shuffles([["Kh", "Kd", "Ks", "3c", "3h"], DEALER_AK]))
    a = await connect(server, "a")
    await a.request("sit", table="alpha")
    await a.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    await a.request("deal", table="alpha")
    await a.wait_table("alpha", phase("deciding"))
    await a.request("raise", table="alpha", seat=0)
    snap = await showdown(a, "alpha")
    prize = snap["seats"][0]["result"]["progressive_prize"]
    assert prize > 0
    logged = [r for r in caplog.records if r.getMessage() == "jackpot won"]
    assert [
        (r.table, r.seat, r.category, r.amount, r.paid_by)  # type: ignore[attr-defined]
        for r in logged
    ] == [("alpha", 0, "FULL_HOUSE", prize, "house")]
    assert not [f for f in a.frames if f["t"] == "jackpot_won"]  # a fixed prize: no news


def documented_fields(section: str, table_heading: str | None = None) -> set[str]:
    """Field names from a PROTOCOL.md field table (the first column, back-quoted)."""
    import re
    from pathlib import Path

    doc = (Path(__file__).parent.parent / "protocol" / "PROTOCOL.md").read_text()
    body = doc.split(f"### {section}\n", 1)[1].split("\n### ", 1)[0]
    if table_heading is not None:
        body = body.split(table_heading, 1)[1]
    rows = [line for line in body.splitlines() if line.startswith("| `")]
    if table_heading is None:
        rows = rows[: next((i for i, r in enumerate(rows) if "`player_id`" in r), len(rows))]
    fields: set[str] = set()
    for row in rows:
        fields.update(re.findall(r"`([a-z_]+)`", row.split("|")[1]))
    return fields


async def test_snapshots_carry_exactly_the_documented_fields(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(shuffle=shuffles([["Kh", "Ks", "Kd", "7c", "7d"], DEALER_AK]))
    c = await connect(server, "doc")
    await c.request("sit", table="alpha")  # sit also joins
    await c.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    await c.request("deal", table="alpha")
    await c.wait_table("alpha", phase("deciding"))
    await c.request("raise", table="alpha", seat=0)
    snap = dict(await showdown(c))
    snap.pop("t")
    assert set(snap) == documented_fields("table")
    assert set(snap["seats"][0]) == documented_fields("table", "Seat map:")
    assert set(snap["seats"][0]["result"]) == {"outcome", "net", "returned", "progressive_prize"}
    assert set(snap["dealer"]) == {"cards", "hand", "qualifies"}


async def test_meter_pushes_over_the_budget_reach_everyone_in_turn(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """With more connections to tell than the budget allows per push, each push tells
    the next ones in turn: at most the budget per push, and everyone in the end."""
    server = await make_server(jackpot_push_interval=0.05, jackpot_push_budget=40)
    assert server.jackpots.per_push == 2
    player = await connect(server, "player")
    await player.request("join", table="alpha")
    await player.request("sit", table="alpha", seat=0)
    watchers = [await connect(server, f"lobby{i}") for i in range(5)]
    pushes: list[int] = []
    send_all = server.outbox.send_all

    def counted(connections: Any, data: bytes) -> int:
        sent = send_all(connections, data)
        if b"jackpot" in data[:16]:
            pushes.append(sent)
        return sent

    server.outbox.send_all = counted  # type: ignore[method-assign]
    await player.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    after = server.jackpots.amount("main")
    for w in watchers:
        await w.wait_for(
            lambda c: [f for f in c.frames if f["t"] == "jackpot" and f["amount"] == after] or None
        )
    assert pushes and max(pushes) <= 2
    assert sum(pushes) >= len(watchers)
    await asyncio.sleep(0.3)  # six intervals more: everyone is told, no push is owed
    told = len(pushes)
    await asyncio.sleep(0.3)
    assert len(pushes) == told


async def test_a_meter_push_skips_viewers_whose_snapshot_showed_it(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The progressive ante's table snapshot carries the new amount: its viewer is not
    sent it again, while a connection in the lobby gets the push."""
    server = await make_server(jackpot_push_interval=0.05)
    player = await connect(server, "player")
    await player.request("join", table="alpha")
    await player.request("sit", table="alpha", seat=0)
    lobby = await connect(server, "lobby")
    before = server.jackpots.amount("main")
    await player.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    after = server.jackpots.amount("main")
    assert after > before

    def pushed(c: StudClient) -> list[dict[str, Any]]:
        return [f for f in c.frames if f["t"] == "jackpot" and f["amount"] == after]

    await lobby.wait_for(lambda c: pushed(c) or None)
    await player.request("ping")  # whatever that push wrote to the player is read by now
    shown = [f for f in player.frames if f["t"] == "table" and f["jackpot"]["amount"] == after]
    assert shown and not pushed(player)


async def test_a_meter_push_skips_viewers_of_a_table_shown_within_the_interval(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A table whose snapshot went out within the last push interval showed the meter
    as fresh as a push would: its viewers are not pushed a move made elsewhere until
    the table has been quiet for an interval. Then they are, even if the meter has not
    moved again since: a table that stays quiet sends no snapshot to tell them."""
    server = await make_server(jackpot_push_interval=3600)  # pushes only when called here
    watcher = await connect(server, "watcher")
    await watcher.request("join", table="alpha")  # a snapshot of alpha: shown just now
    player = await connect(server, "player")
    await player.request("join", table="beta")
    await player.request("sit", table="beta", seat=0)
    lobby = await connect(server, "lobby")
    await player.request("ante", table="beta", seat=0, amount=100, progressive=True)
    after = server.jackpots.amount("main")
    alpha = server.rooms["alpha"]
    assert alpha.audience.shown.meter != after

    def pushed(c: StudClient) -> list[dict[str, Any]]:
        return [f for f in c.frames if f["t"] == "jackpot" and f["amount"] == after]

    await server.jackpots.flush()
    await lobby.wait_for(lambda c: pushed(c) or None)
    await watcher.request("ping")  # whatever that push wrote to the watcher is read by now
    assert not pushed(watcher)
    alpha.audience.shown.at -= 3600  # alpha has been quiet for an interval
    await server.jackpots.flush()  # the meter has not moved since the last push
    await watcher.wait_for(lambda c: pushed(c) or None)
    await server.jackpots.flush()  # told once: not again
    await watcher.request("ping")
    await lobby.request("ping")
    assert len(pushed(watcher)) == 1 and len(pushed(lobby)) == 1


async def test_a_meter_push_sends_only_the_meters_that_moved(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A bet on one meter pushes that meter; a second meter nobody moved is not sent
    again to connections that were told of it already."""
    server = await make_server(
        jackpot_push_interval=3600,  # pushes only when called here
        jackpots={
            "main": {"seed": 100_000, "contribution_bp": 5000},
            "side": {"seed": 500_000, "contribution_bp": 5000},
        },
    )
    await server.jackpots.flush()  # the meters as the server started, told to nobody
    player = await connect(server, "player")
    await player.request("sit", table="alpha", seat=0)
    lobby = await connect(server, "lobby")  # its welcome shows both meters
    await player.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    await server.jackpots.flush()
    main = server.jackpots.amount("main")
    await lobby.wait_for(lambda c: c.jackpots.get("main") == main or None)
    await lobby.request("ping")  # whatever the push wrote is read by now
    pushed = [f["name"] for f in lobby.frames if f["t"] == "jackpot"]
    assert pushed == ["main"]


async def test_a_second_bet_for_a_seat_whose_first_is_being_written_says_so(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A second ante (or decision) for a seat whose first is still being written (sent
    again from a new connection, the player's first one lost, say) was refused
    `wrong_phase`, though the phase was right: it is the seat's own bet that stands in
    the way, as once it has landed."""
    server = await make_server(timers={"betting": 30, "decision": 30, "results": 30})
    ann = await connect(server, "ann")
    await ann.request("join", table="alpha")
    await ann.request("sit", table="alpha", seat=0)
    store = server.store
    held, release = asyncio.Event(), asyncio.Event()
    writes: dict[str, Callable[..., Any]] = {"bet": store.bet, "apply": store.apply}

    def holding(name: str) -> Callable[..., Any]:
        async def write(*args: Any, **kwargs: Any) -> Any:
            held.set()
            await release.wait()
            return await writes[name](*args, **kwargs)

        return write

    try:
        store.bet = holding("bet")  # type: ignore[method-assign]
        first = asyncio.create_task(ann.request("ante", table="alpha", seat=0, amount=100))
        await held.wait()
        again_ann = await connect(server, None, token=ann.token)  # the player back
        with pytest.raises(ServerError) as again:
            await again_ann.request("ante", table="alpha", seat=0, amount=200)
        assert again.value.code == "already_bet" and "being placed" in str(again.value)
        release.set()
        await asyncio.gather(first, return_exceptions=True)  # its connection was replaced
        store.bet = writes["bet"]  # type: ignore[method-assign]
        await again_ann.request("join", table="alpha")
        await again_ann.wait_table("alpha", lambda t: t["seats"][0]["ante"] == 100)  # the first

        await again_ann.request("deal", table="alpha")
        await again_ann.wait_table("alpha", phase("deciding"))
        held.clear()
        release.clear()
        store.apply = holding("apply")  # type: ignore[method-assign]
        raised = asyncio.create_task(again_ann.request("raise", table="alpha", seat=0))
        third = await connect(server, None, token=ann.token)
        await held.wait()
        with pytest.raises(ServerError) as fold:
            await third.request("fold", table="alpha", seat=0)
        assert fold.value.code == "already_decided" and "being placed" in str(fold.value)
        release.set()
        await asyncio.gather(raised, return_exceptions=True)
        await third.request("join", table="alpha")
        await third.wait_table("alpha", lambda t: t["seats"][0]["decision"] == "raise")
    finally:
        release.set()  # a failure above must not leave the write held at teardown
