"""The store contract: MemoryStore and RedisStore pass the same tests.

Every test runs on both stores; the books must balance after every step (the sum
of all accounts is 0: wallets + house + meters change only by buy-ins). A
differential test drives both stores with the same random sequences of bets,
decisions, settlements, voids and recoveries and requires identical results.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.game.ledger import (
    HOUSE,
    WORLD,
    Hold,
    JackpotClaim,
    Reason,
    Transfer,
    meter_account,
    player_account,
)
from server.game.settlement import percent_claim
from server.stores.base import (
    HISTORY_LIMIT,
    MAX_CENTS,
    BonusNotPlayable,
    BuyInLimit,
    Fence,
    InsufficientFunds,
    InvalidRequest,
    NotOwner,
    OpAbandoned,
    Player,
    RoundConflict,
    RoundUnknown,
    Store,
    StoreError,
    Wallet,
)
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore
from tests.redis_fixture import (
    drop_namespace,
    fresh_namespace,
    redis_url,  # noqa: F401 - a fixture
    time_limit,  # noqa: F401 - a fixture
)

pytestmark = pytest.mark.usefixtures("time_limit")

SEED = 100_000
JP = "main"
METER = meter_account(JP)
TABLE = "alpha"
F = Fence(TABLE, 0)  # a table nobody has claimed yet is at epoch 0


def fence(table: str) -> Fence:
    return Fence(table, 0)


def op() -> str:
    """A fresh operation id, as the server chooses one per write."""
    return uuid.uuid4().hex


async def books(store: Store) -> dict[str, int]:
    """Totals, checked: double entry sums to 0 and no wallet or meter is below 0."""
    totals = await store.totals()
    assert sum(totals.values()) == 0, totals
    for account, cents in totals.items():
        if account.startswith(("player:", "meter:")):
            assert cents >= 0, (account, cents)
    return totals


def ante(
    rid: str, seat: int, pid: str, amount: int, progressive: bool = False
) -> tuple[list[Transfer], list[Hold]]:
    """What the table asks the store to take for an ante (stake 100, half to the meter)."""
    me = player_account(pid)
    transfers = [Transfer(rid, seat, Reason.ANTE, me, HOUSE, amount)]
    if progressive:
        transfers.append(Transfer(rid, seat, Reason.PROGRESSIVE, me, METER, 50))
        transfers.append(Transfer(rid, seat, Reason.PROGRESSIVE, me, HOUSE, 50))
    return transfers, [Hold(rid, seat, pid, 2 * amount)]


def record(rid: str, *seats: tuple[int, str], table: str = TABLE) -> dict[str, Any]:
    return {
        "round_id": rid,
        "table": table,
        "variant": "casino-stud",
        "dealer": ["As", "Kd", "9c", "4h", "2s"],
        "seats": [
            {"seat": s, "player_id": p, "ante": 100, "cards": ["Ah", "Kh", "Qh", "Jh", "Th"]}
            for s, p in seats
        ],
    }


def raise_(rid: str, seat: int, pid: str, amount: int) -> tuple[list[Transfer], list[Hold]]:
    me = player_account(pid)
    return [Transfer(rid, seat, Reason.RAISE, me, HOUSE, 2 * amount)], [
        Hold(rid, seat, pid, -2 * amount)
    ]


# ----- identity and wallets -----------------------------------------------------


async def test_players_and_tokens(store: Store) -> None:
    p = await store.create_player("Zoë 🂡", 10_000, 500)
    assert await store.player_by_token(p.token) == p
    assert await store.player_by_token("not-a-token") is None
    assert await store.wallet(p.player_id) == Wallet(10_000, 500, 0)
    assert (await store.wallet(p.player_id)).available == 10_000
    assert await store.wallet("nobody") == Wallet(0, 0, 0)
    totals = await books(store)
    assert totals[player_account(p.player_id)] == 10_000
    assert totals[WORLD] == -10_000
    q = await store.create_player("bob", 0, 0)
    assert q.player_id != p.player_id and q.token != p.token
    assert await store.player_by_token(q.token) == q


async def test_buy_chips_up_to_the_limit(store: Store) -> None:
    p = await store.create_player("a", 10_000, 0)
    assert await store.buy_chips(p.player_id, 5_000, 20_000, op()) == Wallet(15_000, 0, 0)
    with pytest.raises(BuyInLimit) as e:
        await store.buy_chips(p.player_id, 5_001, 20_000, op())
    assert e.value.details == {"max_balance": 20_000, "allowed": 5_000}
    for amount in (0, -5, MAX_CENTS * 4):
        with pytest.raises(BuyInLimit):
            await store.buy_chips(p.player_id, amount, 20_000, op())
    assert await store.wallet(p.player_id) == Wallet(15_000, 0, 0)
    assert (await books(store))[WORLD] == -15_000


async def test_bet_debits_and_holds_the_raise(store: Store) -> None:
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000, 0)
    w = await store.bet(F, op(), *ante("r1", 0, p.player_id, 1_000, progressive=True))
    assert w == Wallet(10_000 - 1_100, 0, 2_000)
    assert w.available == 6_900
    assert await store.meter(JP) == SEED + 50
    assert await store.open_rounds(TABLE) == ["r1"]
    await books(store)


@pytest.mark.parametrize(
    ("credits", "bonus", "error"),
    [(3_000, 0, InsufficientFunds), (2_000, 5_000, BonusNotPlayable), (0, 100, InsufficientFunds)],
)
async def test_bet_refusals_apply_nothing(
    store: Store, credits: int, bonus: int, error: type[StoreError]
) -> None:
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", credits, bonus)
    before = await books(store)
    with pytest.raises(error) as e:
        await store.bet(F, op(), *ante("r1", 0, p.player_id, 1_000, progressive=True))
    # ante + progressive + the raise the ante may call for
    assert e.value.details == {"needed": 3_100, "available": credits, "bonus": bonus}
    assert e.value.code == error.code
    assert await books(store) == before
    assert await store.wallet(p.player_id) == Wallet(credits, bonus, 0)
    assert await store.open_rounds(TABLE) == []


async def test_holds_count_against_the_next_bet(store: Store) -> None:
    p = await store.create_player("a", 3_000, 0)
    await store.bet(F, op(), *ante("r1", 0, p.player_id, 1_000))  # 1000 + 2000 held
    with pytest.raises(InsufficientFunds) as e:
        await store.bet(F, op(), *ante("r1", 1, p.player_id, 100))
    assert e.value.details == {"needed": 300, "available": 0, "bonus": 0}
    # the raise is covered by the hold: it can never be refused
    wallets = await store.apply(F, op(), *raise_("r1", 0, p.player_id, 1_000))
    assert wallets == {p.player_id: Wallet(0, 0, 0)}
    await books(store)


async def test_a_round_the_store_holds_no_trace_of_moves_no_money(store: Store) -> None:
    """A round is opened by its first bet: a raise, a refund or a settlement for one the
    store never saw means the data went back under the table (a backup loaded in place),
    and the table's round is not the store's. Paying it moved money with no ledger: a
    refund of an ante the data never took paid the house's money out."""
    p = await store.create_player("a", 10_000, 0)
    before = await books(store)
    with pytest.raises(RoundUnknown) as e:
        await store.apply(F, op(), *raise_("r9", 0, p.player_id, 100))
    assert e.value.code == "round_voided"
    refund = Transfer("r9", 0, Reason.REFUND, HOUSE, player_account(p.player_id), 600)
    with pytest.raises(RoundUnknown):
        await store.apply(F, op(), [refund], [])
    with pytest.raises(RoundUnknown):
        await store.settle(F, "r9", [refund], [], JP, SEED, record("r9", (0, p.player_id)))
    assert await books(store) == before
    assert await store.wallet(p.player_id) == Wallet(10_000, 0, 0)
    assert await store.open_rounds(TABLE) == []


