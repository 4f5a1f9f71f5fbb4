"""A Redis that refuses writes (too few replicas, a failed save, out of memory, a
read-only replica) refuses a script before its first write: nothing was applied.
The store says so (StoreUnavailable), so a request is refused truthfully and a duty
(a timer's fold, a settlement) waits with its table paused. It was a plain
StoreError, which no one retried: a timer's fold was dropped and the table played on
with the round open and the raise's hold stuck."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any

import pytest

from clients.connection import ServerError, StudClient
from server import durable
from server.app import StudServer
from server.durable import Pending, until_known
from server.game.ledger import HOUSE, Hold, Reason, Transfer, player_account
from server.stores.base import (
    Fence,
    InsufficientFunds,
    OutcomeUnknown,
    StoreError,
    StoreUnavailable,
    Wallet,
)
from server.stores.redis import RedisStore
from server.stores.redis_replies import error_reply, refusal
from tests.conftest import ClientFactory, ServerFactory
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit
from tests.test_faults import START, assert_books, client, on_redis, paused, to_deciding

__all__ = ["on_redis", "paused", "private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

REFUSE = ("CONFIG", "SET", "min-replicas-to-write", "1")  # no replica: every write refused
ALLOW = ("CONFIG", "SET", "min-replicas-to-write", "0")


def test_an_error_reply_says_whether_anything_can_have_been_applied() -> None:
    for message in (
        "NOREPLICAS Not enough good replicas to write.",
        "MISCONF Redis is configured to save RDB snapshots, but it's currently unable",
        "OOM command not allowed when used memory > 'maxmemory'.",
        "READONLY You can't write against a read only replica.",
        "LOADING Redis is loading the dataset in memory",
        "BUSY Redis is busy running a script.",
    ):
        assert type(error_reply("the bet script", message, write=True)) is StoreUnavailable
        batched = refusal({"err": "script_failed", "message": message})
        assert type(batched) is StoreUnavailable, message
    # any other error may come after some of a write: retried under its op id
    wrong = "WRONGTYPE Operation against a key holding the wrong kind of value"
    assert type(error_reply("the bet script", wrong, write=True)) is OutcomeUnknown
    assert type(refusal({"err": "script_failed", "message": wrong})) is OutcomeUnknown
    assert type(error_reply("HGETALL", wrong, write=False)) is StoreError


async def test_a_refused_write_alone_or_batched_raises_store_unavailable_and_applies_nothing(
    private_redis: RedisServer,
) -> None:
    store = await RedisStore.connect(private_redis.url, fresh_namespace(), timeout=2.0)
    try:
        players = [(await store.create_player(n, 10_000, 0)).player_id for n in "ab"]

        def bet(i: int, pid: str) -> Awaitable[Wallet]:
            rid = f"r{i}"
            ante = [Transfer(rid, 0, Reason.ANTE, player_account(pid), HOUSE, 100)]
            return store.bet(Fence(rid, 0), f"{rid}:ante", ante, [Hold(rid, 0, pid, 200)])

        private_redis.command(*REFUSE)
        with pytest.raises(StoreUnavailable):  # one write: its own script
            await bet(0, players[0])
        both = await asyncio.gather(
            *(bet(i, p) for i, p in enumerate(players)), return_exceptions=True
        )
        assert [type(e) for e in both] == [StoreUnavailable, StoreUnavailable]  # one batch
        with pytest.raises(StoreUnavailable):
            await store.buy_chips(players[0], 1_000, 1_000_000, "buy-1")
        for pid in players:
            assert await store.wallet(pid) == Wallet(10_000, 0, 0)
        private_redis.command(*ALLOW)
        assert await bet(0, players[0]) == Wallet(9_900, 0, 200)
        assert sum((await store.totals()).values()) == 0
    finally:
        private_redis.command(*ALLOW)
        await store.close()


async def test_a_timer_fold_refused_by_redis_pauses_the_table_until_it_lands(
    on_redis: tuple[StudServer, RedisStore], paused: RedisServer
) -> None:
    server, books = on_redis
    ann = await client(server, "ann")
    watcher = await client(server, "watcher")
    await watcher.request("join", table="alpha")
    await to_deciding(ann)  # the decision timer: 2 s
    paused.command(*REFUSE)
    try:
        snap = await watcher.wait_table(
            "alpha", lambda s: s["phase"] in ("suspended", "showdown"), timeout=10
        )
        assert snap["phase"] == "suspended", snap["phase"]  # no showdown of an unwritten fold
        assert snap["suspended"] == {**snap["suspended"], "phase": "deciding", "reason": "store"}
        await asyncio.sleep(1)
        assert (await books.wallet(ann.player_id)).held == 200  # nothing moved meanwhile
    finally:
        paused.command(*ALLOW)
    snap = await ann.wait_table("alpha", lambda s: s["phase"] == "showdown", timeout=10)
    seat = snap["seats"][0]
    assert seat["decision"] == "fold" and seat["auto"] is True
    await ann.wait_table("alpha", lambda s: s["phase"] == "waiting")
    await assert_books(books, ann, expected={ann.player_id: START - 100})
    await ann.close()
    await watcher.close()


async def test_a_raise_refused_by_redis_is_answered_as_not_applied(
    on_redis: tuple[StudServer, RedisStore],
    paused: RedisServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """...and the operator reads Redis's own words for it in the log (the table's
    suspension said only `store`)."""
    server, books = on_redis
    ann = await client(server, "ann")
    await to_deciding(ann)
    paused.command(*REFUSE)
    try:
        with (
            caplog.at_level(logging.WARNING, logger="stud.room"),
            pytest.raises(ServerError) as e,
        ):
            await ann.request("raise", table="alpha", seat=0)
        assert e.value.code == "store_unavailable"
        refused = [r for r in caplog.records if r.getMessage().startswith("store refused")]
        assert len(refused) == 1 and "NOREPLICAS" in getattr(refused[0], "error", "")
        assert getattr(refused[0], "table", None) == "alpha"
        wallet = await books.wallet(ann.player_id)
        assert (wallet.balance, wallet.held) == (START - 100, 200)  # the raise not taken
    finally:
        paused.command(*ALLOW)
    snap = await ann.wait_table("alpha", lambda s: s["phase"] == "showdown", timeout=10)
    net = snap["seats"][0]["result"]["net"]
    await ann.wait_table("alpha", lambda s: s["phase"] == "waiting")
    await assert_books(books, ann, expected={ann.player_id: START + net})
    await ann.close()


async def test_a_store_that_answers_but_refuses_writes_keeps_the_table_paused(
    on_redis: tuple[StudServer, RedisStore], paused: RedisServer
) -> None:
    """The table's probe took a PING for the store back, though Redis refused every
    write: the table resumed at once after each refused raise, its clock running and
    its viewers shown it playing, until the next write was refused. It stays paused
    now until the store takes writes again (the probe writes), then plays on."""
    server, books = on_redis
    ann = await client(server, "ann")
    await to_deciding(ann)
    paused.command(*REFUSE)
    refused: list[str] = []
    try:
        for _ in range(12):  # three decision clocks' worth of tries, a quarter second apart
            with pytest.raises(ServerError) as e:
                await ann.request("raise", table="alpha", seat=0)
            refused.append(e.value.code)
            await asyncio.sleep(0.25)
        assert (ann.tables["alpha"].get("suspended") or {}).get("reason") == "store"
    finally:
        paused.command(*ALLOW)
    assert refused == ["store_unavailable"] + ["table_suspended"] * 11, refused
    await ann.wait_table("alpha", lambda s: s.get("suspended") is None)
    await ann.request("raise", table="alpha", seat=0)  # the hand was still undecided
    snap = await ann.wait_table("alpha", lambda s: s["phase"] == "showdown", timeout=10)
    assert (snap["seats"][0]["decision"], snap["seats"][0]["auto"]) == ("raise", False)
    await ann.wait_table("alpha", lambda s: s["phase"] == "waiting")
    net = snap["seats"][0]["result"]["net"]
    await assert_books(books, ann, expected={ann.player_id: START + net})
    await ann.close()


async def test_a_duty_that_fails_for_no_named_reason_waits_and_is_never_dropped() -> None:
    """A settlement or fold that failed with a plain StoreError was dropped at once; a
    request's refusal (funds, a moved table) is still a definite answer."""
    tries: list[int] = []
    doubted: list[bool] = []

    async def settle() -> str:
        tries.append(1)
        if len(tries) == 1:
            raise StoreError("unexpected store reply")
        if len(tries) == 2:
            raise RuntimeError("no fault the store names")
        return "settled"

    pending = Pending()
    got = await until_known(
        settle,
        what="settle",
        op="r1",
        pending=pending,
        duty=True,
        in_doubt=lambda: doubted.append(True),
    )
    assert (got, len(tries), doubted, pending.writes) == ("settled", 3, [True], {})

    async def refused() -> str:
        raise InsufficientFunds("short")

    for duty in (True, False):
        with pytest.raises(InsufficientFunds):
            await until_known(refused, what="settle", op="r2", pending=pending, duty=duty)
    tries.clear()
    for failed in (StoreError, RuntimeError):  # a request: not retried, either of them
        with pytest.raises(failed):
            await until_known(settle, what="ante", op="a1", pending=pending)
    assert len(tries) == 2

    # in doubt already, a plain StoreError says nothing of the outcome: it was answered
    # store_unavailable ("nothing was applied") though the first try may have landed
    answers: list[Exception | str] = [
        OutcomeUnknown("no answer"),
        StoreError("the Redis store is closed"),
        "applied",
    ]

    async def raise_() -> str:
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert await until_known(raise_, what="raise", op="d1", pending=pending) == "applied"


