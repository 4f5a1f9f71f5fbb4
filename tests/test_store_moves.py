"""Money that moves outside a round has a journal row, as a round's moves have theirs.

A new player's starting credits (world to player), a purchase (world to player),
a meter's first seed (house to meter) and an operator's credit, debit or meter
setting were in the accounts but in no record: `world` could not be rebuilt from
anything, and the house rebuilt from the round ledgers was off by the meter's
seed. Each is now one row of the `moves` journal, written in the same step as the
move and once by its operation id; every account is the sum of the rows of the
rounds and of that journal.
"""

from __future__ import annotations

from collections import Counter

import pytest

from server.game.ledger import HOUSE, WORLD, Hold, Reason, Transfer, meter_account, player_account
from server.stores.base import MOVES_LIMIT, BuyInLimit, Fence, Move, Player, Store
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore
from tests.redis_fixture import redis_url, time_limit
from tests.test_store_admin import Stores, act, stores
from tests.test_store_contract import ante, op, raise_, record

__all__ = ["redis_url", "stores", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

F = Fence("alpha", 0)
AT = 1_765_000_000.25  # the stores' wall clock in these tests: rows are stamped with it


def stamped(store: Store) -> Store:
    assert isinstance(store, MemoryStore | RedisStore)
    store.wall_clock = lambda: AT
    return store


def row(op_id: str, reason: Reason, source: str, target: str, cents: int) -> Move:
    return Move(op_id, int(AT * 1000), Transfer("", None, reason, source, target, cents))


async def test_starting_credits_are_one_row_however_often_asked(stores: Stores) -> None:
    store = stamped(stores.store)
    p = Player("p-ann", "ann", "tok-ann")
    for _ in range(2):  # a retry after an unknown outcome grants nothing twice
        await store.create_player("ann", 10_000, 0, p)
    await store.create_player("bob", 0, 500)  # no credits: nothing moved, no row
    grant = row("grant:p-ann", Reason.BUY_IN, WORLD, "player:p-ann", 10_000)
    assert await store.moves() == [grant]
    assert await store.player_moves("p-ann") == [grant]


async def test_a_purchase_is_one_row_by_its_operation_id(stores: Stores) -> None:
    store = stamped(stores.store)
    pid = (await store.create_player("ann", 1_000, 0)).player_id
    await store.buy_chips(pid, 500, 100_000, "buy:one")
    await store.buy_chips(pid, 500, 100_000, "buy:one")  # the reply was lost: bought once
    with pytest.raises(BuyInLimit):  # refused: nothing moved, no row
        await store.buy_chips(pid, 500_000, 100_000, "buy:too-much")
    await store.buy_chips(pid, 250, 100_000, "buy:two")
    me = player_account(pid)
    grant = row(f"grant:{pid}", Reason.BUY_IN, WORLD, me, 1_000)
    one = row("buy:one", Reason.BUY_IN, WORLD, me, 500)
    two = row("buy:two", Reason.BUY_IN, WORLD, me, 250)
    assert await store.moves() == [grant, one, two]  # oldest first
    assert await store.player_moves(pid) == [two, one, grant]  # newest first
    assert await store.player_moves(pid, limit=1) == [two]
    assert await store.moves(start=1, count=1) == [one]


async def test_a_meters_first_seed_is_a_row_of_the_house(stores: Stores) -> None:
    store = stamped(stores.store)
    for _ in range(2):
        assert await store.ensure_meter("main", 50_000) == 50_000
    assert await store.moves() == [
        row("seed:main", Reason.RESEED, HOUSE, meter_account("main"), 50_000)
    ]


async def test_an_operators_moves_are_rows_under_the_acts_id(stores: Stores) -> None:
    store = stamped(stores.store)
    pid = (await store.create_player("ann", 1_000, 0)).player_id
    await store.ensure_meter("main", 50_000)
    credit = act("credit", f"player:{pid}", amount=300)
    debit = act("debit", f"player:{pid}", amount=200)
    meter = act("set_meter", "jackpot:main", amount=60_000)
    for _ in range(2):  # a repeated act moves nothing more
        await stores.admin.adjust(credit, pid, 300)
        await stores.admin.adjust(debit, pid, -200)
        await stores.admin.set_meter(meter, "main", 60_000)
    me, m = player_account(pid), meter_account("main")
    acts = [
        Move(credit.id, credit.ts, Transfer("", None, Reason.ADJUSTMENT, HOUSE, me, 300)),
        Move(debit.id, debit.ts, Transfer("", None, Reason.ADJUSTMENT, me, HOUSE, 200)),
        Move(meter.id, meter.ts, Transfer("", None, Reason.ADJUSTMENT, HOUSE, m, 10_000)),
    ]
    assert (await store.moves())[2:] == acts
    assert await store.player_moves(pid) == [acts[1], acts[0], (await store.moves())[0]]


async def test_every_account_is_rebuilt_from_the_records(stores: Stores) -> None:
    """Round ledgers plus the moves journal make every account, to the cent."""
    store, admin = stamped(stores.store), stores.admin
    await store.ensure_meter("main", 50_000)
    a = (await store.create_player("ann", 10_000, 0)).player_id
    b = (await store.create_player("bob", 10_000, 0)).player_id
    await store.buy_chips(b, 5_000, 100_000, "buy:bob")
    # r1: ann raises and wins, bob folds
    await store.bet(F, op(), *ante("r1", 0, a, 100, progressive=True))
    await store.bet(F, op(), *ante("r1", 1, b, 100), opens=False)
    await store.apply(F, op(), *raise_("r1", 0, a, 100))
    await store.apply(F, op(), [], [Hold("r1", 1, b, -200)])
    win = Transfer("r1", 0, Reason.PAYOUT, HOUSE, player_account(a), 400)
    await store.settle(F, "r1", [win], [], "main", 50_000, record("r1", (0, a), (1, b)))
    # r2: voided, bob's ante refunded
    await store.bet(F, op(), *ante("r2", 1, b, 100))
    refund = Transfer("r2", 1, Reason.REFUND, HOUSE, player_account(b), 100)
    await store.void(F, "r2", [refund], [Hold("r2", 1, b, -200)])
    await admin.adjust(act("credit", f"player:{a}", amount=77), a, 77)
    rebuilt: Counter[str] = Counter()
    for rid in ("r1", "r2"):
        journal = await admin.journal(rid)
        assert journal is not None
        for t in journal["ledger"]:
            rebuilt[t[3]] -= t[5]
            rebuilt[t[4]] += t[5]
    for m in await store.moves():
        rebuilt[m.transfer.source] -= m.transfer.amount
        rebuilt[m.transfer.target] += m.transfer.amount
    totals = await store.totals()
    assert {k: v for k, v in rebuilt.items() if v} == {k: v for k, v in totals.items() if v}


async def test_a_player_keeps_their_last_rows_and_the_journal_all(stores: Stores) -> None:
    store = stamped(stores.store)
    pid = (await store.create_player("ann", 100, 0)).player_id
    for i in range(MOVES_LIMIT + 4):
        await store.buy_chips(pid, 1, 1_000_000, f"buy:{i}")
    mine = await store.player_moves(pid, limit=MOVES_LIMIT + 50)
    assert len(mine) == MOVES_LIMIT
    assert mine[0].op == f"buy:{MOVES_LIMIT + 3}" and mine[-1].op == "buy:4"
    assert len(await store.moves(count=10_000)) == MOVES_LIMIT + 5


async def test_a_row_reads_as_json_with_its_transfer(stores: Stores) -> None:
    store = stamped(stores.store)
    pid = (await store.create_player("ann", 1_000, 0)).player_id
    (grant,) = await store.player_moves(pid)
    assert grant.to_json() == {
        "op": f"grant:{pid}",
        "at": int(AT * 1000),
        "transfer": ["", None, "buy-in", "world", f"player:{pid}", 1_000],
    }