async def test_bet_contract_violations(store: Store) -> None:
    a = await store.create_player("a", 10_000, 0)
    b = await store.create_player("b", 10_000, 0)
    two = [
        Transfer("r1", 0, Reason.ANTE, player_account(a.player_id), HOUSE, 100),
        Transfer("r1", 1, Reason.ANTE, player_account(b.player_id), HOUSE, 100),
    ]
    with pytest.raises(InvalidRequest):
        await store.bet(F, op(), two, [])
    with pytest.raises(InvalidRequest):
        await store.bet(F, op(), *ante("r1", 0, a.player_id, MAX_CENTS))  # hold above the bound
    await store.bet(F, op(), *ante("r1", 0, a.player_id, 100))
    with pytest.raises(InvalidRequest):
        await store.bet(
            fence("beta"), op(), *ante("r1", 1, a.player_id, 100)
        )  # r1 is alpha's round
    assert await store.wallet(a.player_id) == Wallet(9_900, 0, 200)
    await books(store)


async def test_apply_is_all_or_nothing(store: Store) -> None:
    a = await store.create_player("a", 1_000, 0)
    b = await store.create_player("b", 1_000, 0)
    c = await store.create_player("c", 1_000, 0)
    await store.bet(F, op(), *ante("r1", 2, c.player_id, 100))  # the round's first bet
    before = await books(store)
    batch = [
        Transfer("r1", 0, Reason.RAISE, player_account(a.player_id), HOUSE, 500),
        Transfer("r1", 1, Reason.RAISE, player_account(b.player_id), HOUSE, 1_001),
    ]
    with pytest.raises(InsufficientFunds) as e:
        await store.apply(F, op(), batch, [])
    assert e.value.details == {"needed": 1_001}
    assert await books(store) == before
    # a credit in the same batch covers a debit: the check is on the net
    ok = [*batch, Transfer("r1", 1, Reason.REFUND, HOUSE, player_account(b.player_id), 1)]
    wallets = await store.apply(F, op(), ok, [])
    assert wallets == {a.player_id: Wallet(500, 0, 0), b.player_id: Wallet(0, 0, 0)}
    await books(store)


# ----- the meter and settlement ---------------------------------------------------


async def test_ensure_meter_seeds_once_from_the_house(store: Store) -> None:
    assert await store.ensure_meter(JP, SEED) == SEED
    assert await store.ensure_meter(JP, 5 * SEED) == SEED  # created once: the seed stays
    assert await store.meters() == {JP: SEED}
    totals = await books(store)
    assert totals[HOUSE] == -SEED
    assert await store.meter("other") == 0


