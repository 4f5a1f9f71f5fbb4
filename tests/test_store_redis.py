"""What only the Redis store can go through: lost scripts, lost connections, a
restarted server, other namespaces on the same server. Each test that disturbs
Redis has a redis-server of its own."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import asyncio_redis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.game.ledger import HOUSE, Hold, JackpotClaim, Reason, Transfer, player_account
from server.stores.base import Fence, OutcomeUnknown, Player, StoreError, Wallet
from server.stores.redis import RedisStore, parse_redis_url
from server.stores.redis_origin import eviction_risk, persistence_gap
from tests.redis_fixture import (
    RedisServer,
    drop_namespace,
    free_port,
    fresh_namespace,
    private_redis,  # noqa: F401 - a fixture
    raw_connection,
    redis_url,  # noqa: F401 - a fixture
    start_redis,
    time_limit,  # noqa: F401 - a fixture
)
from tests.test_store_contract import ante, raise_, record

pytestmark = pytest.mark.usefixtures("time_limit")

T = TypeVar("T")
JP = "main"
SEED = 10_000
ALPHA = Fence("alpha", 0)


async def eventually(call: Callable[[], Awaitable[T]], within: float = 20.0) -> T:
    """Retry `call` while it raises StoreError (the store is reconnecting)."""
    deadline = time.monotonic() + within
    while True:
        try:
            return await asyncio.wait_for(call(), within)
        except StoreError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def connect(server: RedisServer, namespace: str = "stud") -> RedisStore:
    return await RedisStore.connect(
        server.url, namespace, timeout=2.0, reconnect_wait=0.3, max_backoff=0.2
    )


def scripts_sent(store: RedisStore) -> list[str]:
    """What each EVALSHA the store sends from now on ran ("5 table writes", "the settle
    script"...), in order: the list fills as they go."""
    sent: list[str] = []
    evalsha = store._evalsha

    async def spy(what: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(what)
        return await evalsha(what, *args, **kwargs)

    store._evalsha = spy  # type: ignore[method-assign]
    return sent


async def play_a_round(store: RedisStore, rid: str) -> str:
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("p", 10_000, 0)
    me = player_account(p.player_id)
    bet = [Transfer(rid, 0, Reason.ANTE, me, HOUSE, 100)]
    await store.bet(ALPHA, f"{rid}:ante", bet, [Hold(rid, 0, p.player_id, 200)])
    await store.settle(ALPHA, rid, [], [], JP, SEED, {"table": "alpha", "seats": []})
    return p.player_id


async def test_scripts_are_reloaded_after_script_flush(
    private_redis: RedisServer,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = await connect(private_redis)
    try:
        pid = await play_a_round(store, "r1")
        assert private_redis.command("SCRIPT", "FLUSH") == "+OK"
        raw = await raw_connection(private_redis.url)
        try:
            shas = list(store.script_shas.values())
            assert await raw.script_exists(shas) == [False] * len(shas)
            # the next call meets NOSCRIPT, loads the scripts again and goes through
            assert await store.wallet(pid) == Wallet(9_900, 0, 0)
            assert await raw.script_exists(shas) == [True] * len(shas)
        finally:
            raw.close()
        await play_a_round(store, "r2")
        assert sum((await store.totals()).values()) == 0
        # a caller's own script gets the same care
        incr = "return redis.call('INCRBY', KEYS[1], ARGV[1])"
        key = store.prefix + "counter"
        caplog.clear()
        assert await store.eval_script(incr, [key], ["2"]) == 2
        lost = [r for r in caplog.records if "lost the store's scripts" in r.getMessage()]
        assert lost == []  # a first use is no news: nothing was lost
        private_redis.command("SCRIPT", "FLUSH")
        assert await store.eval_script(incr, [key], ["3"]) == 5
        lost = [r for r in caplog.records if "lost the store's scripts" in r.getMessage()]
        assert [r.levelname for r in lost] == ["WARNING"]
    finally:
        await store.close()


async def test_script_replies_leave_no_garbage_for_the_cycle_collector(
    private_redis: RedisServer,  # noqa: F811
) -> None:
    """Every reply decodes as asyncio-redis decodes it, and the hot path (a string, a
    number, nil) builds no reference cycle: at thousands of calls a second such cycles
    kept the cycle collector busy."""
    store = await connect(private_redis)
    try:
        await play_a_round(store, "r1")  # scripts loaded, connections warm
        scripts = ("return 'text'", "return 7", "return nil")
        for script in scripts:  # first use: NOSCRIPT, an error reply, then loaded
            await store.eval_script(script)
        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable stays here
        try:
            pid = await play_a_round(store, "r2")
            replies = [await store.eval_script(script) for script in scripts]
            gc.collect()
            cycles = len(gc.garbage)
            gc.garbage.clear()
            nested = await store.eval_script("return {1, 'two', {3}}")
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert cycles == 0
        assert replies == ["text", 7, None]
        assert nested == [1, "two", [3]]
        assert await store.wallet(pid) == Wallet(9_900, 0, 0)
    finally:
        await store.close()


async def test_redis_restart_fails_fast_then_reconnects(private_redis: RedisServer) -> None:  # noqa: F811
    store = await connect(private_redis)
    try:
        pid = await play_a_round(store, "r1")
        private_redis.stop()
        for call in (
            lambda: store.wallet(pid),
            lambda: store.meter(JP),
            lambda: store.create_player("q", 1, 0),
            lambda: store.settle(ALPHA, "r2", [], [], JP, SEED, {"seats": []}),
        ):
            with pytest.raises(StoreError) as e:
                await asyncio.wait_for(call(), 10)  # an error, not a hang
            assert e.value.code == "store_unavailable"
            assert "Redis" in e.value.message
        # many callers at once during the outage: each gets its error
        outcomes = await asyncio.wait_for(
            asyncio.gather(*(store.wallet(pid) for _ in range(20)), return_exceptions=True), 10
        )
        assert all(isinstance(o, StoreError) for o in outcomes)

        private_redis.start()  # same port, with its data (but not its scripts)
        assert await eventually(lambda: store.wallet(pid)) == Wallet(9_900, 0, 0)
        assert store.reconnects >= 1 and not store.data_lost
        await play_a_round(store, "r2")  # scripts loaded again on the new server
        assert sum((await store.totals()).values()) == 0
    finally:
        await store.close()


async def test_a_redis_back_without_its_data_is_refused_until_it_has_it_again(
    private_redis: RedisServer,  # noqa: F811
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Redis that keeps nothing on disk comes back empty: every wallet, token and
    meter gone. Serving on would hand out fresh credits and call the books whole, so
    the store stays unavailable, says why once, and takes its data back when an
    operator restores it."""
    store = await connect(private_redis)
    try:
        pid = await play_a_round(store, "r1")
        private_redis.stop()
        saved = private_redis.dir / "dump.rdb"
        kept = saved.read_bytes()
        private_redis.forget()
        private_redis.start()  # empty
        for _ in range(200):  # a call finds the old connection gone and reconnects
            with pytest.raises(StoreError) as e:
                await store.wallet(pid)
            if store.data_lost:
                break
            await asyncio.sleep(0.05)
        assert store.data_lost
        with pytest.raises(StoreError) as e:
            await store.wallet(pid)
        assert e.value.code == "store_unavailable" and "without its data" in e.value.message
        with pytest.raises(StoreError):
            await store.create_player("q", 1, 0)  # nothing is written to the empty one
        errors = [r for r in caplog.records if r.levelname == "ERROR"]
        assert len(errors) == 1 and "without its data" in errors[0].getMessage()
        raw = await raw_connection(private_redis.url)
        try:
            # nothing but the note that keeps a process starting later off the empty store
            assert await (await raw.scan(match="*")).fetchall() == ["{stud}:origin_lost"]
        finally:
            raw.close()
        private_redis.stop()
        saved.write_bytes(kept)  # the operator restores the backup
        private_redis.start()
        assert await eventually(lambda: store.wallet(pid)) == Wallet(9_900, 0, 0)
        assert not store.data_lost
        assert sum((await store.totals()).values()) == 0
        later = await connect(private_redis)  # the restore took the empty one's note away
        await later.close()
    finally:
        await store.close()


async def test_a_new_store_writes_its_marker_once(
    private_redis: RedisServer,  # noqa: F811
) -> None:
    """The first process on an empty namespace marks it; later ones find the mark and
    keep it (a restart of every process is how an operator accepts an empty store)."""
    first = await connect(private_redis)
    second = await connect(private_redis)
    try:
        raw = await raw_connection(private_redis.url)
        try:
            marks = await (await raw.scan(match="{stud}:origin")).fetchall()
            assert marks == ["{stud}:origin"]
        finally:
            raw.close()
        assert first.origin == second.origin != ""
    finally:
        await first.close()
        await second.close()


async def test_a_killed_connection_is_replaced(private_redis: RedisServer) -> None:  # noqa: F811
    store = await connect(private_redis)
    try:
        pid = await play_a_round(store, "r1")
        killed = private_redis.command("CLIENT", "KILL", "TYPE", "normal")
        assert killed == ":1"
        assert await eventually(lambda: store.wallet(pid)) == Wallet(9_900, 0, 0)
        assert store.reconnects == 1
        assert await store.open_rounds("alpha") == []
    finally:
        await store.close()


async def test_a_failing_script_is_a_store_error(private_redis: RedisServer) -> None:  # noqa: F811
    store = await connect(private_redis, "broken")
    try:
        private_redis.command("SET", "{broken}:acct", "not a hash")
        with pytest.raises(StoreError) as e:
            await asyncio.wait_for(store.create_player("p", 100, 0), 10)
        assert "WRONGTYPE" in e.value.message
        assert await store.player_by_token("nothing") is None  # the store still works
    finally:
        await store.close()


async def test_namespaces_do_not_see_each_other(private_redis: RedisServer) -> None:  # noqa: F811
    a = await connect(private_redis, "a")
    b = await connect(private_redis, "b")
    try:
        player = await a.create_player("p", 5_000, 0)
        pid = await play_a_round(a, "r1")
        me = player_account(player.player_id)
        await a.bet(ALPHA, "r2:ante", [Transfer("r2", 0, Reason.ANTE, me, HOUSE, 100)], [])

        assert await b.player_by_token(player.token) is None
        assert await b.wallet(pid) == Wallet(0, 0, 0)
        assert await b.totals() == {}
        assert await b.meters() == {}
        assert await b.history(pid) == []
        assert await b.open_rounds("alpha") == []
        assert await b.recover(ALPHA) == []
        assert await a.open_rounds("alpha") == ["r2"]
        # the same round id settles separately in each namespace
        await play_a_round(b, "r1")
        assert (await a.wallet(pid)).balance == 9_900

        raw = await raw_connection(private_redis.url)
        try:
            keys = await raw.keys_aslist("*")
        finally:
            raw.close()
        assert keys
        assert all(k.startswith(("{a}:", "{b}:")) for k in keys), keys
    finally:
        await a.close()
        await b.close()


async def test_connecting_to_nothing_fails_with_a_store_error() -> None:
    with pytest.raises(StoreError) as e:
        await asyncio.wait_for(RedisStore.connect(f"redis://127.0.0.1:{free_port()}/0"), 20)
    assert e.value.code == "store_unavailable"
    with pytest.raises(StoreError):
        RedisStore("redis://127.0.0.1:6379/0", namespace="bad namespace!")


def test_redis_urls() -> None:
    assert parse_redis_url("redis://localhost") == ("localhost", 6379, 0, None)
    assert parse_redis_url("redis://:s%40cret@10.0.0.2:7000/3") == ("10.0.0.2", 7000, 3, "s@cret")
    assert parse_redis_url("unix:///run/redis.sock") == ("/run/redis.sock", 0, 0, None)
    for bad in ("http://localhost", "redis://localhost/x", "redis://user:pw@localhost"):
        with pytest.raises(StoreError):
            parse_redis_url(bad)


async def test_password_and_database_from_the_url() -> None:
    """AUTH and SELECT go out before anything else (asyncio-redis sends them late)."""
    server = start_redis(password="s3cret")
    try:
        url = f"redis://:s3cret@127.0.0.1:{server.port}/2"
        store = await RedisStore.connect(url, "db2", timeout=5)
        try:
            await play_a_round(store, "r1")
        finally:
            await store.close()
        raw = await raw_connection(url)
        try:
            assert await raw.keys_aslist("{db2}:*")
            await raw.select(0)
            assert await raw.keys_aslist("*") == []
        finally:
            raw.close()
        with pytest.raises(StoreError):
            await RedisStore.connect(f"redis://:wrong@127.0.0.1:{server.port}/2", timeout=5)
    finally:
        server.cleanup()


async def test_the_writes_of_one_turn_go_to_redis_as_one_script(
    private_redis: RedisServer,  # noqa: F811
) -> None:
    """Bets of several tables sent in one event-loop turn are one EVALSHA; each still
    has its own outcome, a failing one included; a lost round trip is every caller's
    unknown outcome, and each one's retry with its op id lands it exactly once."""
    store = await connect(private_redis)
    try:
        await store.ensure_meter(JP, SEED)
        players = [(await store.create_player(f"p{i}", 10_000, 0)).player_id for i in range(4)]
        sent = scripts_sent(store)

        def bet(i: int, pid: str, op: str) -> Awaitable[Wallet]:
            ante = [Transfer(f"r{i}", 0, Reason.ANTE, player_account(pid), HOUSE, 100)]
            return store.bet(Fence(f"t{i}", 0), op, ante, [Hold(f"r{i}", 0, pid, 200)])

        gc.collect()
        gc.disable()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            outcomes = await asyncio.gather(
                *(bet(i, pid, f"op{i}") for i, pid in enumerate(players)),
                store._script("bet", {"table": "t9"}),  # malformed: its script fails alone
                return_exceptions=True,
            )
            gc.collect()
            cycles = len(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
        assert sent == ["5 table writes"]
        assert outcomes[:4] == [Wallet(9_900, 0, 200)] * 4
        # a script's own error may come after part of its write: its outcome is unknown
        assert isinstance(outcomes[4], OutcomeUnknown) and "batched write" in str(outcomes[4])
        assert cycles == 0

        assert private_redis.process is not None
        os.kill(private_redis.process.pid, signal.SIGSTOP)
        try:
            lost = await asyncio.gather(
                *(bet(i, pid, f"again{i}") for i, pid in enumerate(players)),
                return_exceptions=True,
            )
        finally:
            os.kill(private_redis.process.pid, signal.SIGCONT)
        assert all(isinstance(e, OutcomeUnknown) for e in lost), lost
        retried = []
        for i, pid in enumerate(players):

            async def retry(i: int = i, pid: str = pid) -> Wallet:
                return await bet(i, pid, f"again{i}")

            retried.append(await eventually(retry))
        again = await asyncio.gather(*(bet(i, pid, f"again{i}") for i, pid in enumerate(players)))
        assert retried == again  # replays: each applied once
        for pid in players:
            assert await store.wallet(pid) == Wallet(9_800, 0, 400)
        assert sum((await store.totals()).values()) == 0
    finally:
        await store.close()


async def test_settlements_of_one_turn_join_its_batch_with_their_records(
    private_redis: RedisServer,  # noqa: F811
) -> None:
    """Two rounds settled and a bet placed in one turn are one EVALSHA; each round keeps
    its own record (passed beside the batch, not inside its JSON), its payout and, when
    settled again alone, its replay."""
    store = await connect(private_redis)
    try:
        await store.ensure_meter(JP, SEED)
        a, b, c = [(await store.create_player(n, 10_000, 0)).player_id for n in "abc"]
        for rid, pid in (("r1", a), ("r2", b)):
            ante = [Transfer(rid, 0, Reason.ANTE, player_account(pid), HOUSE, 100)]
            await store.bet(Fence(rid, 0), f"{rid}:ante", ante, [Hold(rid, 0, pid, 200)])
        sent = scripts_sent(store)

        def records(rid: str, pid: str) -> dict[str, Any]:
            return {"round_id": rid, "table": rid, "seats": [{"player_id": pid, "note": '"q"'}]}

        def settle(rid: str, pid: str, won: int) -> Awaitable[Any]:
            pay = [Transfer(rid, 0, Reason.PAYOUT, HOUSE, player_account(pid), won)]
            return store.settle(Fence(rid, 0), rid, pay, [], JP, SEED, records(rid, pid))

        ante = [Transfer("r3", 0, Reason.ANTE, player_account(c), HOUSE, 100)]
        one, two, bet = await asyncio.gather(
            settle("r1", a, 300),
            settle("r2", b, 500),
            store.bet(Fence("r3", 0), "r3:ante", ante, [Hold("r3", 0, c, 200)]),
        )
        assert sent == ["3 table writes"]
        assert not one.replayed and not two.replayed
        assert one.wallets[a] == Wallet(10_200, 0, 0) and two.wallets[b] == Wallet(10_400, 0, 0)
        assert bet == Wallet(9_900, 0, 200)
        for rid, pid in (("r1", a), ("r2", b)):
            (entry,) = await store.table_history(rid)
            assert {k: entry[k] for k in ("round_id", "table", "seats")} == records(rid, pid)
        again = await settle("r1", a, 300)
        assert again.replayed and sent[-1] == "the settle script"
        assert sum((await store.totals()).values()) == 0
    finally:
        await store.close()


#: One write of a generated turn (those the store batches): kind, table, round (2: one
#: id both tables use), seat, player, amount; "again" sends the write `seat` places
#: earlier once more, with its op id.
turn_writes = st.lists(
    st.tuples(
        st.sampled_from(["bet", "bet+", "raise", "fold", "settle", "again"]),
        st.integers(0, 1),
        st.integers(0, 2),
        st.integers(0, 2),
        st.integers(0, 2),
        st.sampled_from([100, 700, 4_000]),
    ),
    min_size=2,
    max_size=16,
)


def turn_call(store: RedisStore, writes: list[tuple[Any, ...]], i: int) -> Awaitable[Any]:
    """The store call of `writes[i]`, the same in every run (its op id is its place)."""
    kind, table, round_, seat, player, amount = writes[i]
    if kind == "again" and i > 0:
        return turn_call(store, writes, max(0, i - 1 - seat))
    rid = "shared" if round_ == 2 else f"t{table}-r{round_}"
    fence, pid, op = Fence(f"t{table}", 0), f"p{player}", f"op{i}"
    me = player_account(pid)
    if kind in ("bet", "bet+", "again"):
        return store.bet(fence, op, *ante(rid, seat, pid, amount, kind == "bet+"))
    if kind == "raise":
        return store.apply(fence, op, *raise_(rid, seat, pid, amount))
    if kind == "fold":
        return store.apply(fence, op, [], [Hold(rid, seat, pid, -2 * amount)])
    pay = [Transfer(rid, seat, Reason.PAYOUT, HOUSE, me, amount)]
    claims = [JackpotClaim(rid, seat, pid, "FLUSH", 1_000 * (seat + 1))]
    rec = record(rid, (seat, pid), table=f"t{table}")
    return store.settle(fence, rid, pay, claims, JP, SEED, rec)


async def turn_outcomes(url: str, writes: list[tuple[Any, ...]], together: bool) -> list[Any]:
    """Every write's outcome, then the books, the wallets, histories and open rounds."""
    namespace = fresh_namespace()
    store = await RedisStore.connect(url, namespace)
    try:
        await store.ensure_meter(JP, SEED)
        for i, credits in enumerate((10_000, 10_000, 1_000)):
            await store.create_player(f"p{i}", credits, 0, Player(f"p{i}", f"p{i}", f"token{i}"))
        sent = scripts_sent(store)
        calls = [turn_call(store, writes, i) for i in range(len(writes))]
        if together:
            outcomes = await asyncio.gather(*calls, return_exceptions=True)
            assert sent == [f"{len(writes)} table writes"]
        else:
            outcomes = []
            for call in calls:
                try:
                    outcomes.append(await call)
                except StoreError as e:
                    outcomes.append(e)
        seen: list[Any] = [
            (type(o).__name__, str(o)) if isinstance(o, Exception) else o for o in outcomes
        ]
        seen.append(await store.totals())
        for i in range(3):
            seen += [await store.wallet(f"p{i}"), await store.history(f"p{i}")]
        for table in ("t0", "t1"):
            seen += [await store.open_rounds(table), await store.table_history(table)]
        return [json.loads(json.dumps(s, default=repr).replace(namespace, "NS")) for s in seen]
    finally:
        await store.close()
        await drop_namespace(url, namespace)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(writes=turn_writes)
def test_a_turns_writes_in_one_script_give_what_they_give_one_by_one(
    redis_url: str,  # noqa: F811 - the fixture
    writes: list[tuple[Any, ...]],
) -> None:
    """One EVALSHA runs a turn's writes in order, each as its own script would: what
    one write reads of wallets, rounds and epochs, after another changed them in the
    same script, is what it would read alone. Settlement times are the only difference."""

    async def both() -> tuple[list[Any], list[Any]]:
        return (
            await turn_outcomes(redis_url, writes, together=False),
            await turn_outcomes(redis_url, writes, together=True),
        )

    one_by_one, together = asyncio.run(both())
    assert strip_times(together) == strip_times(one_by_one)


def strip_times(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items() if k != "settled_at"}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    return value


async def test_a_redis_that_keeps_nothing_is_told_apart(
    private_redis: RedisServer,  # noqa: F811
) -> None:
    raw = await raw_connection(private_redis.url)
    try:
        assert await persistence_gap(raw) is None  # it saves (on shutdown, at least)
        assert private_redis.command("CONFIG", "SET", "save", "") == "+OK"
        assert "keeps nothing on disk" in str(await persistence_gap(raw))
        assert private_redis.command("CONFIG", "SET", "appendonly", "yes") == "+OK"
        assert await persistence_gap(raw) is None
    finally:
        raw.close()

    class Renamed:  # CONFIG renamed away, as hardened setups do: not reported
        async def config_get(self, parameter: str) -> Any:
            raise asyncio_redis.ErrorReply("ERR unknown command 'config'")

    assert await persistence_gap(Renamed()) is None


async def test_a_redis_that_may_evict_keys_is_told_apart(
    private_redis: RedisServer,  # noqa: F811
) -> None:
    """A maxmemory with an evicting policy would drop wallets to make room; noeviction
    refuses the write instead (the table waits, nothing is lost)."""
    raw = await raw_connection(private_redis.url)
    try:
        assert await eviction_risk(raw) is None  # no maxmemory
        assert private_redis.command("CONFIG", "SET", "maxmemory", "1000000000") == "+OK"
        assert private_redis.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru") == "+OK"
        risk = str(await eviction_risk(raw))
        assert "evicts keys" in risk and "allkeys-lru" in risk, risk
        assert private_redis.command("CONFIG", "SET", "maxmemory-policy", "noeviction") == "+OK"
        assert await eviction_risk(raw) is None
    finally:
        private_redis.command("CONFIG", "SET", "maxmemory", "0")
        raw.close()
