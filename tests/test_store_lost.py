"""A Redis wiped under a live process (FLUSHALL on the wrong server): once the loss is
known, nothing but the note `origin_lost` is written into the empty store, above all
no money (a meter and the house put back at the seed), so that restoring the backup,
or accepting the loss, stays the operator's call."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import shutil
import signal
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest

from clients.connection import ServerError, StudClient
from server.app import StudServer
from server.fleet import Fleet
from server.stores.admin_redis import RedisAdmin
from server.stores.base import Player, StoreError
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.redis_fixture import (
    RedisServer,
    fresh_namespace,
    private_redis,
    raw_connection,
    time_limit,
)
from tests.test_store_admin import act

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")


async def keys(url: str) -> set[str]:
    conn = await raw_connection(url)
    try:
        return {str(k) for k in await (await conn.keys("*")).aslist()}
    finally:
        conn.close()


async def solo(url: str, namespace: str) -> tuple[StudServer, RedisStore, RedisStore]:
    """A started server on `namespace`: its store, and its fleet's on a connection of its own."""
    store = await RedisStore.connect(url, namespace=namespace, timeout=2)
    side = await RedisStore.connect(url, namespace=namespace, timeout=2)
    server = StudServer(make_config(), store=store, fleet=Fleet(side, "solo", "", ttl=1.5))
    await server.start()
    return server, store, side


async def flushed(redis: RedisServer, *stores: RedisStore) -> None:
    """FLUSHALL, and each connection finding the mark gone at its next write."""
    assert redis.command("FLUSHALL") == "+OK"
    for _ in range(300):
        if all(s.data_lost for s in stores):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the loss was never found")


def backup(redis: RedisServer, name: str = "backup.rdb") -> None:
    """A backup as an operator takes one: SAVE, and the dump copied aside as `name`."""
    assert redis.command("SAVE") == "+OK"
    shutil.copy(redis.dir / "dump.rdb", redis.dir / name)


def restart(redis: RedisServer, on: str | None = None) -> None:
    """Stop Redis (it saves) and start it again: on the saved file `on`, if given."""
    redis.stop()
    if on is not None:
        shutil.copy(redis.dir / on, redis.dir / "dump.rdb")
    redis.start()


async def reconnected(store: RedisStore) -> None:
    """Until a call gets through again (a reconnect is made on a call's demand)."""
    for _ in range(300):
        try:
            await store.ping()
            return
        except StoreError:
            await asyncio.sleep(0.05)
    raise AssertionError("the store never came back")


@contextlib.asynccontextmanager
async def ann_at_alpha(
    redis: RedisServer,
) -> AsyncIterator[tuple[RedisStore, RedisStore, StudClient]]:
    """A server on a namespace of its own, and Ann seated at alpha's seat 1: its store,
    its fleet's, and Ann's connection."""
    server, store, side = await solo(redis.url, fresh_namespace())
    ann = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await ann.hello(name="ann")
        await ann.request("join", table="alpha")
        await ann.request("sit", table="alpha", seat=0)
        yield store, side, ann
    finally:
        await ann.close()
        await server.stop(grace=0)


async def dealt(ann: StudClient) -> dict[str, Any]:
    """Ann's $5 ante, dealt: the table's snapshot at the decision."""
    await ann.request("ante", table="alpha", seat=0, amount=500)
    await ann.request("deal", table="alpha")
    return await ann.wait_table("alpha", lambda t: t["phase"] == "deciding")


async def started_over(ann: StudClient) -> dict[str, Any]:
    """The table as it starts over: running again, Ann's seat gone."""
    return await ann.wait_table(
        "alpha", lambda t: t["suspended"] is None and t["seats"][0] is None, timeout=30
    )


@contextlib.asynccontextmanager
async def lone_store(redis: RedisServer) -> AsyncIterator[tuple[RedisStore, list[int]]]:
    """A store with no server, and the ages at which it found its data back."""
    store = await RedisStore.connect(redis.url, namespace=fresh_namespace(), timeout=2)
    back: list[int] = []
    store.on_data_back = lambda: back.append(store.age)
    try:
        yield store, back
    finally:
        await store.close()


def player(name: str) -> Player:
    return Player(f"p-{name}", name, f"t-{name}")