async def test_two_full_claims_in_one_round_are_paid_in_seat_order(store: Store) -> None:
    await store.ensure_meter(JP, SEED)
    a = await store.create_player("a", 10_000, 0)
    b = await store.create_player("b", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 2, a.player_id, 100, progressive=True))
    await store.bet(F, op(), *ante("r1", 5, b.player_id, 100, progressive=True))
    meter = SEED + 100
    assert await store.meter(JP) == meter
    await store.apply(F, op(), *raise_("r1", 2, a.player_id, 100))
    await store.apply(F, op(), *raise_("r1", 5, b.player_id, 100))
    claims = [  # given out of order: the store resolves them by seat
        JackpotClaim("r1", 5, b.player_id, "ROYAL_FLUSH", 10_000),
        JackpotClaim("r1", 2, a.player_id, "ROYAL_FLUSH", 10_000),
    ]
    payouts = [
        Transfer("r1", 2, Reason.PAYOUT, HOUSE, player_account(a.player_id), 300),
        Transfer("r1", 5, Reason.PAYOUT, HOUSE, player_account(b.player_id), 300),
    ]
    rec = record("r1", (2, a.player_id), (5, b.player_id))
    settled = await store.settle(F, "r1", payouts, claims, JP, SEED, rec)
    assert [(p.seat, p.player_id, p.amount, p.meter_after) for p in settled.paid] == [
        (2, a.player_id, meter, SEED),
        (5, b.player_id, SEED, SEED),
    ]
    assert settled.meters == {JP: SEED}
    assert not settled.replayed
    assert settled.wallets == {
        a.player_id: Wallet(10_000 - 400 + 300 + meter, 0, 0),
        b.player_id: Wallet(10_000 - 400 + 300 + SEED, 0, 0),
    }
    assert await store.meter(JP) == SEED
    assert await store.open_rounds(TABLE) == []
    hits = await store.jackpot_hits(JP)
    assert [(h["seat"], h["amount"], h["meter_before"], h["reseed"]) for h in hits] == [
        (5, SEED, SEED, SEED),
        (2, meter, meter, SEED),
    ]  # newest first
    await books(store)


async def test_percent_claims_round_down_and_leave_the_rest(store: Store) -> None:
    await store.ensure_meter(JP, 0)
    p = await store.create_player("a", 1_000_000, 0)
    me = player_account(p.player_id)
    bet = [Transfer("r1", 0, Reason.PROGRESSIVE, me, METER, 123_457)]
    await store.bet(F, op(), bet, [])
    claim = JackpotClaim("r1", 0, p.player_id, "STRAIGHT_FLUSH", 1_000)  # 10%
    settled = await store.settle(F, "r1", [], [claim], JP, 0, record("r1", (0, p.player_id)))
    assert settled.paid[0].amount == 12_345  # floor(123457 / 10)
    assert await store.meter(JP) == 123_457 - 12_345
    await books(store)


async def test_large_amounts_stay_exact(store: Store) -> None:
    """Cents up to 2**53 - 1 (the Lua bound) add and claim exactly."""
    big = MAX_CENTS - 7
    await store.ensure_meter(JP, 0)
    p = await store.create_player("whale", big, 0)
    me = player_account(p.player_id)
    await store.bet(F, op(), [Transfer("r1", 0, Reason.PROGRESSIVE, me, METER, big - 3)], [])
    assert await store.meter(JP) == big - 3
    assert await store.wallet(p.player_id) == Wallet(3, 0, 0)
    claim = JackpotClaim("r1", 0, p.player_id, "FOUR_OF_A_KIND", 3_333)
    settled = await store.settle(F, "r1", [], [claim], JP, 0, record("r1", (0, p.player_id)))
    assert settled.paid[0].amount == percent_claim(big - 3, 3_333)
    assert await store.meter(JP) == big - 3 - percent_claim(big - 3, 3_333)
    assert (await store.history(p.player_id))[0]["balance_before"] == big
    await books(store)


async def test_settle_is_idempotent_by_round_id(store: Store) -> None:
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000, 0)
    me = player_account(p.player_id)
    await store.bet(F, op(), *ante("r1", 0, p.player_id, 100, progressive=True))
    await store.apply(F, op(), *raise_("r1", 0, p.player_id, 100))
    payout = [Transfer("r1", 0, Reason.PAYOUT, HOUSE, me, 700)]
    claim = [JackpotClaim("r1", 0, p.player_id, "FLUSH", 500)]
    rec = record("r1", (0, p.player_id))
    first = await store.settle(F, "r1", payout, claim, JP, SEED, rec)
    after = await books(store)
    again = await store.settle(F, "r1", payout, claim, JP, SEED, rec)
    assert again.replayed
    assert (again.paid, again.wallets, again.meters) == (first.paid, first.wallets, first.meters)
    assert await books(store) == after  # paid once
    other = [Transfer("r1", 0, Reason.PAYOUT, HOUSE, me, 701)]
    with pytest.raises(RoundConflict):
        await store.settle(F, "r1", other, claim, JP, SEED, rec)
    with pytest.raises(RoundConflict):
        await store.void(F, "r1", [], [])
    with pytest.raises(RoundConflict):
        await store.bet(F, op(), *ante("r1", 1, p.player_id, 100))
    with pytest.raises(RoundConflict):
        await store.apply(F, op(), *raise_("r1", 0, p.player_id, 100))
    assert await books(store) == after
    assert len(await store.history(p.player_id)) == 1


