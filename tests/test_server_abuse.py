"""Bad input over real sockets: each gets its error or close code; nobody else notices."""

from __future__ import annotations

import asyncio
import contextlib
import json
import urllib.request
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.protocol import State

from clients.connection import ServerError, StudClient
from protocol.codec import encode
from server.app import StudServer
from server.stores.base import OutcomeUnknown, StoreUnavailable
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles

DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]


def strings(value: Any) -> set[str]:
    """Every string anywhere inside a decoded frame."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(k) | strings(v) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return set().union(*(strings(v) for v in value))
    return set()


async def expect_error(client: StudClient, frame: dict[str, Any] | bytes) -> dict[str, Any]:
    n = len(client.errors)
    await client.ws.send(frame if isinstance(frame, bytes) else encode(frame))
    await client.wait_for(lambda c: len(c.errors) > n)
    return client.errors[n]


async def test_garbage_and_malformed_frames_get_error_codes(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    c = await connect(server, "mallory")
    cases: list[tuple[dict[str, Any] | bytes, str, str | None]] = [
        (b"\xc1\xff\x00garbage", "bad_frame", None),
        (msgpack.packb([1, 2, 3]), "bad_frame", None),
        (
            encode({"t": "ante", "id": 7, "table": "alpha", "seat": 0, "amount": 1.5}),
            "invalid_field",
            "amount",
        ),
        (
            {"t": "ante", "id": 8, "table": "alpha", "seat": 0, "amount": True},
            "invalid_field",
            "amount",
        ),
        ({"t": "ante", "id": 9, "table": "alpha", "seat": 0}, "missing_field", "amount"),
        (
            {"t": "ante", "table": "alpha", "seat": 0, "amount": 100, "x": "y" * 3000},
            "invalid_field",
            "x",
        ),
        ({"t": "teleport"}, "unknown_type", None),
        ({"id": 3}, "missing_field", "t"),
        ({"t": "sit", "table": "nowhere"}, "unknown_table", "table"),
        # PROTOCOL.md section 4: a table that does not exist is unknown_table, whatever
        # the command; a seat that is not yours is not_your_seat, watched or not
        ({"t": "ante", "table": "nowhere", "seat": 0, "amount": 100}, "unknown_table", "table"),
        ({"t": "deal", "table": "nowhere"}, "unknown_table", "table"),
        ({"t": "ante", "table": "beta", "seat": 0, "amount": 100}, "not_your_seat", None),
        ({"t": "stand", "table": "beta", "seat": 0}, "not_your_seat", None),
        ({"t": "deal", "table": "beta"}, "not_seated", None),
        ({"t": "leave", "table": "beta"}, "not_at_table", "table"),
        ({"t": "seed", "table": "beta", "client_seed": "x"}, "not_at_table", "table"),
        ({"t": "hello", "v": 1, "name": "again"}, "already_welcomed", None),
    ]
    for frame, code, field in cases:
        err = await expect_error(c, frame)
        assert err["code"] == code, (frame, err)
        if field is not None:
            assert err.get("field") == field, (frame, err)
        if isinstance(frame, dict) and "id" in frame:
            assert err["id"] == frame["id"]
    # the connection survives all of it
    assert (await c.request("ping"))["t"] == "pong"


async def test_requests_before_hello_and_bad_versions(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    c = await connect(server, None)
    err = await expect_error(c, {"t": "lobby", "id": 1})
    assert err["code"] == "not_welcomed" and err["id"] == 1
    err = await expect_error(c, {"t": "hello", "v": 1, "token": "nope"})
    assert err["code"] == "invalid_token"
    err = await expect_error(c, {"t": "hello", "v": 0, "name": "x"})
    assert err["code"] == "unsupported_version"
    await asyncio.wait_for(c.closed, 5)
    assert c.ws.close_code == 1002
    await closes_counted(server, {1002: 1})


async def test_text_frames_close_1003_and_oversized_frames_close_1009(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(limits={"max_frame_bytes": 1024})
    c = await connect(server, "t")
    await c.ws.send('{"t": "ping"}')
    await asyncio.wait_for(c.closed, 5)
    assert c.ws.close_code == 1003
    big = await connect(server, "big")
    await big.ws.send(encode({"t": "ping", "pad": "x" * 5000}))
    await asyncio.wait_for(big.closed, 5)
    assert big.ws.close_code == 1009
    # websockets closes an oversized frame itself: /metrics counts it all the same
    await closes_counted(server, {1003: 1, 1009: 1})


async def closes_counted(server: StudServer, expected: dict[int, int]) -> None:
    """Wait (at most 5 s) for the server's count of the closes it started: the count is
    taken when its side of the connection is done, a moment after the client's."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 5
    while dict(server.metrics.closes) != expected and loop.time() < end:
        await asyncio.sleep(0.01)
    assert dict(server.metrics.closes) == expected