async def test_a_flushed_redis_gets_only_the_note_that_its_data_is_gone(
    private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    namespace = fresh_namespace()
    server, store, side = await solo(private_redis.url, namespace)
    fleet = server.fleet
    assert fleet is not None
    try:
        await flushed(private_redis, store, side)

        def said() -> Counter[str]:
            return Counter(r.getMessage().split(":")[0].split(" (")[0] for r in caplog.records)

        for _ in range(300):  # the fleet's heartbeats fail too
            if said()["lease renewal failed"] and said()["lobby sharing failed"]:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(3 * fleet.heartbeat)  # heartbeats, renewals, reconnects go on
        assert await keys(private_redis.url) == {f"{{{namespace}}}:origin_lost"}
        with pytest.raises(StoreError) as refused:
            await store.ensure_meter("main", 1000)
        assert "restores it" in str(refused.value) and "shortly" not in str(refused.value)
        # retried every fraction of a second, each failure is said once: not at each try
        assert said()["Redis reconnect failed"] == 2  # a line per store, its data found lost
        assert said()["lease renewal failed"] == said()["lobby sharing failed"] == 1
    finally:
        await server.stop(grace=0)


async def test_a_write_sent_before_the_loss_is_known_moves_no_money(
    private_redis: RedisServer,
) -> None:
    """Between the FLUSHALL and the next look at the mark, a buy-in or a new player
    would put money into the empty store: the scripts refuse, and the store finds out."""
    namespace = fresh_namespace()
    store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=2)
    try:
        player = await store.create_player("ann", 1000, 0)
        assert private_redis.command("FLUSHALL") == "+OK"
        with pytest.raises(StoreError):
            await store.buy_chips(player.player_id, 500, 1_000_000, "buy:1")
        with pytest.raises(StoreError):
            await store.create_player("bob", 1000, 0)
        for _ in range(300):  # the reconnect the refusal started reads the mark again
            if store.data_lost:
                break
            await asyncio.sleep(0.05)
        assert store.data_lost
        assert await keys(private_redis.url) == {f"{{{namespace}}}:origin_lost"}
    finally:
        await store.close()