async def test_settle_refuses_a_payment_a_wallet_cannot_make(store: Store) -> None:
    p = await store.create_player("a", 100, 0)
    q = await store.create_player("q", 1_000, 0)
    await store.bet(F, op(), *ante("r1", 1, q.player_id, 100))  # the round's first bet
    before = await books(store)
    bad = [Transfer("r1", 0, Reason.ANTE, player_account(p.player_id), HOUSE, 101)]
    with pytest.raises(InsufficientFunds):
        await store.settle(F, "r1", bad, [], JP, SEED, record("r1", (0, p.player_id)))
    assert await books(store) == before
    assert await store.history(p.player_id) == []


async def test_closing_a_round_releases_what_it_still_holds(store: Store) -> None:
    p = await store.create_player("a", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 0, p.player_id, 1_000))
    assert (await store.wallet(p.player_id)).held == 2_000
    await store.settle(F, "r1", [], [], JP, 0, record("r1", (0, p.player_id)))
    assert await store.wallet(p.player_id) == Wallet(9_000, 0, 0)


# ----- voiding and crash recovery ---------------------------------------------------


def refunds(rid: str, seat: int, pid: str, amount: int, raised: bool) -> list[Transfer]:
    """The table's refund of an ante (and its raise) with the progressive."""
    me = player_account(pid)
    out = [Transfer(rid, seat, Reason.REFUND, HOUSE, me, amount)]
    if raised:
        out.append(Transfer(rid, seat, Reason.REFUND, HOUSE, me, 2 * amount))
    out.append(Transfer(rid, seat, Reason.REFUND, METER, me, 50))
    out.append(Transfer(rid, seat, Reason.REFUND, HOUSE, me, 50))
    return out


async def test_void_refunds_once(store: Store) -> None:
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000, 0)
    start = await books(store)
    await store.bet(F, op(), *ante("r1", 0, p.player_id, 1_000, progressive=True))
    await store.void(F, "r1", refunds("r1", 0, p.player_id, 1_000, raised=False), [])
    assert await store.wallet(p.player_id) == Wallet(10_000, 0, 0)  # hold released too
    assert await books(store) == start
    await store.void(F, "r1", refunds("r1", 0, p.player_id, 1_000, raised=False), [])
    assert await books(store) == start
    assert await store.open_rounds(TABLE) == []
    with pytest.raises(RoundConflict):
        await store.settle(F, "r1", [], [], JP, SEED, record("r1", (0, p.player_id)))
    assert await store.recover(F) == []


async def test_a_refund_the_meter_cannot_cover_is_paid_by_the_house(store: Store) -> None:
    """A round's contribution may be claimed at another table before the round is voided."""
    await store.ensure_meter(JP, 0)
    a = await store.create_player("a", 10_000, 0)
    b = await store.create_player("b", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 0, a.player_id, 100, progressive=True))
    await store.bet(fence("beta"), op(), *ante("r2", 0, b.player_id, 100))
    full = JackpotClaim("r2", 0, b.player_id, "ROYAL_FLUSH", 10_000)
    await store.settle(
        fence("beta"), "r2", [], [full], JP, 0, record("r2", (0, b.player_id), table="beta")
    )
    assert await store.meter(JP) == 0
    assert await store.recover(F) == ["r1"]
    assert await store.wallet(a.player_id) == Wallet(10_000, 0, 0)
    assert await store.meter(JP) == 0
    await books(store)


async def test_a_refund_never_takes_the_meter_below_its_seed(store: Store) -> None:
    """A stake's share went to the meter; the meter was reseeded (a hit, or an operator)
    before the stake was refunded: the share is the house's now, and the meter, at its
    seed, stays there. An outside check saw a reseed, then a withdrawal, leave it 70
    cents under its seed for good."""
    await store.ensure_meter(JP, SEED)
    a = await store.create_player("a", 10_000, 0)
    b = await store.create_player("b", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 0, a.player_id, 100, progressive=True))
    await store.bet(fence("beta"), op(), *ante("r2", 0, b.player_id, 100))
    full = JackpotClaim("r2", 0, b.player_id, "ROYAL_FLUSH", 10_000)
    await store.settle(
        fence("beta"), "r2", [], [full], JP, SEED, record("r2", (0, b.player_id), table="beta")
    )
    assert await store.meter(JP) == SEED
    await store.apply(F, op(), refunds("r1", 0, a.player_id, 100, raised=False), [])
    assert await store.wallet(a.player_id) == Wallet(10_000, 0, 200)  # the hold is the table's
    assert await store.meter(JP) == SEED
    assert await store.recover(F) == ["r1"]  # and a void after it moves nothing more
    assert await store.meter(JP) == SEED
    assert await store.wallet(a.player_id) == Wallet(10_000, 0, 0)
    await books(store)