async def test_a_duty_failing_for_a_bug_logs_its_traceback_once_not_at_every_try(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A duty that failed for a bug (no fault the store names) wrote its traceback at
    every try, every two seconds for as long as it waited: once now, then as the
    store's other retry loops do (a line a minute with the count)."""
    monkeypatch.setattr(durable, "FIRST_DELAY", 0.001)
    monkeypatch.setattr(durable, "MAX_DELAY", 0.001)
    tries: list[int] = []

    async def settle() -> str:
        tries.append(1)
        if len(tries) < 8:
            raise RuntimeError("no fault the store names")
        return "settled"

    with caplog.at_level(logging.INFO, logger="stud.durable"):
        got = await until_known(settle, what="settle", op="r1", pending=Pending(), duty=True)
    assert got == "settled" and len(tries) == 8
    bugs = [r for r in caplog.records if "failed unexpectedly" in r.getMessage()]
    assert len(bugs) == 1 and bugs[0].exc_info is not None, [r.getMessage() for r in bugs]


async def test_scripts_lost_again_before_the_retry_ran_is_unavailable_not_a_crash(
    private_redis: RedisServer,
) -> None:
    """SCRIPT FLUSHes a few ms apart: the reload, then NOSCRIPT again. That second miss
    escaped as a bare exception no one retried: a timer's fold was dropped (its round
    left open, the holds stuck) and requests were answered internal_error."""
    store = await RedisStore.connect(private_redis.url, fresh_namespace(), timeout=2.0)
    try:
        pid = (await store.create_player("a", 10_000, 0)).player_id
        run = store._run
        flushes = [1]  # the scripts flushed again right after the next reload

        async def flushed_after_load(what: str, command: Any, *, write: bool = False) -> Any:
            result = await run(what, command, write=write)
            if what == "SCRIPT LOAD" and flushes[0]:
                flushes[0] -= 1
                private_redis.command("SCRIPT", "FLUSH")
            return result

        store._run = flushed_after_load  # type: ignore[method-assign]
        private_redis.command("SCRIPT", "FLUSH")
        ante = [Transfer("r1", 0, Reason.ANTE, player_account(pid), HOUSE, 100)]
        with pytest.raises(StoreUnavailable):  # nothing ran: certainly not applied
            await store.bet(Fence("r1", 0), "r1:ante", ante, [Hold("r1", 0, pid, 200)])
        assert await store.wallet(pid) == Wallet(10_000, 0, 0)
        # a duty repeats it until it lands, once
        flushes[0] = 1
        private_redis.command("SCRIPT", "FLUSH")
        landed = await until_known(
            lambda: store.bet(Fence("r1", 0), "r1:ante", ante, [Hold("r1", 0, pid, 200)]),
            what="ante",
            op="r1:ante",
            pending=Pending(),
            duty=True,
        )
        assert landed == Wallet(9_900, 0, 200) == await store.wallet(pid)
    finally:
        await store.close()


async def test_a_resume_whose_token_lookup_went_unanswered_is_said_truthfully(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The lookup notes the token's use (a write of no money): unanswered, the hello was
    refused store_unavailable saying "the outcome is unknown", which that code says
    never is."""
    server = await make_server()
    ann = await connect(server, "ann")
    token = ann.token
    await ann.close()
    lookup = server.store.player_by_token

    async def unanswered(*args: Any, **kwargs: Any) -> Any:
        server.store.player_by_token = lookup  # type: ignore[method-assign]
        raise OutcomeUnknown("the game's data store (Redis) did not answer; outcome unknown")

    server.store.player_by_token = unanswered  # type: ignore[method-assign]
    again = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    with pytest.raises(ServerError) as e:
        await again.hello(token=token)
    assert e.value.code == "store_unavailable" and "unknown" not in str(e.value), e.value
    await again.hello(token=token)  # said again: resumed
    assert again.player_id == ann.player_id
    await again.close()


@pytest.mark.parametrize("how", ["hello", "login"])
async def test_a_sign_in_counter_unanswered_is_said_as_nothing_done(
    make_server: ServerFactory, connect: ClientFactory, how: str
) -> None:
    """A new player's hello (or a sign-in) counts itself first, a write of no money; that
    write unanswered was refused store_unavailable saying "the outcome is unknown",
    which that code says never is. No player was made, no one signed in: it says so."""
    server = await make_server(accounts={"max_new_players_per_address": 5})
    ann = await connect(server, "ann")
    await ann.register("ann_78", "a long enough password")
    count = server.store.add_failure

    async def unanswered(*args: Any, **kwargs: Any) -> Any:
        server.store.add_failure = count  # type: ignore[method-assign]
        raise OutcomeUnknown("the game's data store (Redis) did not answer; outcome unknown")

    again = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    server.store.add_failure = unanswered  # type: ignore[method-assign]
    with pytest.raises(ServerError) as e:
        if how == "hello":
            await again.hello(name="bo")
        else:
            await again.login("ann_78", "a long enough password")
    assert e.value.code == "store_unavailable" and "unknown" not in str(e.value), e.value
    if how == "hello":
        await again.hello(name="bo")  # said again: made
    else:
        await again.login("ann_78", "a long enough password")
        assert again.player_id == ann.player_id
    await again.close()


@pytest.mark.parametrize("how", ["resume", "login"])
async def test_a_welcome_whose_wallet_read_fails_leaves_the_connection_as_it_was(
    make_server: ServerFactory, connect: ClientFactory, how: str
) -> None:
    """The connection was made the player's, and their older one closed, before the
    wallet was read: that read refused, the hello was answered store_unavailable, yet
    saying it again was refused already_welcomed, and a sign-in on a guest's connection
    left it neither the guest's nor the account's."""
    server = await make_server()
    ann = await connect(server, "ann")
    await ann.register("ann_77", "a long enough password")
    wallet = server.store.wallet

    async def unanswered(player_id: str) -> Wallet:
        server.store.wallet = wallet  # type: ignore[method-assign]
        raise StoreUnavailable("the game's data store (Redis) is unreachable")

    again = await connect(server, None if how == "resume" else "guest")
    guest = again.player_id if how == "login" else None
    server.store.wallet = unanswered  # type: ignore[method-assign]
    with pytest.raises(ServerError) as e:
        if how == "resume":
            await again.hello(token=ann.token)
        else:
            await again.login("ann_77", "a long enough password")
    assert e.value.code == "store_unavailable"
    assert (await ann.request("balance"))["t"] == "ok"  # the older connection still stands
    if how == "login":  # still the guest's
        assert (await again.request("balance"))["t"] == "ok" and again.player_id == guest
        await again.login("ann_77", "a long enough password")
    else:
        await again.hello(token=ann.token)  # said again: resumed
    assert again.player_id == ann.player_id


async def test_a_table_resumes_once_every_write_in_doubt_is_answered(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Two players' raises went into doubt together; the first answered resumed the
    table, its clock running while the second player's raise was still being retried."""
    server = await make_server()
    ann, bob = await connect(server, "ann"), await connect(server, "bob")
    for n, c in enumerate((ann, bob)):
        await c.request("sit", table="alpha", seat=n)
        await c.request("ante", table="alpha", seat=n, amount=100)
    for c in (ann, bob):
        await c.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
    apply, gate, tries = server.store.apply, asyncio.Event(), {"0": 0, "1": 0}
    both = asyncio.Barrier(2)  # the two raises' first tries are out together

    async def in_doubt_first(fence: Fence, op: str, *args: Any) -> Any:
        seat = op.split(":")[1]  # "<round>:<seat>:<step>:<n>"
        tries[seat] += 1
        if tries[seat] == 1:
            await both.wait()
            raise OutcomeUnknown("the game's data store did not answer; outcome unknown")
        if seat == "1":
            await gate.wait()
        return await apply(fence, op, *args)

    server.store.apply = in_doubt_first  # type: ignore[method-assign, assignment]
    room = server.rooms["alpha"]
    raising = asyncio.ensure_future(bob.request("raise", table="alpha", seat=1))
    try:
        assert (await ann.request("raise", table="alpha", seat=0))["t"] == "ok"
        assert tries["1"] >= 2 and not raising.done()
        assert room.suspended is not None  # bob's raise is in doubt yet
    finally:
        gate.set()
    assert (await raising)["t"] == "ok"
    assert room.suspended is None


async def test_a_wallet_moved_while_the_welcome_read_it_is_shown(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The welcome reads the wallet before the connection is the player's (a refused
    read leaves the connection as it was); a change pushed meanwhile went to the older
    connection alone, and the new one kept the welcome's stale balance."""
    server = await make_server()
    ann = await connect(server, "ann")
    store = server.store
    wallet = store.wallet

    async def read_then_moved(player_id: str) -> Wallet:
        del store.wallet  # once
        read = await wallet(player_id)
        await ann.request("buy_chips", amount=500)  # meanwhile, pushed to ann's connection
        return read

    store.wallet = read_then_moved  # type: ignore[method-assign]
    again = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        welcome = await again.hello(token=ann.token)
        truth = (await wallet(ann.player_id)).balance
        assert welcome["balance"]["balance"] == truth, (welcome["balance"], truth)
    finally:
        await again.close()