async def test_a_restored_backup_s_meters_are_shown_once_the_data_is_back(
    private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The backup holds the meter as it was when it was taken, not as this process last
    showed it: once the mark is found again, the store's figure is what players see.
    The loss and the return are each logged once by the process, not once for each of
    its connections to Redis."""
    caplog.set_level(logging.INFO)

    def said(start: str) -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.getMessage().startswith(start)]

    namespace = fresh_namespace()
    server, store, side = await solo(private_redis.url, namespace)
    try:
        prefix, origin = f"{{{namespace}}}:", store.origin
        shown = server.meters["main"]
        await flushed(private_redis, store, side)
        # the backup: its mark, its seeds, and the meter as it stood when it was taken
        # (lower than shown: bets fed it after)
        assert private_redis.command("FLUSHALL") == "+OK"  # the note goes with the empty data
        private_redis.command("HSET", prefix + "seeds", "main", str(shown - 5000))
        private_redis.command("HSET", prefix + "acct", "meter:main", str(shown - 1234))
        assert private_redis.command("SET", prefix + "origin", origin) == "+OK"
        for _ in range(300):
            if (
                not store.data_lost
                and not side.data_lost
                and server.meters["main"] == (shown - 1234)
            ):
                break
            await asyncio.sleep(0.05)
        assert not store.data_lost and not side.data_lost
        assert server.meters["main"] == shown - 1234
        [lost] = said("Redis came back without its data")
        assert lost.levelno == logging.ERROR
        assert len(said("Redis has its data again")) == 1
    finally:
        await server.stop(grace=0)


async def test_a_restored_backup_s_wallets_are_pushed_to_the_players_connected(
    private_redis: RedisServer,
) -> None:
    """A player bought chips after the backup was taken; the restore put the wallet back
    as it was. The process's try to read the wallet had come while the data was gone,
    and no one read it again: the player was shown the lost purchase's balance until
    their next bet. Once the data is back, every connected player's wallet is sent."""
    namespace = fresh_namespace()
    server, store, side = await solo(private_redis.url, namespace)
    ann = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await ann.hello(name="ann")
        backup = ann.balance["balance"]
        prefix, origin = f"{{{namespace}}}:", store.origin
        await ann.request("buy_chips", amount=500)  # after the backup
        await ann.wait_for(lambda c: c.balance.get("balance") == backup + 500)
        await flushed(private_redis, store, side)
        assert private_redis.command("FLUSHALL") == "+OK"  # the restore
        private_redis.command("HSET", prefix + "acct", f"player:{ann.player_id}", str(backup))
        private_redis.command("HSET", prefix + "players", ann.player_id, '{"name":"ann"}')
        assert private_redis.command("SET", prefix + "origin", origin) == "+OK"
        await ann.wait_for(lambda c: c.balance.get("balance") == backup)
        assert not store.data_lost
    finally:
        await ann.close()
        await server.stop(grace=0)


def test_a_link_dropped_without_closing_hides_no_later_loss() -> None:
    """The process logs a loss once, however many of its links find it: the count of
    links finding it was a plain number, so one dropped without `close()` stayed
    counted, and the next loss (on another link) was never logged."""
    url = "redis://127.0.0.1:1/0"  # never connected: only the count is looked at
    dropped = RedisStore(url, namespace="lost-count")
    assert dropped._lost_here(+1) == 1  # the first to find it: logged
    del dropped
    gc.collect()
    later = RedisStore(url, namespace="lost-count")
    assert later._lost_here(+1) == 1  # the next loss is the first again: logged
    assert later._lost_here(-1) == 0


async def test_a_round_begun_after_the_backup_moves_no_money_once_it_is_restored(
    private_redis: RedisServer,
) -> None:
    """A backup restored while a round taken after it was in play: the table played the
    round on against data that never took its antes. A raise was answered ok, and the
    settlement paid back antes the restored wallets had never paid, with nothing in the
    round's ledger. The table now starts over once the data is back: the round's writes
    give up, the claim made afresh voids what the journal holds of it, and the wallets
    are the backup's, to the cent."""
    async with ann_at_alpha(private_redis) as (store, side, ann):
        before = ann.balance["balance"]
        backup(private_redis)
        seq = (await dealt(ann))["seq"]
        await flushed(private_redis, store, side)  # the data lost
        restart(private_redis, on="backup.rdb")  # and restored, as OPERATIONS.md says
        fresh = await started_over(ann)
        assert fresh["seq"] > seq  # its viewers stayed: a seq never goes back for them
        with pytest.raises(ServerError):
            await ann.request("raise", table="alpha", seat=0)
        assert (await store.wallet(ann.player_id)).balance == before
        await ann.wait_for(lambda c: c.balance.get("balance") == before)


async def test_a_player_made_after_the_backup_is_told_once_it_is_restored(
    private_redis: RedisServer,
) -> None:
    """A player made after the backup was taken was kept connected once it was restored:
    their wallet gone with them, every ante was refused for funds, on and on. Their
    connection is closed, saying why; a player the backup holds stays."""
    namespace = fresh_namespace()
    server, store, side = await solo(private_redis.url, namespace)
    old = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    new = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await old.hello(name="old")
        backup(private_redis)
        await new.hello(name="new")
        await flushed(private_redis, store, side)
        restart(private_redis, on="backup.rdb")
        await asyncio.wait_for(new.closed, 30)
        assert new.ws.close_code == 1008
        assert "restored from a backup" in str(new.ws.close_reason)
        # not first told, twice, of a wallet of nothing
        assert [f for f in new.frames if f["t"] == "balance" and not f["balance"]] == []
        assert (await old.request("ping"))["t"] == "pong"
    finally:
        await old.close()
        await new.close()
        await server.stop(grace=0)


async def test_a_backup_restored_while_redis_was_down_throughout_starts_the_round_over(
    private_redis: RedisServer,
) -> None:
    """Redis stopped, and came back on an older backup of the same data: the origin mark
    was there, the same, so nothing looked lost. The round in play, whose antes the
    backup never took, played on: a raise was answered ok with no round to hold it, and
    the settlement paid back antes never paid. The store's age, bumped by each of its
    writes, now says the data went back in time, and the table starts over as after a
    loss found: the wallets are the backup's, to the cent."""
    async with ann_at_alpha(private_redis) as (store, _side, ann):
        before = ann.balance["balance"]
        backup(private_redis)
        deciding = await dealt(ann)
        restart(private_redis, on="backup.rdb")  # down, then back on it: never seen empty
        fresh = await started_over(ann)
        assert fresh["seq"] > deciding["seq"]
        with pytest.raises(ServerError):
            await ann.request("raise", table="alpha", seat=0)
        assert (await store.wallet(ann.player_id)).balance == before
        await ann.wait_for(lambda c: c.balance.get("balance") == before)
        [told] = [f for f in ann.frames if f["t"] == "table_restarted"]
        assert told == {
            "t": "table_restarted",
            "table": "alpha",
            "round_id": deciding["round_id"],
            "reason": "restored",
        }


async def test_a_redis_back_with_all_its_data_lets_the_round_play_on(
    private_redis: RedisServer,
) -> None:
    """The other side of the store's age: a Redis restarted on everything it was told
    (saved as it stopped) is no restore, and the round in play goes on to its end."""
    async with ann_at_alpha(private_redis) as (store, side, ann):
        deciding = await dealt(ann)
        restart(private_redis)  # it saves as it stops
        await ann.wait_for(lambda c: store.connected and side.connected, timeout=30)
        await ann.request("raise", table="alpha", seat=0)
        done = await ann.wait_table("alpha", lambda t: t["phase"] == "showdown", timeout=30)
        assert done["round_id"] == deciding["round_id"]
        assert done["seats"][0] is not None
        assert not [f for f in ann.frames if f["t"] == "table_restarted"]
    assert store.age > 0  # its writes were counted, and the count goes with it
    ages = {k for k in await keys(private_redis.url) if k.startswith(f"{store.prefix}age:")}
    assert ages == set()


async def test_an_operator_s_credit_lost_to_a_restore_is_found_too(
    private_redis: RedisServer,
) -> None:
    """An operator's act is a write answered like any other: one the backup does not
    hold makes the data older than the process was told, and the data is back."""
    async with lone_store(private_redis) as (store, back):
        await store.create_player("pat", 100_000, 0, player("pat"))
        backup(private_redis)
        told = store.age
        await RedisAdmin(store).adjust(act("credit", "player:p-pat", amount=2_500), "p-pat", 2_500)
        assert store.age > told
        restart(private_redis, on="backup.rdb")
        await reconnected(store)
        assert back == [0]  # found, and counted anew from then on
        assert (await store.wallet("p-pat")).balance == 100_000


async def test_a_restart_after_a_restore_is_no_restore(private_redis: RedisServer) -> None:
    """Redis came back empty, then on a backup, found by its origin mark; the store's
    age went on counting from before. The next plain restart found it lower than the
    highest the process was told, and every table started over for nothing: rounds
    given up, players told of a restore. Each return of the data starts a new count."""
    async with lone_store(private_redis) as (store, back):
        await store.create_player("pat", 100_000, 0, player("pat"))
        backup(private_redis)
        for name in ("quinn", "rex"):
            await store.create_player(name, 100_000, 0, player(name))
        private_redis.stop()
        private_redis.forget()
        private_redis.start()  # empty
        for _ in range(300):
            with contextlib.suppress(StoreError):
                await store.ping()
            if store.data_lost:
                break
            await asyncio.sleep(0.05)
        assert store.data_lost
        restart(private_redis, on="backup.rdb")
        await reconnected(store)
        assert len(back) == 1
        await store.create_player("sam", 100_000, 0, player("sam"))
        restart(private_redis)  # it keeps everything
        await reconnected(store)
        assert len(back) == 1
        assert await store.player_known("p-sam")


async def test_a_second_restore_soon_after_the_first_is_found(private_redis: RedisServer) -> None:
    """Two backups of one line of time, the older restored first, then the newer: the
    count the process took up after the first restore was the older backup's, and the
    newer one's was as high as anything answered since, so the write answered between
    the two restores was lost unnoticed."""
    async with lone_store(private_redis) as (store, back):
        for name, saved in (("pat", "older.rdb"), ("quinn", "newer.rdb"), ("rex", None)):
            await store.create_player(name, 100_000, 0, player(name))
            if saved is not None:
                backup(private_redis, saved)
        restart(private_redis, on="older.rdb")
        await reconnected(store)
        assert len(back) == 1
        await store.create_player("sam", 100_000, 0, player("sam"))
        restart(private_redis, on="newer.rdb")
        await reconnected(store)
        assert len(back) == 2
        assert not await store.player_known("p-sam")


async def test_a_replay_at_redis_s_memory_limit_is_answered(private_redis: RedisServer) -> None:
    """A Redis at its maxmemory refuses writes (noeviction), and a write in doubt is
    resolved by sending it again: its replay writes nothing and was answered. Counting
    it in the store's age made it a write, refused there, so the doubt stayed."""
    async with lone_store(private_redis) as (store, _back):
        await store.create_player("pat", 100_000, 0, player("pat"))
        bought = await store.buy_chips("p-pat", 500, 10_000_000, "buy-1")
        assert private_redis.command("CONFIG", "SET", "maxmemory-policy", "noeviction") == "+OK"
        assert private_redis.command("CONFIG", "SET", "maxmemory", "1") == "+OK"
        try:
            assert await store.buy_chips("p-pat", 500, 10_000_000, "buy-1") == bought
        finally:
            assert private_redis.command("CONFIG", "SET", "maxmemory", "0") == "+OK"


async def test_a_round_the_store_no_longer_holds_is_given_up_not_played_on(
    private_redis: RedisServer,
) -> None:
    """Redis loaded an older dump in place (DEBUG RELOAD NOSAVE): no connection dropped,
    so the store's age was never read again, and the round dealt after the dump played
    on. Its raise is refused `round_voided`, nothing applied, and the table starts
    over, as after a restore found: the wallet is the reloaded data's, to the cent."""
    async with ann_at_alpha(private_redis) as (store, side, ann):
        side.on_went_back = lambda: None  # the round's own write finds it, not a heartbeat
        before = ann.balance["balance"]
        assert private_redis.command("SAVE") == "+OK"
        deciding = await dealt(ann)
        assert private_redis.command("DEBUG", "RELOAD", "NOSAVE") == "+OK"
        with pytest.raises(ServerError) as e:
            await ann.request("raise", table="alpha", seat=0)
        assert e.value.code == "round_voided"
        await started_over(ann)
        [told] = [f for f in ann.frames if f["t"] == "table_restarted"]
        assert told["round_id"] == deciding["round_id"]
        assert (await store.wallet(ann.player_id)).balance == before
        await ann.wait_for(lambda c: c.balance.get("balance") == before)


async def test_a_lease_renewed_on_older_data_does_not_resume_the_round_given_up(
    private_redis: RedisServer,
) -> None:
    """Redis down past the table's lease, then back on an older dump: the fleet's
    connection came back first, renewed the lease (none of its writes was lost) and the
    table resumed, its round live again for seconds, until the store's connection came
    back and found the data older. A table suspended for its lease now asks the store
    before it resumes: the round given up is never shown in play again."""
    async with ann_at_alpha(private_redis) as (_store, _side, ann):
        backup(private_redis)
        deciding = await dealt(ann)
        private_redis.stop()
        await ann.wait_table("alpha", lambda t: (t["suspended"] or {}).get("reason") == "lease")
        seen = len(ann.frames)
        shutil.copy(private_redis.dir / "backup.rdb", private_redis.dir / "dump.rdb")
        private_redis.start()
        await started_over(ann)
        live_again = [
            f
            for f in ann.frames[seen:]
            if f["t"] == "table" and f["round_id"] == deciding["round_id"] and not f["suspended"]
        ]
        assert live_again == []


async def test_a_round_left_while_its_refund_was_in_doubt_is_the_round_given_up(
    private_redis: RedisServer,
) -> None:
    """The player left while Redis stood still: the engine had let the round go with the
    seat, its refund in doubt, and the table still showed the round, suspended. Redis then
    came back on a backup from before the ante: `table_restarted` named no round given
    up, though one was on the table. It names the round shown."""
    async with ann_at_alpha(private_redis) as (_store, _side, ann):
        backup(private_redis)
        placed = await ann.request("ante", table="alpha", seat=0, amount=500)
        assert private_redis.process is not None
        private_redis.process.send_signal(signal.SIGSTOP)
        leaving = asyncio.ensure_future(ann.request("leave", table="alpha"))
        await ann.wait_table("alpha", lambda t: t["suspended"] is not None, timeout=30)
        private_redis.process.kill()  # stopped still: gone without saving
        private_redis.process.wait()
        private_redis.process = None
        shutil.copy(private_redis.dir / "backup.rdb", private_redis.dir / "dump.rdb")
        private_redis.start()
        await ann.wait_for(lambda c: any(f["t"] == "table_restarted" for f in c.frames), 30)
        [told] = [f for f in ann.frames if f["t"] == "table_restarted"]
        assert told["round_id"] == placed["round_id"]
        with pytest.raises(ServerError) as e:
            await leaving
        assert e.value.code == "round_voided"