async def test_recover_voids_open_rounds_exactly_once(store: Store) -> None:
    await store.ensure_meter(JP, SEED)
    a = await store.create_player("a", 50_000, 0)
    b = await store.create_player("b", 50_000, 700)
    start = await books(store)
    # r1: a raised, b still deciding; b then took a second seat and withdrew it
    await store.bet(F, op(), *ante("r1", 0, a.player_id, 1_000, progressive=True))
    await store.bet(F, op(), *ante("r1", 1, b.player_id, 500, progressive=True))
    await store.bet(F, op(), *ante("r1", 2, b.player_id, 200))
    await store.apply(F, op(), refunds("r1", 2, b.player_id, 200, raised=False)[:1], [
        Hold("r1", 2, b.player_id, -400)
    ])  # fmt: skip
    await store.apply(F, op(), *raise_("r1", 0, a.player_id, 1_000))
    # r2 at the same table was settled before the crash: recovery leaves it alone
    await store.bet(F, op(), *ante("r2", 0, a.player_id, 100))
    await store.apply(F, op(), *raise_("r2", 0, a.player_id, 100))
    await store.settle(F, "r2", [], [], JP, SEED, record("r2", (0, a.player_id)))
    settled = await books(store)
    # r3 is another table's open round: not this table's to void
    await store.bet(fence("beta"), op(), *ante("r3", 0, b.player_id, 100))
    assert await store.open_rounds(TABLE) == ["r1"]

    assert await store.recover(F) == ["r1"]
    # whom its refunds went to, to be told: they may be connected to any process
    assert await store.round_players("r1") == sorted([a.player_id, b.player_id])
    assert await store.round_players("r3") == [b.player_id]
    assert await store.round_players("never") == []
    totals = await books(store)
    assert totals[player_account(a.player_id)] == settled[player_account(a.player_id)] + 3_100
    assert await store.wallet(a.player_id) == Wallet(50_000 - 300, 0, 0)  # r2's loss only
    assert await store.wallet(b.player_id) == Wallet(50_000 - 100, 700, 200)  # r3 stays
    assert totals[METER] == SEED
    assert await store.open_rounds(TABLE) == []
    assert await store.open_rounds("beta") == ["r3"]

    assert await store.recover(F) == []  # exactly once
    assert await books(store) == totals
    with pytest.raises(RoundConflict):
        await store.settle(F, "r1", [], [], JP, SEED, record("r1", (0, a.player_id)))
    await store.void(F, "r1", refunds("r1", 0, a.player_id, 1_000, raised=True), [])  # no-op
    assert await books(store) == totals
    assert await store.recover(fence("beta")) == ["r3"]
    assert await store.wallet(b.player_id) == Wallet(50_000, 700, 0)
    totals = await books(store)
    assert totals[HOUSE] == start[HOUSE] + 300  # r2, settled, is all that happened


# ----- history ------------------------------------------------------------------------


async def test_history_newest_first_with_balances(store: Store) -> None:
    await store.ensure_meter(JP, SEED)
    a = await store.create_player("a", 1_000_000, 0)
    b = await store.create_player("b", 1_000_000, 0)
    rounds = HISTORY_LIMIT + 20
    for i in range(rounds):
        rid = f"r{i:03}"
        await store.bet(F, op(), *ante(rid, 0, a.player_id, 100, progressive=True))
        payout = [Transfer(rid, 0, Reason.PAYOUT, HOUSE, player_account(a.player_id), 200)]
        claims = [JackpotClaim(rid, 0, a.player_id, "FLUSH", 100)] if i % 10 == 0 else []
        rec = record(rid, (0, a.player_id))
        await store.settle(F, rid, payout, claims, JP, SEED, rec)
    await store.bet(F, op(), *ante("last", 3, b.player_id, 100))
    await store.settle(F, "last", [], [], JP, SEED, record("last", (3, b.player_id)))

    history = await store.history(a.player_id, limit=1_000)
    assert len(history) == HISTORY_LIMIT >= 50
    assert [h["round_id"] for h in history] == [f"r{i:03}" for i in reversed(range(20, rounds))]
    assert [h["round_id"] for h in await store.history(a.player_id, 3)] == [
        "r119",
        "r118",
        "r117",
    ]
    newest = history[0]
    assert newest["seats"][0]["cards"] == ["Ah", "Kh", "Qh", "Jh", "Th"]
    assert newest["dealer"] == ["As", "Kd", "9c", "4h", "2s"]
    assert newest["balance_before"] == newest["balance_after"]  # bet 200, paid 200
    wallet = await store.wallet(a.player_id)
    assert newest["balance_after"] == wallet.balance
    for older, newer in zip(history[1:], history, strict=False):
        assert older["balance_after"] == newer["balance_before"]
    with_jackpot = next(h for h in history if h["round_id"] == "r110")
    assert with_jackpot["jackpots"]["0"] > 0
    assert isinstance(newest["settled_at"], int)
    table = await store.table_history(TABLE, limit=2)
    assert [h["round_id"] for h in table] == ["last", "r119"]
    assert "balance_after" not in table[0]
    assert await store.history("nobody") == []
    assert await store.history(a.player_id, 0) == []
    assert len(await store.jackpot_hits(JP, 1_000)) == 12
    await books(store)


# ----- operation ids: a repeated write applies nothing twice --------------------------