async def test_flood_is_warned_then_closed_1008_while_others_play(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(
        limits={"rate_per_second": 5, "rate_burst": 10},
        shuffle=shuffles([["2c", "3c", "4c", "5c", "7d"], DEALER_AK]),
    )
    honest = await connect(server, "honest")
    await honest.request("join", table="beta")
    await honest.request("sit", table="beta")
    flooder = await connect(server, "flood")
    with pytest.raises(ConnectionClosed):
        for _ in range(200):
            await flooder.ws.send(encode({"t": "ping"}))
            await asyncio.sleep(0)
        await asyncio.wait_for(flooder.closed, 5)
        await flooder.ws.send(encode({"t": "ping"}))
    await asyncio.wait_for(flooder.closed, 5)
    assert any(e["code"] == "rate_limited" for e in flooder.errors)
    assert flooder.ws.close_code == 1008
    await honest.request("ante", table="beta", seat=0, amount=100)
    await honest.request("deal", table="beta")
    await honest.wait_table("beta", lambda s: s["phase"] == "deciding")
    await honest.request("fold", table="beta", seat=0)
    await honest.wait_table("beta", lambda s: s["phase"] == "showdown")


async def test_every_request_over_the_rate_is_answered(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Requests dropped for the rate are not left unanswered: each gets `rate_limited`
    with its own id (a client waiting on a reply would otherwise wait forever)."""
    server = await make_server(limits={"rate_per_second": 5, "rate_burst": 10})
    client = await connect(server, "eager")
    await asyncio.sleep(0.5)  # the bucket full again after hello

    async def balance() -> str:
        try:
            await client.request("balance")
            return "ok"
        except ServerError as e:
            return str(e.frame["code"])

    outcomes = await asyncio.wait_for(asyncio.gather(*(balance() for _ in range(14))), 10)
    assert outcomes.count("rate_limited") >= 4  # 14 at once, a bucket of 10
    assert set(outcomes) == {"ok", "rate_limited"}
    assert not client.ws.close_code  # four drops are a warning, not yet a flood
    await asyncio.sleep(1.0)
    assert await client.request("balance")  # and the connection goes on


async def test_out_of_turn_and_someone_elses_seat(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(
        shuffle=shuffles(
            [["2c", "3c", "4c", "5c", "7d"], ["2h", "3h", "4h", "5h", "7s"], DEALER_AK]
        )
    )
    a, b = await connect(server, "a"), await connect(server, "b")
    for c in (a, b):
        await c.request("join", table="alpha")
        await c.request("sit", table="alpha")
    checks = [
        (a, "raise", {"seat": 0}, "wrong_phase"),
        (a, "deal", {}, "no_bet"),
        (b, "ante", {"seat": 0, "amount": 100}, "not_your_seat"),
        (a, "ante", {"seat": 0, "amount": 50}, "ante_out_of_limits"),
        (a, "ante", {"seat": 0, "amount": 10**9}, "ante_out_of_limits"),
        (a, "stand", {"seat": 4}, "not_your_seat"),
    ]
    for client, t, fields, code in checks:
        with pytest.raises(ServerError) as e:
            await client.request(t, table="alpha", **fields)
        assert e.value.code == code
    await a.request("ante", table="alpha", seat=0, amount=100)
    await b.request("ante", table="alpha", seat=1, amount=100)
    with pytest.raises(ServerError) as e:
        await a.request("ante", table="alpha", seat=0, amount=100)
    assert e.value.code == "already_bet"
    await a.request("deal", table="alpha")
    await b.request("deal", table="alpha")
    await a.wait_table("alpha", lambda s: s["phase"] == "deciding")
    with pytest.raises(ServerError) as e:
        await a.request("fold", table="alpha", seat=1)
    assert e.value.code == "not_your_seat"
    await a.request("fold", table="alpha", seat=0)
    with pytest.raises(ServerError) as e:
        await a.request("raise", table="alpha", seat=0)
    assert e.value.code == "already_decided"
    # nothing half-applied: a's wallet shows exactly one ante gone and no hold
    await a.wait_for(lambda c: c.balance["balance"] == 100_000 - 100 and c.balance["held"] == 0)


async def test_hole_cards_are_in_no_frame_before_showdown(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    dealer = ["Ad", "Kc", "9h", "4s", "2d"]
    server = await make_server(shuffle=shuffles([["2c", "3c", "4c", "5c", "7d"], dealer]))
    p, spy = await connect(server, "p"), await connect(server, "spy")
    for c in (p, spy):
        await c.request("join", table="alpha")
        await c.request("lobby")
    await p.request("sit", table="alpha")
    await p.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    await p.request("deal", table="alpha")
    await spy.wait_table("alpha", lambda s: s["phase"] == "deciding")
    await p.request("raise", table="alpha", seat=0)
    await spy.wait_table("alpha", lambda s: s["phase"] == "showdown")
    for client in (p, spy):
        first_showdown = next(
            i for i, f in enumerate(client.frames) if f["t"] == "table" and f["phase"] == "showdown"
        )
        before = client.frames[:first_showdown]
        assert before
        seen = set().union(*(strings(f) for f in before))
        assert "2d" in seen  # the up card is shown...
        assert seen.isdisjoint(dealer[:4]), "a hole card was sent before showdown"


async def test_health_and_metrics_over_http(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    c = await connect(server, "m")
    await expect_error(c, {"t": "nope"})
    base = f"http://127.0.0.1:{server.port}"

    def get(path: str) -> tuple[int, str, str]:
        with urllib.request.urlopen(base + path, timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read().decode()

    status, kind, body = await asyncio.to_thread(get, "/healthz")
    assert status == 200 and kind == "application/json"
    health = json.loads(body)
    assert health["status"] == "ok" and health["connections"] == 1 and health["tables"] == 2
    status, kind, body = await asyncio.to_thread(get, "/metrics")
    assert status == 200 and kind.startswith("text/plain")
    assert "stud_connections 1" in body
    assert 'stud_errors_total{code="unknown_type"} 1' in body
    assert "stud_broadcast_lag_seconds_count" in body
    with pytest.raises(InvalidStatus):
        async with ws_connect(f"ws://127.0.0.1:{server.port}/elsewhere"):
            pass


async def test_graceful_shutdown_voids_running_round_and_closes_1001(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    c = await connect(server, "last")
    await c.request("join", table="alpha")
    await c.request("sit", table="alpha")
    await c.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    await server.stop(grace=0.2)
    await asyncio.wait_for(c.closed, 5)
    assert c.ws.close_code == 1001
    totals = await server.store.totals()
    assert totals[f"player:{c.player_id}"] == 100_000  # every cent refunded
    assert await server.store.open_rounds("alpha") == []


async def test_a_shutdown_is_shown_at_its_tables_while_their_rounds_finish(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Players and spectators learn of a shutdown when it starts, not from a refused
    ante: the snapshot's `paused` says the server is shutting down (the lobby row's
    `paused` too) while the round in play goes on to its showdown."""
    server = await make_server(timers={"betting": 60, "decision": 60, "results": 0.5})
    ann = await connect(server, "ann")
    watcher = await connect(server, "wendy")
    await ann.request("sit", table="alpha")
    await watcher.request("join", table="alpha")
    await ann.request("ante", table="alpha", seat=0, amount=100)
    await ann.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda v: v["phase"] == "deciding")
    stopping = asyncio.ensure_future(server.stop(grace=30))
    for c in (ann, watcher):
        view = await c.wait_table("alpha", lambda v: v["paused"] is not None)
        assert "shutting down" in view["paused"]["reason"] and view["paused"]["shutdown"] is True
        assert view["paused"]["since_ms"] > 0
        # what is left of the grace as the snapshot was made, as `ends_in_ms` is: the
        # page's clock counts to it (not to the round's own 60 s), without reading words
        assert 25_000 <= view["paused"]["voids_in_ms"] <= 30_000, view["paused"]
        assert view["phase"] == "deciding"  # the round goes on
    await watcher.request("lobby", watch=False)
    rows = await watcher.wait_for(
        lambda c: [r["paused"] for r in (c.lobby or {}).get("tables", []) if r["id"] == "alpha"]
    )
    assert rows == [True]
    with pytest.raises(ServerError) as refused:
        await ann.request("sit", table="alpha")
    assert refused.value.code == "shutting_down"
    await ann.request("fold", table="alpha", seat=0)  # the round finishes: the server stops
    await asyncio.wait_for(stopping, 10)
    await asyncio.wait_for(ann.closed, 5)
    assert ann.ws.close_code == 1001


async def test_a_shutdown_is_shown_over_an_operator_s_pause(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A table the casino paused still tells its players when its server shuts down."""
    server = await make_server()
    ann = await connect(server, "ann")
    await ann.request("join", table="alpha")
    server.rooms["alpha"].paused = {"reason": "dealer change", "since_ms": 1}
    stopping = asyncio.ensure_future(server.stop(grace=5))
    view = await ann.wait_table("alpha", lambda v: (v["paused"] or {}).get("shutdown"))
    assert "shutting down" in view["paused"]["reason"]
    await asyncio.wait_for(stopping, 10)


async def test_silent_connections_are_closed_and_a_resume_replaces_the_old_one(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(limits={"hello_timeout": 0.3})
    silent = await connect(server, None)
    await asyncio.wait_for(silent.closed, 5)
    assert silent.ws.close_code == 1008
    first = await connect(server, "twice")
    second = await connect(server, None, token=first.token)
    await asyncio.wait_for(first.closed, 5)
    assert first.ws.close_code == 1000
    assert second.welcome["resumed"] is True
    assert (await second.request("ping"))["t"] == "pong"


def held_at_the_store(
    monkeypatch: pytest.MonkeyPatch, store: Any, method: str
) -> tuple[asyncio.Event, asyncio.Event]:
    """Hold every call of `store.<method>` until the second event is set; the first is
    set once a call is waiting there (a write in hand, its outcome not yet known)."""
    entered, gate = asyncio.Event(), asyncio.Event()
    call = getattr(store, method)

    async def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await gate.wait()
        return await call(*args, **kwargs)

    monkeypatch.setattr(store, method, held)
    return entered, gate


async def test_a_hello_the_store_is_slow_to_answer_is_answered_not_closed_for_time(
    make_server: ServerFactory, connect: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hello timeout is for a connection that says nothing. A new player's hello
    whose store write is in hand past it (Redis stalled) waits for its outcome: it
    used to be closed "no hello in time" while the player was created all the same,
    with a token nobody got."""
    server = await make_server(limits={"hello_timeout": 0.3})
    entered, gate = held_at_the_store(monkeypatch, server.store, "create_player")
    joining = asyncio.ensure_future(connect(server, "patient"))
    await asyncio.wait_for(entered.wait(), 5)
    await asyncio.sleep(1.0)  # past the hello timeout, the write still in hand
    gate.set()
    patient = await asyncio.wait_for(joining, 5)
    assert patient.welcome["resumed"] is False and patient.token
    assert (await patient.request("ping"))["t"] == "pong"


async def test_a_hello_answered_late_with_an_error_leaves_time_for_another(
    make_server: ServerFactory, connect: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new player's hello held past the hello timeout by a stalled store, then answered
    `store_unavailable` (no player was made): the connection was closed "no hello in
    time" at the next look, before the client could say hello again."""
    server = await make_server(limits={"hello_timeout": 0.3})
    entered, gate = asyncio.Event(), asyncio.Event()

    async def stalled(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await gate.wait()
        raise StoreUnavailable("the game's data store (Redis) did not answer")

    monkeypatch.setattr(server.store, "create_player", stalled)
    client = await connect(server, None)
    hello = asyncio.ensure_future(client.request("hello", v=1, name="patient"))
    await asyncio.wait_for(entered.wait(), 5)
    await asyncio.sleep(0.5)  # past the hello timeout, the write still in hand
    gate.set()
    with pytest.raises(ServerError) as refused:
        await asyncio.wait_for(hello, 5)
    assert refused.value.code == "store_unavailable"
    [session] = [s for s in server.sessions.all if s.player is None]
    server.gateway._hello_overdue(session)  # the look that came due meanwhile
    await asyncio.sleep(0)
    assert session.ws.protocol.state is State.OPEN  # its time runs anew from the answer
    monkeypatch.undo()
    assert (await client.hello(name="patient"))["resumed"] is False


@pytest.mark.parametrize("hello", ["token", "login"])
async def test_a_resume_or_login_the_store_left_in_doubt_leaves_time_for_another(
    make_server: ServerFactory,
    connect: ClientFactory,
    monkeypatch: pytest.MonkeyPatch,
    hello: str,
) -> None:
    """A token's lookup (or a login's counter) the store left in doubt is answered
    `store_unavailable`, "say hello again"; PROTOCOL.md §3 gives the connection another
    hello timeout for it. Only a StoreError answered so restarted the clock: these are
    answered by a ProtocolError, and the connection was closed "no hello in time" before
    the client could send its second hello."""
    server = await make_server(limits={"hello_timeout": 0.3})
    ann = await connect(server, "ann")
    await ann.request("register", username="ann_99", password="a-long-password")
    method = "player_by_token" if hello == "token" else "add_failure"
    entered, gate = asyncio.Event(), asyncio.Event()

    async def stalled(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        await gate.wait()
        raise OutcomeUnknown("the game's data store (Redis) did not answer")

    monkeypatch.setattr(server.store, method, stalled)
    client = await connect(server, None)
    fields: dict[str, Any] = (
        {"t": "hello", "v": 1, "token": ann.token}
        if hello == "token"
        else {"t": "login", "username": "ann_99", "password": "a-long-password"}
    )
    first = asyncio.ensure_future(client.request(fields.pop("t"), **fields))
    await asyncio.wait_for(entered.wait(), 5)
    await asyncio.sleep(0.5)  # past the hello timeout, the lookup still in hand
    gate.set()
    with pytest.raises(ServerError) as refused:
        await asyncio.wait_for(first, 5)
    assert refused.value.code == "store_unavailable"
    [session] = [s for s in server.sessions.all if s.player is None]
    server.gateway._hello_overdue(session)  # the look that came due meanwhile
    await asyncio.sleep(0)
    assert session.ws.protocol.state is State.OPEN  # its time runs anew from the answer


async def test_refused_logins_do_not_keep_an_unwelcomed_connection_open(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Only a hello the store failed leaves time for another: a connection sending wrong
    passwords over and over, never welcomed, goes at its deadline like a silent one."""
    server = await make_server(limits={"hello_timeout": 0.3})
    client = await connect(server, None)
    refused = 0
    with contextlib.suppress(ConnectionClosed):
        for _ in range(40):  # ten timeouts' worth, had each refusal given a new one
            if client.closed.done():
                break
            with contextlib.suppress(ServerError):
                await client.request("login", username="nobody", password="wrong-password")
            refused += 1
            await asyncio.sleep(0.075)
    assert client.closed.done() and refused < 40  # closed among the refusals, not after
    assert client.ws.close_code == 1008


async def test_a_replaced_connection_answers_the_request_in_hand_before_it_closes(
    make_server: ServerFactory, connect: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resume on a new connection closes the older one, but not under a request it is
    handling: an ante the store applies gets its answer on the old connection first."""
    server = await make_server()
    first = await connect(server, "twice")
    await first.request("sit", table="alpha")
    entered, gate = held_at_the_store(monkeypatch, server.store, "bet")
    ante = asyncio.ensure_future(first.request("ante", table="alpha", seat=0, amount=100))
    await asyncio.wait_for(entered.wait(), 5)
    second = await connect(server, None, token=first.token)
    assert second.welcome["resumed"] is True
    assert not first.closed.done()  # its ante is still in hand
    gate.set()
    reply = await asyncio.wait_for(ante, 5)
    assert reply["t"] == "ok"
    await asyncio.wait_for(first.closed, 5)
    assert first.ws.close_code == 1000 and first.ws.close_reason == "replaced by a new connection"
    snap = await second.wait_table("alpha", lambda s: s["seats"][0]["ante"] == 100)
    assert snap["seats"][0]["ante"] == 100


async def test_leaving_gives_the_ante_back_over_the_wire(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    c, other = await connect(server, "leaver"), await connect(server, "other")
    await c.request("sit", table="alpha")
    await other.request("join", table="alpha")
    await c.request("ante", table="alpha", seat=0, amount=500, progressive=True)
    await c.wait_for(lambda cl: cl.balance["held"] == 1_000)
    await c.request("leave", table="alpha")
    await c.wait_for(
        lambda cl: (
            cl.balance == {"balance": 100_000, "bonus": 5_000, "available": 100_000, "held": 0}
        )
    )
    snap = await other.wait_table("alpha", lambda s: s["seats"][0] is None)
    assert snap["phase"] == "waiting" and snap["last"] == {"seat": 0, "action": "stand"}
    assert (await server.store.totals())["meter:main"] == 100_000  # the contribution went back too


async def test_no_hand_reaches_anyone_but_its_player_before_showdown(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    hands = {"ann": ["2c", "3c", "4c", "5c", "7d"], "bob": ["Kh", "Kd", "7s", "7c", "2h"]}
    dealer = ["Ad", "Kc", "9h", "4s", "Qd"]
    server = await make_server(shuffle=shuffles([hands["ann"], hands["bob"], dealer]))
    ann, bob, spy = [await connect(server, n) for n in ("ann", "bob", "spy")]
    await spy.request("join", table="alpha")
    await ann.request("sit", table="alpha")
    await bob.request("sit", table="alpha")
    await ann.request("ante", table="alpha", seat=0, amount=100)
    await bob.request("ante", table="alpha", seat=1, amount=100)
    await ann.request("deal", table="alpha")
    await bob.request("deal", table="alpha")
    await spy.wait_table("alpha", lambda s: s["phase"] == "deciding")
    # a late joiner during the round gets the snapshot, face down, and no hand frame
    late = await connect(server, "late")
    await late.request("join", table="alpha")
    await ann.request("fold", table="alpha", seat=0)
    await bob.request("raise", table="alpha", seat=1)
    await spy.wait_table("alpha", lambda s: s["phase"] == "showdown")
    mine = {ann: hands["ann"], bob: hands["bob"], spy: [], late: []}
    for client, own in mine.items():
        first = next(
            i for i, f in enumerate(client.frames) if f["t"] == "table" and f["phase"] == "showdown"
        )
        seen = set().union(*(strings(f) for f in client.frames[:first]))
        others = {card for hand in hands.values() for card in hand} - set(own)
        assert seen.isdisjoint(others), f"another player's card reached {client.player_id}"
        assert seen.issuperset(own)  # each player did get their own
        after = set().union(*(strings(f) for f in client.frames[first:]))
        assert after.issuperset(others)  # and at showdown everything is public


async def test_a_joiner_during_a_settlement_is_shown_what_everyone_was(
    make_server: ServerFactory, connect: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a showdown's settlement is being written, a joiner is shown the last
    broadcast as it went out: the same seq is the same snapshot, spectator count and
    all; the count with the joiner goes out with the settled showdown."""
    server = await make_server()
    a = await connect(server, "a")
    await a.request("join", table="alpha")
    await a.request("sit", table="alpha", seat=0)
    await a.request("ante", table="alpha", seat=0, amount=100)
    await a.request("deal", table="alpha")
    dealt = await a.wait_table("alpha", lambda s: s["phase"] == "deciding")
    writing, gate = held_at_the_store(monkeypatch, server.store, "settle")
    fold = asyncio.create_task(a.request("fold", table="alpha", seat=0))
    await asyncio.wait_for(writing.wait(), 10)
    joiner = await connect(server, "joiner")
    await joiner.request("join", table="alpha")
    shown = joiner.tables["alpha"]
    gate.set()
    await fold
    await joiner.wait_table("alpha", lambda s: s["phase"] == "showdown")
    await a.wait_table("alpha", lambda s: s["phase"] == "showdown" and s["spectators"] == 1)
    broadcast = {f["seq"]: f for f in a.frames if f["t"] == "table"}
    assert shown["seq"] in broadcast, "a seq nobody else was shown"
    assert {**shown, "ends_in_ms": None} == {**broadcast[shown["seq"]], "ends_in_ms": None}
    assert shown["seq"] >= dealt["seq"] and shown["phase"] == "deciding"


async def test_one_seq_is_one_snapshot(make_server: ServerFactory, connect: ClientFactory) -> None:
    """A joiner's snapshot counts the joiner: it is a new seq, never the old one changed."""
    server = await make_server()
    a = await connect(server, "a")
    await a.request("sit", table="alpha")
    joiners = []
    for name in ("b", "c", "d"):
        c = await connect(server, name)
        await c.request("join", table="alpha")
        joiners.append(c)
    # the seated player sees the spectators arrive (at the next throttled push)
    await a.wait_for(lambda cl: cl.tables["alpha"]["spectators"] == 3)
    seen: dict[int, str] = {}
    for client in (a, *joiners):
        for f in client.frames:
            if f["t"] == "table":
                body = repr(sorted((k, repr(v)) for k, v in f.items() if k != "ends_in_ms"))
                assert seen.setdefault(f["seq"], body) == body, f"seq {f['seq']} differs"


async def test_a_refused_sit_changes_nothing_not_even_who_watches(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """PROTOCOL.md section 2: a failed request changed nothing. A sit refused (a seat
    out of range, a seat taken) leaves the connection off the table: no snapshot, no
    spectator more for the others, and `seed` still answers `not_at_table`."""
    server = await make_server()
    ann, bob = await connect(server, "ann"), await connect(server, "bob")
    await ann.request("sit", table="alpha", seat=0)
    before = len([f for f in ann.frames if f["t"] == "table"])
    for seat, code in ((99, "invalid_field"), (0, "seat_taken")):
        with pytest.raises(ServerError) as e:
            await bob.request("sit", table="alpha", seat=seat)
        assert e.value.code == code
    with pytest.raises(ServerError) as e:
        await bob.request("seed", table="alpha", client_seed="lucky")
    assert e.value.code == "not_at_table"
    assert not [f for f in bob.frames if f["t"] == "table"]
    await bob.request("sit", table="alpha", seat=1)  # and a sit that lands shows the table
    snap = await bob.wait_table("alpha", lambda s: s["seats"][1] is not None)
    assert snap["seats"][1]["name"] == "bob"
    counts = [f["spectators"] for f in ann.frames[before:] if f["t"] == "table"]
    assert 1 not in counts, f"a refused sit was counted as a spectator: {counts}"


async def test_a_flood_closed_1008_has_the_client_s_close_reply_read(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flood's unread frames held the server's reading paused, so the client's reply
    to the close went unread and both ends waited out the close timeout (about 5 s, the
    client left in CLOSING). The frames are now drained: the handshake completes."""
    server = await make_server(limits={"rate_per_second": 5, "rate_burst": 10})
    replies: list[object] = []
    count = server.gateway._count_close

    def seen(ws: Any) -> None:
        replies.append(ws.protocol.close_rcvd)
        count(ws)

    monkeypatch.setattr(server.gateway, "_count_close", seen)
    async with ws_connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        await ws.send(encode({"t": "hello", "v": 1, "name": "flood"}))
        with contextlib.suppress(ConnectionClosed):  # sent into a closing connection
            for _ in range(500):
                await ws.send(encode({"t": "ping"}))
        await asyncio.wait_for(ws.wait_closed(), 20)
        assert ws.close_code == 1008
    for _ in range(200):  # bounded: the server's side ends a moment after the client's
        if replies:
            break
        await asyncio.sleep(0.05)
    assert replies and replies[0] is not None  # the client's close frame reached the server
