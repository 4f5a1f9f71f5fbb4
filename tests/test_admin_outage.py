"""The operator console while Redis is away: what this process knows of itself (its
tables, their suspension, its own facts) is still shown, marked as read without the
store; what only the store knows is null, and the books are refused (503)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import pytest

from clients.connection import StudClient
from server.admin import operators
from server.admin.operators import Operators
from server.admin.store_watch import StoreWatch
from server.app import StudServer
from server.config import AdminConfig
from server.fleet import Fleet
from server.stores.base import StoreUnavailable
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.console import Operator, http, new_id, with_console
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit
from tests.test_admin_api import ConsoleFactory, make_console

__all__ = ["make_console", "private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

TTL = 1.5


@pytest.fixture
async def console(private_redis: RedisServer) -> AsyncIterator[StudServer]:
    namespace = fresh_namespace()
    config = with_console(make_config(tables=[{"id": "alpha", "variant": "casino-stud"}]))
    config = replace(config, fleet_ttl=TTL, store_timeout=0.5)
    store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=0.5)
    side = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=0.5)
    server = StudServer(config, store=store, fleet=Fleet(side, "here", "ws://here", ttl=TTL))
    await server.start()
    try:
        yield server
    finally:
        await server.stop(grace=0)
        await side.close()


async def until(check: Callable[[], Any], what: str) -> None:
    for _ in range(400):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_the_console_shows_this_process_s_tables_while_redis_is_away(
    console: StudServer, private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="stud")
    op = await Operator.sign_in(console)
    gone = await Operator.sign_in(console, "bert")
    assert (await http(op.port, "DELETE", "/api/session", token=gone.token)).status == 200
    before = await op.get("/api/overview")
    assert before["store_reachable"] is True and before["books_sum"] == 0
    private_redis.stop()
    room = console.rooms["alpha"]
    await until(lambda: room.suspended is not None, "the table is suspended")

    overview = await op.get("/api/overview")
    assert overview["store_reachable"] is False
    assert overview["process_id"] == console.process_id
    assert overview["store"] == "RedisStore"
    assert overview["tables"] == 1
    assert overview["jackpots"] == before["jackpots"]
    assert overview["books_sum"] is None and overview["pending_acts"] is None
    assert overview["processes"] is None

    listed = await op.get("/api/tables")
    assert listed["store_reachable"] is False
    [alpha] = listed["tables"]
    assert alpha["id"] == "alpha" and alpha["here"] is True
    assert alpha["suspended"] == room.suspended.reason  # type: ignore[union-attr]
    assert alpha["phase"] == "suspended"
    assert alpha["last_hour"] is None  # the hold statistics are in the store

    detail = await op.get("/api/tables/alpha")
    assert detail["store_reachable"] is False and detail["here"] is True
    assert detail["view"]["table"] == "alpha"
    assert detail["audit"] is None and detail["history"] is None
    assert detail["pending_acts"] is None

    pending = await op.get("/api/pending")
    assert pending["store_reachable"] is False and pending["acts"] is None
    assert [p["process_id"] for p in pending["processes"]] == [console.process_id]

    books = await http(op.port, "GET", "/api/books", token=op.token)
    assert books.status == 503 and books.json["error"] == "store_unavailable"
    # said to an operator as what it is: nothing was applied (not "lost during a script")
    assert "nothing was applied" in books.json["message"]
    # only a token the store confirmed to this process, and not signed out, is taken
    for token in (gone.token, "a-token-nobody-was-given"):
        refused = await http(op.port, "GET", "/api/overview", token=token)
        assert refused.status == 503 and refused.json["error"] == "store_unavailable"

    private_redis.start()
    await until(lambda: room.suspended is None, "the table resumes")
    store = console.store
    assert isinstance(store, RedisStore)
    await until(lambda: store.connected, "the store's connection is back")
    # the console's reads try the store again once its PING is answered (in the
    # background, a second or two at most): not at each request while it stood still
    await until(lambda: not console.admin.watch.away, "the console sees the store back")
    # the log speaks to operators: the cause, not the advice written for players
    said = [r.getMessage() for r in caplog.records if r.name.startswith("stud")]
    assert any("Redis" in line and "failed" in line for line in said), said
    assert not [line for line in said if "try again shortly" in line]
    after = await op.get("/api/overview")
    assert after["store_reachable"] is True and after["books_sum"] == 0
    assert (await op.get("/api/tables"))["store_reachable"] is True


async def test_a_remembered_token_reads_but_never_acts_while_the_store_is_away(
    make_console: ConsoleFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """The token the store confirmed earlier stood in for it for every request: an act
    whose token read failed (Redis stalled a moment) was applied and audited under an
    operator the store had removed. It stands in for the store-free reads only; the
    refused act's log line still names who sent it, as this process last knew."""
    server = await make_console()
    op = await Operator.sign_in(server)
    caplog.set_level(logging.INFO, logger="stud.admin")
    admin = server.admin.admin
    assert await admin.remove_operator("olga")  # removed (say on another process)
    real = admin.operator_for_token

    async def unanswered(token: str) -> Any:  # the store away for the token's read
        raise StoreUnavailable("the game's data store (Redis) did not answer")

    admin.operator_for_token = unanswered  # type: ignore[method-assign]
    try:
        await op.post(
            "/api/tables/alpha/pause", {"action_id": new_id(), "reason": "no"}, status=503
        )
        await op.get("/api/tables")  # a read this process answers
    finally:
        admin.operator_for_token = real  # type: ignore[method-assign]
    assert server.rooms["alpha"].paused is None
    lines = [r for r in caplog.records if r.getMessage() == "console request"]
    assert [(r.operator, r.status) for r in lines][-2] == ("olga", 503)  # type: ignore[attr-defined]