async def test_a_repeated_operation_id_returns_the_first_result(store: Store) -> None:
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000, 0)
    bought = await store.buy_chips(p.player_id, 500, 20_000, "buy-1")
    assert bought == Wallet(10_500, 0, 0)
    assert await store.buy_chips(p.player_id, 500, 20_000, "buy-1") == bought  # applied once
    first = await store.bet(F, "r1:0:ante:1", *ante("r1", 0, p.player_id, 1_000))
    assert await store.bet(F, "r1:0:ante:1", *ante("r1", 0, p.player_id, 1_000)) == first
    raised = await store.apply(F, "r1:0:raise:2", *raise_("r1", 0, p.player_id, 1_000))
    assert await store.apply(F, "r1:0:raise:2", *raise_("r1", 0, p.player_id, 1_000)) == raised
    assert await store.wallet(p.player_id) == Wallet(10_500 - 3_000, 0, 0)
    # the same id in another round, or for another player's buy-in, is another operation
    second = await store.bet(F, "r1:0:ante:1", *ante("r2", 0, p.player_id, 100))
    assert second.balance == 10_500 - 3_100
    q = await store.create_player("b", 0, 0)
    assert (await store.buy_chips(q.player_id, 700, 20_000, "buy-1")).balance == 700
    await books(store)


async def test_an_abandoned_operation_never_applies(store: Store) -> None:
    p = await store.create_player("a", 10_000, 0)
    # not applied yet: marked dead, and the late original is refused without effect
    assert await store.abandon("buy-9", player_id=p.player_id) is False
    with pytest.raises(OpAbandoned):
        await store.buy_chips(p.player_id, 500, 20_000, "buy-9")
    assert await store.abandon("buy-9", player_id=p.player_id) is False
    assert await store.abandon("r1:0:ante:1", round_id="r1") is False
    with pytest.raises(OpAbandoned) as e:
        await store.bet(F, "r1:0:ante:1", *ante("r1", 0, p.player_id, 1_000))
    assert e.value.code == "store_unavailable"
    assert await store.wallet(p.player_id) == Wallet(10_000, 0, 0)
    assert await store.open_rounds(TABLE) == []  # a dead id opens no round
    # applied before: the answer is True and nothing changes
    await store.bet(F, "r1:0:ante:2", *ante("r1", 0, p.player_id, 1_000))
    assert await store.abandon("r1:0:ante:2", round_id="r1") is True
    await store.buy_chips(p.player_id, 500, 20_000, "buy-10")
    assert await store.abandon("buy-10", player_id=p.player_id) is True
    assert await store.wallet(p.player_id) == Wallet(9_500, 0, 2_000)
    with pytest.raises(InvalidRequest):
        await store.abandon("x")
    await books(store)


async def test_creating_a_player_twice_grants_once(store: Store) -> None:
    chosen = Player("p-fixed", "a", "token-fixed")
    assert await store.create_player("a", 10_000, 500, chosen) == chosen
    assert await store.create_player("a", 10_000, 500, chosen) == chosen
    assert await store.wallet("p-fixed") == Wallet(10_000, 500, 0)
    assert (await books(store))[WORLD] == -10_000


# ----- fencing: writes of an old epoch (the leases: tests/test_store_leases.py) --------


async def test_writes_of_a_stale_epoch_are_refused(store: Store) -> None:
    await store.ensure_meter(JP, SEED)
    p = await store.create_player("a", 10_000, 0)
    old = Fence(TABLE, (await store.claim(TABLE, "east", 0, 30)).epoch)
    await store.bet(old, op(), *ante("r1", 0, p.player_id, 1_000))
    await store.release(TABLE, "east", old.epoch)
    new = Fence(TABLE, (await store.claim(TABLE, "west", 0, 30)).epoch)
    assert new.epoch > old.epoch
    before = await books(store)
    with pytest.raises(NotOwner) as e:
        await store.bet(old, op(), *ante("r1", 1, p.player_id, 100))
    assert e.value.code == "table_moved" and e.value.details["epoch"] == new.epoch
    assert e.value.holder == "west"  # where the table went: for its viewers, not in details
    assert "holder" not in e.value.details
    for write in (
        lambda: store.apply(old, op(), *raise_("r1", 0, p.player_id, 1_000)),
        lambda: store.settle(old, "r1", [], [], JP, SEED, record("r1", (0, p.player_id))),
        lambda: store.void(old, "r1", [], []),
        lambda: store.recover(old),
    ):
        with pytest.raises(NotOwner):
            await write()
    assert await books(store) == before
    assert await store.open_rounds(TABLE) == ["r1"]
    assert await store.recover(new) == ["r1"]  # the new host voids what the old one left
    assert await store.wallet(p.player_id) == Wallet(10_000, 0, 0)
    await books(store)


async def test_a_write_replayed_after_the_table_moved_still_answers_truly(store: Store) -> None:
    """An operation applied under the old epoch, repeated after a takeover, is reported
    applied (its first result), not refused: the player was charged."""
    p = await store.create_player("a", 10_000, 0)
    old = Fence(TABLE, (await store.claim(TABLE, "east", 0, 30)).epoch)
    first = await store.bet(old, "r1:0:ante:1", *ante("r1", 0, p.player_id, 1_000))
    await store.release(TABLE, "east", old.epoch)
    await store.claim(TABLE, "west", 0, 30)
    assert await store.bet(old, "r1:0:ante:1", *ante("r1", 0, p.player_id, 1_000)) == first


# ----- the same random games on both stores ------------------------------------------

TABLES = ("t1", "t2")
ANTES = (100, 100, 500, 2_000, 40_000)  # 40_000 is more than anyone has

