"""The meters as one process of a fleet shows them: news from the others, and ours to them.

A shared meter moves under every process. What each shows must end at the store's
figure whatever order news and replies arrive in (they come on different connections),
and every process must hear of a move made by another.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, cast

import pytest

from clients.connection import StudClient
from server.fleet import Fleet
from server.game.ledger import Reason, Transfer, meter_account, player_account
from server.jackpots import JackpotNews
from server.metrics import Metrics
from server.outbox import Outbox
from server.stores.base import Store
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore
from tests.conftest import ClientFactory, ServerFactory
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit

__all__ = ["private_redis", "time_limit"]  # fixtures used below

SEED = 100_000


class SlowReads(MemoryStore):
    """A store whose meter reads can be held on their way back."""

    def __init__(self) -> None:
        super().__init__()
        self.hold: asyncio.Event | None = None
        self.read_sent = asyncio.Event()

    async def meter(self, name: str) -> int:
        amount = await super().meter(name)  # the figure when the read reached the store
        self.read_sent.set()
        if self.hold is not None:
            await self.hold.wait()
        return amount


class Channel:
    """The fleet's news channel as one process sees it."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []
        self.on_meter: Any = None
        self.on_win: Any = None

    async def announce_meter(self, name: str, amount: int) -> None:
        self.sent.append((name, amount))


async def news_of(store: Store, channel: Channel) -> JackpotNews:
    tasks: set[asyncio.Task[Any]] = set()

    def spawn(coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    metrics = Metrics()
    news = JackpotNews(
        {"main": SEED},
        store,
        cast(Fleet, channel),
        metrics,
        Outbox(1 << 20, metrics),
        lambda: [],
        spawn,
        shared=True,
    )
    await news.ensure(announce=False)
    return news


def move_meter(store: MemoryStore, to: int) -> None:
    """Another process's write: the store's meter becomes `to`."""
    store.accounts[meter_account("main")] = to


async def test_news_is_read_from_the_store_not_taken_at_its_word() -> None:
    store, channel = MemoryStore(), Channel()
    news = await news_of(store, channel)
    move_meter(store, SEED + 70)
    channel.on_meter("main", SEED + 999)  # a figure older or newer than the store's
    assert news.amount("main") == SEED  # not shown
    await news.flush()
    assert news.amount("main") == SEED + 70
    assert channel.sent == []  # news is not echoed


async def test_news_during_a_read_gets_the_meter_read_again() -> None:
    """A read already on its way when news of a jackpot won elsewhere comes in may carry
    the amount from before the win: it is not shown, and the next push reads again."""
    store, channel = SlowReads(), Channel()
    news = await news_of(store, channel)
    move_meter(store, SEED + 500)
    channel.on_meter("main", SEED + 500)
    await news.flush()
    assert news.amount("main") == SEED + 500
    move_meter(store, SEED + 700)  # a bet elsewhere
    channel.on_meter("main", SEED + 700)
    store.hold, store.read_sent = asyncio.Event(), asyncio.Event()
    flushing = asyncio.ensure_future(news.flush())
    await asyncio.wait_for(store.read_sent.wait(), 10)  # the store answered SEED + 700...
    move_meter(store, SEED)  # ...then the jackpot was won elsewhere
    channel.on_meter("main", SEED)
    store.hold.set()
    await asyncio.wait_for(flushing, 10)
    assert news.amount("main") != SEED + 700  # the reply from before the win is not shown
    store.hold = None
    await news.flush()
    assert news.amount("main") == SEED


async def test_our_own_bets_are_announced_even_when_we_showed_them_right() -> None:
    """Only this process bet: the amount it shows was right without a read, and the
    others still have to hear that the meter moved."""
    store, channel = MemoryStore(), Channel()
    news = await news_of(store, channel)
    move_meter(store, SEED + 50)  # our progressive bet's share, written
    bet = Transfer("r1", 0, Reason.PROGRESSIVE, player_account("p"), meter_account("main"), 50)
    await news.moved("main", [bet])
    assert news.amount("main") == SEED + 50
    await news.flush()
    await asyncio.sleep(0)  # the announcement is its own task
    assert channel.sent == [("main", SEED + 50)]
    await news.flush()
    await asyncio.sleep(0)
    assert channel.sent == [("main", SEED + 50)]  # once a move, not once a push


async def test_a_watcher_of_an_idle_table_hears_a_meter_come_back_to_its_snapshot(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """An idle table's snapshot showed the meter at M; a push then told its watcher M',
    and when the meter came back to M it was taken as already shown: the watcher kept
    M' for good (an outside check saw idle tables' watchers stop hearing the meter). And
    the operators' console, looking at the table, made a snapshot no watcher got, which
    counted as shown them: with a console open, idle tables' watchers heard nothing."""
    server = await make_server(jackpot_push_interval=0.1)
    watcher = await connect(server, "watcher")
    await watcher.request("join", table="beta")  # idle: its snapshot is not sent again
    player = await connect(server, "player")
    await player.request("sit", table="alpha")

    async def seen() -> int:
        def last(c: StudClient) -> int | None:
            for f in reversed(c.frames):
                if f["t"] == "jackpot" or (f["t"] == "table" and f["table"] == "beta"):
                    return int(f["amount"] if f["t"] == "jackpot" else f["jackpot"]["amount"])
            return None

        meter = server.jackpots.amount("main")
        await watcher.wait_for(lambda c: last(c) == meter, timeout=10)
        return meter

    def console_looks() -> None:  # every second while a console is open, on every process
        server.admin.agent.view(server.rooms["beta"])

    shown = [await seen()]
    for _ in range(2):  # the stake feeds the meter; its withdrawal takes it back
        await player.request("ante", table="alpha", seat=0, amount=100, progressive=True)
        console_looks()  # a look is no snapshot shown: the watcher is still to be told
        shown.append(await seen())
        await player.request("withdraw", table="alpha", seat=0)
        console_looks()
        shown.append(await seen())
    assert shown == [SEED, SEED + 50, SEED, SEED + 50, SEED]  # each one told


async def test_meter_reads_failing_through_an_outage_are_logged_once_in_operators_words(
    private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The meter is read again at every push while Redis is away: its failure is said
    when it starts (then once a minute), with the cause, not the players' words."""
    store = await RedisStore.connect(private_redis.url, namespace=fresh_namespace(), timeout=0.5)
    try:
        channel = Channel()
        news = await news_of(store, channel)
        caplog.set_level(logging.INFO, logger="stud.jackpots")
        private_redis.stop()
        channel.on_meter("main", SEED + 1)  # another process moved it: read it
        for _ in range(4):  # four pushes: the read fails at each
            await news.flush()
        said = [r for r in caplog.records if r.name == "stud.jackpots"]
        failed = [r for r in said if r.getMessage().startswith("meter not read")]
        assert len(failed) == 1, [r.getMessage() for r in said]
        assert failed[0].levelno == logging.WARNING
        assert "Redis" in failed[0].getMessage()
        assert "try again" not in failed[0].getMessage()  # what players are told
        private_redis.start()
        for _ in range(100):
            await news.flush()
            if any(r.getMessage().startswith("meter read again") for r in caplog.records):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the meter is never read again")
        assert news.amount("main") == SEED
    finally:
        await store.close()