async def test_a_token_signed_in_elsewhere_is_remembered_a_minute_not_its_whole_life(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A token another process issued was remembered a whole token_ttl from its first
    use here, so one used here a second before it expired was honoured long after."""
    clock = [1_000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])  # the operators' clock
    tokens: dict[str, str] = {"tok": "olga"}
    down = [False]

    class Admin:
        async def operator_for_token(self, token: str) -> str | None:
            if down[0]:
                raise StoreUnavailable("the game's data store (Redis) is unreachable")
            return tokens.get(token)

    config = replace(AdminConfig(), token_ttl=900.0)
    watch = StoreWatch(MemoryStore(), lambda coro: coro.close())  # never back: no PING
    ops = Operators(Admin(), None, None, config, None, "", watch)  # type: ignore[arg-type]
    assert await ops.check("tok") == "olga"  # its last second in the store, say
    down[0] = True
    assert await ops.check("tok", cached=True) == "olga"  # at once: remembered
    clock[0] += operators.CONFIRMED_ELSEWHERE + 1
    with pytest.raises(StoreUnavailable):
        await ops.check("tok", cached=True)
    with pytest.raises(StoreUnavailable):
        await ops.check("tok")  # and for anything but those reads, never


async def test_a_redis_standing_still_costs_the_console_one_wait_not_one_per_request(
    private_redis: RedisServer,
) -> None:
    """Each console request while Redis stood still asked the store for its token
    first, and waited: the store's timeout while the connection stayed open, a
    reconnect's wait once it was dropped. With the seen mark and the read itself, up to
    three waits a request. Once a store call has failed, the reads that can go without
    the store do, until a PING is answered again."""
    config = with_console(make_config(tables=[{"id": "alpha", "variant": "casino-stud"}]))
    store = await RedisStore.connect(private_redis.url, namespace=fresh_namespace(), timeout=0.5)
    console = StudServer(replace(config, store_timeout=0.5), store=store)
    await console.start()
    asked: list[str] = []
    run = store._run

    async def counted(what: str, command: Any, *, write: bool = False) -> Any:
        asked.append(what)
        return await run(what, command, write=write)

    try:
        op = await Operator.sign_in(console)
        assert (await op.get("/api/overview"))["store_reachable"] is True
        store._run = counted  # type: ignore[method-assign]
        assert private_redis.process is not None
        os.kill(private_redis.process.pid, signal.SIGSTOP)
        try:
            first = await op.get("/api/overview")  # finds the store standing still
            assert first["store_reachable"] is False
            asked.clear()
            for path in ("/api/overview", "/api/tables", "/api/tables/alpha", "/api/pending"):
                answer = await op.get(path)
                assert answer["store_reachable"] is False, path
            # the console waited on nothing: the store was asked the PING, no read
            assert set(asked) <= {"a PING"}, asked
        finally:
            os.kill(private_redis.process.pid, signal.SIGCONT)
        await until(lambda: not console.admin.watch.away, "the PING answered")
        assert (await op.get("/api/overview"))["store_reachable"] is True
    finally:
        await console.stop(grace=0)


async def test_a_table_with_a_write_in_doubt_shows_its_snapshot_of_now(
    make_console: ConsoleFactory,
) -> None:
    """While a write was in hand at a table, the console showed the snapshot it had seen
    when it last looked at an idle table: minutes old, another round, another phase,
    marked as fresh. The table's snapshot then is what its viewers see: the deal."""
    server = await make_console(timers={"betting": 30, "decision": 30, "results": 30})
    op = await Operator.sign_in(server)
    ann = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await ann.hello(name="ann")
        await ann.request("sit", table="alpha", seat=0)
        await ann.request("ante", table="alpha", seat=0, amount=500)
        looked = await op.get("/api/tables/alpha")  # while betting, the table idle
        assert looked["view"]["phase"] == "betting"
        await ann.request("deal", table="alpha")
        await ann.wait_table("alpha", lambda t: t["phase"] == "deciding")
        entered, gate = asyncio.Event(), asyncio.Event()
        apply = server.store.apply

        async def held(*args: Any) -> Any:
            entered.set()
            await gate.wait()
            return await apply(*args)

        setattr(server.store, "apply", held)  # noqa: B010 - held at the store
        raised = asyncio.ensure_future(ann.request("raise", table="alpha", seat=0))
        await asyncio.wait_for(entered.wait(), 5)
        try:
            now = await op.get("/api/tables/alpha")
            assert now["view"]["phase"] == "deciding"
            assert now["view"]["round_id"] == looked["view"]["round_id"]
        finally:
            gate.set()
            await raised
    finally:
        await ann.close()