players = st.integers(0, 2)
tables = st.sampled_from(TABLES)
#: One round at a table: its bets, the decisions made, how it ends (or stays open
#: for a later recover), the payout factors and the percent claims of its seats.
rounds = st.tuples(
    st.just("round"),
    tables,
    st.lists(st.tuples(players, st.sampled_from(ANTES), st.booleans()), min_size=1, max_size=4),
    st.lists(st.booleans(), max_size=4),
    st.sampled_from(["settle", "settle", "void", "recover", "open"]),
    st.lists(st.sampled_from([0, 1, 2, 3, 9]), max_size=4),
    st.lists(st.sampled_from([0, 100, 1_000, 5_000, 10_000]), max_size=4),
)
ops = st.lists(
    st.one_of(
        rounds,
        st.tuples(st.just("resettle"), st.booleans()),
        st.tuples(st.just("recover"), tables),
        st.tuples(st.just("buy"), players, st.integers(-10, 300_000)),
    ),
    min_size=3,
    max_size=12,
)


class Game:
    """Plays `ops` against a store the way the tables do; returns what it saw, with
    player ids replaced by P0, P1... so two stores' traces compare equal."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.ids: list[str] = []
        self.rounds: dict[str, dict[str, Any]] = {}
        self.count = 0
        self.last: tuple[str, list[Transfer], list[JackpotClaim], dict[str, Any]] | None = None
        self.trace: list[Any] = []

    def norm(self, value: Any) -> Any:
        names = {pid: f"P{i}" for i, pid in enumerate(self.ids)}
        names.update({player_account(pid): f"player:P{i}" for i, pid in enumerate(self.ids)})
        if isinstance(value, str):
            return names.get(value, value)
        if isinstance(value, dict):
            return {self.norm(k): self.norm(v) for k, v in value.items() if k != "settled_at"}
        if isinstance(value, list | tuple):
            return [self.norm(v) for v in value]
        if isinstance(value, Wallet):
            return ("wallet", value.balance, value.bonus, value.held)
        if hasattr(value, "__dataclass_fields__"):
            return self.norm({k: getattr(value, k) for k in value.__dataclass_fields__})
        return value

    async def step(self, op: tuple[Any, ...]) -> None:
        if op[0] == "round":
            _, table, bets, choices, ending, factors, bps = op
            for bet in bets:
                await self.step(("bet", *bet[:1], table, *bet[1:]))
            await self.step(("decide", table, choices))
            if ending == "settle":
                await self.step(("settle", table, factors, bps))
            elif ending != "open":
                await self.step((ending, table))
            return
        try:
            result = await getattr(self, op[0])(*op[1:])
        except StoreError as e:
            result = ("error", e.code, type(e).__name__, e.details)
        self.trace.append(self.norm([op[0], result]))
        await books(self.store)
        for pid in self.ids:
            w = await self.store.wallet(pid)
            assert 0 <= w.held <= w.balance, w

    async def play(self, script: list[tuple[Any, ...]]) -> list[Any]:
        await self.store.ensure_meter(JP, 1_000)
        for i in range(3):
            self.ids.append((await self.store.create_player(f"p{i}", 20_000, 300 * i)).player_id)
        for op in script:
            await self.step(op)
        for pid in self.ids:
            self.trace.append(self.norm(await self.store.history(pid, 200)))
            self.trace.append(self.norm(await self.store.wallet(pid)))
        for table in TABLES:
            self.trace.append(self.norm(await self.store.table_history(table, 200)))
            self.trace.append(await self.store.open_rounds(table))
        self.trace.append(self.norm(await self.store.jackpot_hits(JP, 200)))
        self.trace.append(self.norm(await self.store.totals()))
        return self.trace

    def round(self, table: str) -> dict[str, Any]:
        if table not in self.rounds:
            self.count += 1
            self.rounds[table] = {"id": f"{table}-{self.count}", "seats": []}
        return self.rounds[table]

    async def bet(self, player: int, table: str, amount: int, progressive: bool) -> Any:
        r = self.round(table)
        if len(r["seats"]) >= 4:
            return "table full"
        seat = len(r["seats"])
        pid = self.ids[player]
        w = await self.store.bet(fence(table), op(), *ante(r["id"], seat, pid, amount, progressive))
        r["seats"].append({"pid": pid, "ante": amount, "prog": progressive, "raised": None})
        return w

    async def decide(self, table: str, choices: list[bool]) -> Any:
        r = self.rounds.get(table)
        if r is None:
            return "no round"
        out = []
        for seat, (s, raised) in enumerate(zip(r["seats"], choices, strict=False)):
            if s["raised"] is not None:
                continue
            s["raised"] = raised
            if raised:
                out.append(
                    await self.store.apply(
                        fence(table), op(), *raise_(r["id"], seat, s["pid"], s["ante"])
                    )
                )
            else:
                hold = Hold(r["id"], seat, s["pid"], -2 * s["ante"])
                out.append(await self.store.apply(fence(table), op(), [], [hold]))
        return out

    async def settle(self, table: str, factors: list[int], bps: list[int]) -> Any:
        r = self.rounds.pop(table, None)
        if r is None:
            return "no round"
        rid = r["id"]
        transfers, claims = [], []
        for seat, s in enumerate(r["seats"]):
            me = player_account(s["pid"])
            stake = s["ante"] * (3 if s["raised"] else 1)
            factor = factors[seat] if seat < len(factors) else 0
            if factor:
                transfers.append(Transfer(rid, seat, Reason.PAYOUT, HOUSE, me, stake * factor))
            bp = bps[seat] if seat < len(bps) else 0
            if s["prog"] and bp:
                claims.append(JackpotClaim(rid, seat, s["pid"], "FLUSH", bp))
        rec = record(rid, *((i, s["pid"]) for i, s in enumerate(r["seats"])), table=table)
        self.last = (rid, transfers, claims, rec)
        return await self.store.settle(fence(rec["table"]), rid, transfers, claims, JP, 1_000, rec)

    async def resettle(self, same: bool) -> Any:
        if self.last is None:
            return "nothing settled"
        rid, transfers, claims, rec = self.last
        if not same:
            transfers = [*transfers, Transfer(rid, 0, Reason.PAYOUT, HOUSE, "house:x", 1)]
        return await self.store.settle(fence(rec["table"]), rid, transfers, claims, JP, 1_000, rec)

    async def void(self, table: str) -> Any:
        r = self.rounds.pop(table, None)
        if r is None:
            return "no round"
        transfers, holds = [], []
        for seat, s in enumerate(r["seats"]):
            me = player_account(s["pid"])
            transfers.append(Transfer(r["id"], seat, Reason.REFUND, HOUSE, me, s["ante"]))
            if s["raised"]:
                transfers.append(Transfer(r["id"], seat, Reason.REFUND, HOUSE, me, 2 * s["ante"]))
            elif s["raised"] is None:
                holds.append(Hold(r["id"], seat, s["pid"], -2 * s["ante"]))
            if s["prog"]:
                transfers.append(Transfer(r["id"], seat, Reason.REFUND, METER, me, 50))
                transfers.append(Transfer(r["id"], seat, Reason.REFUND, HOUSE, me, 50))
        await self.store.void(fence(table), r["id"], transfers, holds)
        await self.store.void(fence(table), r["id"], transfers, holds)  # idempotent
        return await self.store.totals()

    async def recover(self, table: str) -> Any:
        voided = await self.store.recover(fence(table))
        r = self.rounds.get(table)
        if r is not None and r["id"] in voided:
            del self.rounds[table]
        return voided

    async def buy(self, player: int, amount: int) -> Any:
        return await self.store.buy_chips(self.ids[player], amount, 100_000, op())


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(script=ops)
def test_random_games_keep_the_books_on_memory(script: list[tuple[Any, ...]]) -> None:
    asyncio.run(Game(MemoryStore()).play(script))


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(script=ops)
def test_random_games_are_identical_on_redis(
    redis_url: str,  # noqa: F811 - the fixture
    script: list[tuple[Any, ...]],
) -> None:
    async def both() -> tuple[list[Any], list[Any]]:
        expected = await Game(MemoryStore()).play(script)
        namespace = fresh_namespace()
        redis = await RedisStore.connect(redis_url, namespace)
        try:
            return expected, await Game(redis).play(script)
        finally:
            await redis.close()
            await drop_namespace(redis_url, namespace)

    expected, actual = asyncio.run(both())
    assert actual == expected


async def test_writes_sent_together_each_get_their_own_outcome(store: Store) -> None:
    """Bets and raises of many tables in one event-loop turn (the Redis store sends them
    as one script): each is applied or refused on its own, replays included."""
    await store.ensure_meter(JP, SEED)
    rich = [await store.create_player(f"p{i}", 10_000, 0) for i in range(6)]
    poor = await store.create_player("poor", 500, 0)
    stale = Fence("moved", (await store.claim("moved", "east", 0, 30)).epoch)
    await store.release("moved", "east", stale.epoch)
    await store.claim("moved", "west", 0, 30)
    repeated = op()
    first = await store.bet(fence("t0"), repeated, *ante("r-t0", 0, rich[0].player_id, 1_000))
    before = await books(store)
    outcomes = await asyncio.gather(
        store.bet(fence("t0"), repeated, *ante("r-t0", 0, rich[0].player_id, 1_000)),
        *(
            store.bet(fence(f"t{i}"), op(), *ante(f"r-t{i}", 0, p.player_id, 1_000, True))
            for i, p in enumerate(rich[1:], start=1)
        ),
        store.bet(fence("t9"), op(), *ante("r-t9", 0, poor.player_id, 1_000)),
        store.bet(stale, op(), *ante("r-moved", 0, rich[5].player_id, 100)),
        store.apply(fence("t0"), op(), *raise_("r-t0", 0, rich[0].player_id, 1_000)),
        return_exceptions=True,
    )
    assert outcomes[0] == first  # the replay: its first result, applied once
    for i in range(1, 6):
        assert outcomes[i] == Wallet(10_000 - 1_100, 0, 2_000)
    assert isinstance(outcomes[6], InsufficientFunds)
    assert isinstance(outcomes[7], NotOwner)
    assert outcomes[8] == {rich[0].player_id: Wallet(10_000 - 3_000, 0, 0)}
    after = await books(store)
    assert after[HOUSE] - before[HOUSE] == 5 * 1_050 + 2_000  # antes, their half, the raise
    assert after[METER] - before[METER] == 5 * 50
    assert await store.wallet(poor.player_id) == Wallet(500, 0, 0)
    assert await store.open_rounds("t9") == [] and await store.open_rounds("moved") == []
