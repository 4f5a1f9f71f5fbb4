"""The embedded store forgets closed rounds and old purchase ids, as Redis expires them.

A `make run` server keeps the memory store for its whole life: without this, every
round's journal and operation ids stayed in memory forever. Within the retention a
repeat still answers its first result; after it, the journal is gone and the
balances and histories are untouched.
"""

from __future__ import annotations

import uuid

from server.game.ledger import HOUSE, Reason, Transfer, player_account
from server.stores.base import Fence, Store, Wallet
from server.stores.memory import MemoryStore
from tests.test_store_contract import JP, SEED, TABLE, ante, books, raise_, record

F = Fence(TABLE, 0)
KEEP = 100.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def op() -> str:
    return uuid.uuid4().hex


async def play(store: Store, rid: str, pid: str, bet_op: str = "") -> None:
    """One round: an ante, a raise, a payout."""
    await store.bet(F, bet_op or op(), *ante(rid, 0, pid, 100))
    await store.apply(F, op(), *raise_(rid, 0, pid, 100))
    payout = [Transfer(rid, 0, Reason.PAYOUT, HOUSE, player_account(pid), 500)]
    await store.settle(F, rid, payout, [], JP, SEED, record(rid, (0, pid)))


async def test_a_settled_round_is_kept_for_the_retention_then_forgotten() -> None:
    clock = Clock()
    store = MemoryStore(retention=KEEP, clock=clock)
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000, 0)
    await play(store, "r1", p.player_id, bet_op="r1-ante")
    wallet = await store.wallet(p.player_id)
    totals = await books(store)

    clock.now += KEEP - 1
    # within the retention a repeat answers its first result and moves nothing
    first = Wallet(10_000 - 100, 0, 200)
    assert await store.bet(F, "r1-ante", *ante("r1", 0, p.player_id, 100)) == first
    await play(store, "r2", p.player_id)  # closing r2 looks at what is due: r1 is not yet
    assert "r1" in store.rounds and "r1" in store.round_ops

    clock.now += 2
    await play(store, "r3", p.player_id)
    assert "r1" not in store.rounds and "r1" not in store.round_ops
    assert {"r2", "r3"} <= set(store.rounds)
    after = await books(store)
    assert after[player_account(p.player_id)] == wallet.balance + 2 * 200
    assert after[HOUSE] == totals[HOUSE] - 2 * 200
    assert len(await store.history(p.player_id)) == 3  # the history is its own, bounded


async def test_an_open_round_is_never_forgotten_even_with_an_old_abandoned_op() -> None:
    clock = Clock()
    store = MemoryStore(retention=KEEP, clock=clock)
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 0, p.player_id, 100))
    assert await store.abandon("r1-late", round_id="r1") is False
    clock.now += 10 * KEEP
    await play(store, "r2", p.player_id)  # a close: r1's expiry is due, but r1 is open
    assert "r1" in store.rounds and store.round_ops["r1"]
    assert await store.open_rounds(TABLE) == ["r1"]
    assert (await store.wallet(p.player_id)).held == 200
    refund = Transfer("r1", 0, Reason.REFUND, HOUSE, player_account(p.player_id), 100)
    await store.void(F, "r1", [refund], [])
    clock.now += KEEP + 1
    await play(store, "r3", p.player_id)
    assert "r1" not in store.rounds and "r1" not in store.round_ops
    await books(store)


async def test_an_op_abandoned_in_a_round_never_opened_is_forgotten() -> None:
    clock = Clock()
    store = MemoryStore(retention=KEEP, clock=clock)
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000, 0)
    assert await store.abandon("ghost-ante", round_id="ghost") is False
    clock.now += KEEP + 1
    await play(store, "r1", p.player_id)
    assert "ghost" not in store.round_ops


async def test_purchase_ids_live_for_their_retention_after_the_last_purchase() -> None:
    clock = Clock()
    store = MemoryStore(retention=1.0, purchase_retention=KEEP, clock=clock)
    p = await store.create_player("a", 10_000, 0)
    await store.buy_chips(p.player_id, 500, 100_000, "buy-1")
    clock.now += KEEP - 1
    await store.buy_chips(p.player_id, 500, 100_000, "buy-2")  # moves the expiry on
    clock.now += 2
    await store.buy_chips(p.player_id, 500, 100_000, "buy-3")
    # buy-1 is still known: the ids expire together, from the last purchase (as Redis)
    assert (await store.buy_chips(p.player_id, 500, 100_000, "buy-1")).balance == 11_500
    clock.now += KEEP + 1
    await store.buy_chips(p.player_id, 500, 100_000, "buy-4")
    assert set(store.buy_ops[p.player_id]) == {"buy-4"}
    assert (await books(store))[player_account(p.player_id)] == 12_000


async def test_a_purchase_key_is_kept_the_week_the_protocol_promises() -> None:
    """PROTOCOL.md: "A key is kept for at least 7 days after the player's last
    purchase". The memory store forgot it after a day: a purchase repeated two days on
    (its answer lost, the laptop closed) bought again, where Redis buys nothing."""
    clock = Clock()
    store = MemoryStore(clock=clock)
    p = await store.create_player("a", 10_000, 0)
    await store.buy_chips(p.player_id, 500, 100_000, "buy:key:k1")
    clock.now += 7 * 86_400 - 60
    await store.buy_chips(p.player_id, 500, 100_000, "buy:key:k1")  # the repeat
    assert (await store.wallet(p.player_id)).balance == 10_500


async def test_a_long_run_keeps_a_bounded_journal() -> None:
    clock = Clock()
    store = MemoryStore(retention=KEEP, clock=clock)
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000_000, 0)
    for i in range(500):
        clock.now += 1.0  # a round a second: about KEEP rounds are kept
        await play(store, f"r{i}", p.player_id)
    assert KEEP - 2 <= len(store.rounds) <= KEEP + 1
    assert len(store.round_ops) == len(store.rounds)
    assert (await books(store))[player_account(p.player_id)] == 10_000_000 + 500 * 200
