"""The operator console's store contract: MemoryAdmin and RedisAdmin pass the same tests.

Every act is applied once by its id with one audit row, and the books balance
after each (the sum of all accounts is 0; adjustments move money between a
wallet or a meter and the house).
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from server.game.ledger import (
    HOUSE,
    Hold,
    JackpotClaim,
    Reason,
    Transfer,
    meter_account,
    player_account,
)
from server.stores.admin import (
    Act,
    ActionConflict,
    AdminStore,
    RoundStat,
    round_stat,
    suspension,
)
from server.stores.admin_memory import MemoryAdmin
from server.stores.admin_redis import RedisAdmin
from server.stores.base import Fence, Player, Store, StoreError, Wallet
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore
from tests.redis_fixture import (
    drop_namespace,
    fresh_namespace,
    redis_url,  # noqa: F401 - a fixture
    time_limit,  # noqa: F401 - a fixture
)

pytestmark = pytest.mark.usefixtures("time_limit")

START = 100_000
SEED = 50_000
_ids = itertools.count()


@dataclass
class Stores:
    store: Store
    admin: AdminStore


@pytest.fixture(params=["memory", "redis"])
async def stores(request: pytest.FixtureRequest) -> AsyncIterator[Stores]:
    if request.param == "memory":
        memory = MemoryStore()
        yield Stores(memory, MemoryAdmin(memory))
        return
    url: str = request.getfixturevalue("redis_url")
    namespace = fresh_namespace()
    redis = await RedisStore.connect(url, namespace)
    try:
        yield Stores(redis, RedisAdmin(redis))
    finally:
        await redis.close()
        await drop_namespace(url, namespace)


def act(action: str, target: str, reason: str = "a test", **request: Any) -> Act:
    return Act(
        f"act-{uuid.uuid4().hex[:12]}",
        "olga",
        int(time.time() * 1000),
        action,
        target,
        reason,
        request,
    )


async def player(s: Stores, name: str = "pat") -> str:
    p = Player(f"p{next(_ids)}-{uuid.uuid4().hex[:6]}", name, uuid.uuid4().hex)
    await s.store.create_player(name, START, 0, p)
    return p.player_id


async def books(store: Store) -> dict[str, int]:
    totals = await store.totals()
    assert sum(totals.values()) == 0, totals
    return totals


# ----- operators and tokens --------------------------------------------------------------


async def test_operators_are_added_listed_replaced_and_removed(stores: Stores) -> None:
    a = stores.admin
    assert await a.put_operator("Olga", "$argon2id$one", replace=False, now_ms=1)
    assert not await a.put_operator("olga", "$argon2id$two", replace=False, now_ms=2)
    found = await a.get_operator("OLGA")
    assert found is not None and found.name == "Olga" and found.password_hash == "$argon2id$one"
    await a.issue_operator_token("Olga", "tok-1", 60)
    assert await a.operator_for_token("tok-1") == "Olga"
    # replacing the password revokes the tokens made with the old one
    assert await a.put_operator("Olga", "$argon2id$two", replace=True, now_ms=3)
    assert await a.operator_for_token("tok-1") is None
    await a.put_operator("bert", "$argon2id$b", replace=False, now_ms=4)
    assert [o.name for o in await a.list_operators()] == ["bert", "Olga"]
    await a.issue_operator_token("bert", "tok-2", 60)
    assert await a.remove_operator("BERT")
    assert not await a.remove_operator("bert")
    assert await a.operator_for_token("tok-2") is None
    assert [o.name for o in await a.list_operators()] == ["Olga"]


async def test_an_operator_s_role_is_kept_and_a_new_one_revokes_its_tokens(
    stores: Stores,
) -> None:
    a = stores.admin
    assert await a.put_operator("olga", "$argon2id$x", replace=False, now_ms=1)
    assert await a.put_operator("vera", "$argon2id$v", replace=False, now_ms=1, role="viewer")
    assert {o.name: o.role for o in await a.list_operators()} == {"olga": "admin", "vera": "viewer"}
    await a.issue_operator_token("vera", "tok-v", 60)
    assert await a.put_operator("vera", "$argon2id$v", replace=True, now_ms=1, role="admin")
    assert await a.operator_for_token("tok-v") is None
    found = await a.get_operator("vera")
    assert found is not None and found.role == "admin"


async def test_tokens_expire_and_are_revoked(stores: Stores) -> None:
    a = stores.admin
    await a.put_operator("olga", "$argon2id$x", replace=False, now_ms=1)
    await a.issue_operator_token("olga", "live", 60)
    await a.issue_operator_token("olga", "short", 0.05)
    await a.revoke_operator_token("live")
    assert await a.operator_for_token("live") is None
    if isinstance(a, MemoryAdmin):
        a.clock = lambda: time.time() + 1
    for _ in range(200):  # Redis expires the key on its own clock
        if await a.operator_for_token("short") is None:
            break
        await asyncio.sleep(0.02)
    assert await a.operator_for_token("short") is None
    # a player's session token is no operator's
    pid = await player(stores)
    assert await a.operator_for_token(pid) is None


# ----- the store's own acts ---------------------------------------------------------------


async def test_credit_and_debit_move_money_from_and_to_the_house_once(stores: Stores) -> None:
    pid = await player(stores)
    before = await books(stores.store)
    credit = act("credit", f"player:{pid}", "goodwill", amount=2_500)
    first = await stores.admin.adjust(credit, pid, 2_500)
    assert first.row["outcome"] == "applied" and not first.replayed
    assert first.row["details"]["result"]["balance"] == START + 2_500
    again = await stores.admin.adjust(credit, pid, 2_500)
    assert again.replayed and again.row == first.row
    after = await books(stores.store)
    assert after[player_account(pid)] == START + 2_500
    assert after[HOUSE] == before.get(HOUSE, 0) - 2_500
    debit = act("debit", f"player:{pid}", "a payout paid twice", amount=500)
    row = (await stores.admin.adjust(debit, pid, -500)).row
    assert row["outcome"] == "applied" and row["details"]["result"]["amount"] == -500
    assert (await stores.store.wallet(pid)).balance == START + 2_000
    await books(stores.store)
    rows, total = await stores.admin.audit(0, 10)
    assert total == 2 and [r["id"] for r in rows] == [debit.id, credit.id]
    assert rows[0]["target"] == f"player:{pid}" and rows[0]["reason"] == "a payout paid twice"
    assert set(rows[0]) == {
        "id",
        "operator",
        "ts",
        "action",
        "target",
        "reason",
        "outcome",
        "details",
    }


async def test_a_debit_takes_only_available_money(stores: Stores) -> None:
    pid = await player(stores)
    rid = "alpha-held"
    bet = [Transfer(rid, 0, Reason.ANTE, player_account(pid), HOUSE, 1_000)]
    await stores.store.bet(Fence("alpha", 0), "op-1", bet, [Hold(rid, 0, pid, 2_000)])
    available = START - 1_000 - 2_000
    too_much = act("debit", f"player:{pid}", "too much", amount=available + 1)
    row = (await stores.admin.adjust(too_much, pid, -(available + 1))).row
    assert row["outcome"] == "refused"
    assert row["details"]["result"] == {"code": "insufficient_funds", "available": available}
    # the refusal is the act's outcome: the same id again is refused again, nothing applied
    assert (await stores.admin.adjust(too_much, pid, -(available + 1))).row == row
    assert (await stores.store.wallet(pid)).balance == START - 1_000
    nobody = act("credit", "player:nobody", "who", amount=1)
    assert (await stores.admin.adjust(nobody, "nobody", 1)).row["details"]["result"] == {
        "code": "unknown_player"
    }
    await books(stores.store)


async def test_a_credit_may_not_bring_the_balance_past_the_limit(stores: Stores) -> None:
    """One mistyped amount cannot mint a fortune: a credit over the wallet's limit is
    refused, nothing moved; one up to it exactly is applied."""
    pid = await player(stores)
    limit = START + 10_000
    over = act("credit", f"player:{pid}", "typo", amount=10**13)
    row = (await stores.admin.adjust(over, pid, 10**13, limit=limit)).row
    assert row["outcome"] == "refused"
    assert row["details"]["result"] == {"code": "over_limit", "balance": START, "limit": limit}
    assert (await stores.store.wallet(pid)).balance == START
    exact = act("credit", f"player:{pid}", "to the limit", amount=10_000)
    assert (await stores.admin.adjust(exact, pid, 10_000, limit=limit)).row["outcome"] == "applied"
    assert (await stores.store.wallet(pid)).balance == limit
    await books(stores.store)


async def test_an_action_id_reused_for_another_request_is_refused(stores: Stores) -> None:
    pid = await player(stores)
    first = act("credit", f"player:{pid}", "once", amount=100)
    await stores.admin.adjust(first, pid, 100)
    other = Act(first.id, first.operator, first.ts, "credit", first.target, "once", {"amount": 999})
    with pytest.raises(ActionConflict):
        await stores.admin.adjust(other, pid, 999)
    with pytest.raises(ActionConflict):
        await stores.admin.submit(other)
    assert (await stores.store.wallet(pid)).balance == START + 100


async def test_meters_are_reseeded_and_corrected_against_the_house(stores: Stores) -> None:
    s = stores
    await s.store.ensure_meter("main", SEED)
    pid = await player(s)
    rid = "alpha-meter"
    stake = [Transfer(rid, 0, Reason.PROGRESSIVE, player_account(pid), meter_account("main"), 70)]
    await s.store.bet(Fence("alpha", 0), "op-m", stake, [])
    assert await s.store.meter("main") == SEED + 70
    reseed = act("reseed", "jackpot:main", "back to the seed")
    row = (await s.admin.set_meter(reseed, "main", None)).row
    assert row["outcome"] == "applied"
    result = {"name": "main", "before": SEED + 70, "after": SEED, "seed": SEED}
    assert row["details"]["result"] == result
    assert (await s.admin.set_meter(reseed, "main", None)).replayed
    assert await s.store.meter("main") == SEED
    same = act("reseed", "jackpot:main", "again")
    assert (await s.admin.set_meter(same, "main", None)).row["outcome"] == "unchanged"
    fix = act("correct", "jackpot:main", "a lost contribution", amount=SEED + 1_234)
    assert (await s.admin.set_meter(fix, "main", SEED + 1_234)).row["outcome"] == "applied"
    assert await s.store.meter("main") == SEED + 1_234
    # never below the seed (PROTOCOL.md section 7): a Royal Flush pays at least that
    low = act("correct", "jackpot:main", "a typo", amount=500)
    row = (await s.admin.set_meter(low, "main", 500)).row
    assert row["outcome"] == "refused"
    assert row["details"]["result"] == {"code": "below_seed", "seed": SEED, "amount": SEED + 1_234}
    assert await s.store.meter("main") == SEED + 1_234
    unknown = act("reseed", "jackpot:nope", "no such")
    refused = (await s.admin.set_meter(unknown, "nope", None)).row
    assert refused["details"]["result"] == {"code": "unknown_jackpot"}
    await books(s.store)


async def test_players_are_suspended_once(stores: Stores) -> None:
    pid = await player(stores, "Sly Sam")
    off = act("suspend", f"player:{pid}", "chip dumping")
    assert (await stores.admin.suspend(off, pid, True)).row["outcome"] == "applied"
    assert (await stores.admin.suspend(off, pid, True)).replayed
    state = await stores.admin.admin_state()
    assert state.suspended[pid] == suspension(off)
    profile = await stores.admin.player(pid)
    assert profile is not None and profile["suspended"]["reason"] == "chip dumping"
    twice = act("suspend", f"player:{pid}", "again")
    assert (await stores.admin.suspend(twice, pid, True)).row["outcome"] == "unchanged"
    back = act("unsuspend", f"player:{pid}", "cleared")
    assert (await stores.admin.suspend(back, pid, False)).row["outcome"] == "applied"
    assert pid not in (await stores.admin.admin_state()).suspended
    rows, total = await stores.admin.audit(0, 10, target=f"player:{pid}")
    assert total == 3 and rows[0]["id"] == back.id


async def test_a_suspended_player_s_new_money_is_refused_by_the_store_itself(
    stores: Stores,
) -> None:
    """A process that has not heard of a suspension yet still writes the player's ante or
    chip purchase: the store refuses it (with the operator's reason) before writing
    anything, alone or in a turn's batch. A hand dealt before still plays out (its
    raise is an apply), and a write that landed before is still its own replay."""
    s = stores
    pid, other = await player(s, "Sly Sam"), await player(s, "Ann")
    fence = Fence("alpha", 0)

    def bet(rid: str, who: str, op: str, progressive: bool = False) -> Any:
        transfers = [Transfer(rid, 0, Reason.ANTE, player_account(who), HOUSE, 100)]
        if progressive:
            transfers.append(Transfer(rid, 0, Reason.PROGRESSIVE, player_account(who), HOUSE, 50))
        return s.store.bet(fence, op, transfers, [Hold(rid, 0, who, 200)])

    dealt = await bet("r1", pid, "r1:ante")
    await s.store.buy_chips(pid, 1_000, 10 * START, "buy-1")
    off = act("suspend", f"player:{pid}", "chip dumping")
    assert (await s.admin.suspend(off, pid, True)).row["outcome"] == "applied"
    before = await s.store.wallet(pid)
    totals = await books(s.store)

    def refused(outcome: object) -> bool:
        return (
            isinstance(outcome, StoreError)
            and outcome.code == "account_suspended"
            and outcome.details == {"reason": "chip dumping"}
        )

    sent: list[str] = []
    if isinstance(s.store, RedisStore):
        evalsha = s.store._evalsha

        async def spy(what: str, *args: Any, **kwargs: Any) -> Any:
            sent.append(what)
            return await evalsha(what, *args, **kwargs)

        s.store._evalsha = spy  # type: ignore[method-assign]
    for outcome in [
        *await asyncio.gather(bet("r2", pid, "r2:ante"), return_exceptions=True),
        *await asyncio.gather(bet("r3", pid, "r3:ante", progressive=True), return_exceptions=True),
        *await asyncio.gather(
            s.store.buy_chips(pid, 1_000, 10 * START, "buy-2"), return_exceptions=True
        ),
    ]:
        assert refused(outcome), outcome
    batch = await asyncio.gather(
        bet("r4", other, "r4:ante"), bet("r4", pid, "r4:ante-2"), return_exceptions=True
    )
    assert batch[0] == Wallet(START - 100, 0, 200) and refused(batch[1]), batch
    if isinstance(s.store, RedisStore):
        assert sent[-1] == "2 table writes", sent  # the batch script refused it too
    assert await s.store.wallet(pid) == before
    assert {k: v for k, v in (await books(s.store)).items() if k != player_account(other)} == {
        **{k: v for k, v in totals.items() if k != player_account(other)},
        HOUSE: totals[HOUSE] + 100,
    }
    # what landed before the suspension stays its own: replays, not refusals
    assert await bet("r1", pid, "r1:ante") == dealt
    assert await s.store.buy_chips(pid, 1_000, 10 * START, "buy-1") == before
    # the hand dealt before plays out: its raise is taken from what the ante held
    transfers = [Transfer("r1", 0, Reason.RAISE, player_account(pid), HOUSE, 200)]
    raised = await s.store.apply(fence, "r1:raise", transfers, [Hold("r1", 0, pid, -200)])
    assert raised[pid] == Wallet(before.balance - 200, 0, 0)
    back = act("unsuspend", f"player:{pid}", "cleared")
    assert (await s.admin.suspend(back, pid, False)).row["outcome"] == "applied"
    assert (await bet("r5", pid, "r5:ante")).balance == before.balance - 300
    await books(s.store)


# ----- a table's acts ------------------------------------------------------------------------


async def test_a_table_act_is_pending_until_its_host_finishes_it_once(stores: Stores) -> None:
    a = stores.admin
    pause = act("pause", "table:alpha", "a dealer swap")
    assert (await a.submit(pause)).state == "pending"
    again = await a.submit(pause)
    assert again.state == "pending" and again.replayed
    state = await a.admin_state()
    assert list(state.pending) == [pause.id] and state.pending[pause.id] == pause
    flag = {"set": {"reason": pause.reason, "since_ms": pause.ts, "by": "olga"}}
    row = pause.row("applied", {"process": "p1"})
    done = await a.finish(pause, row, flag)
    assert done.row == row and not done.replayed
    assert (await a.finish(pause, pause.row("unchanged", {}), {"clear": True})).replayed
    state = await a.admin_state()
    assert not state.pending and state.paused["alpha"] == flag["set"]
    submitted = await a.action(pause.id)
    assert submitted is not None and submitted.state == "done" and submitted.row == row
    assert (await a.submit(pause)).row == row  # a repeat of the request: its first outcome
    resume = act("resume", "table:alpha", "done")
    await a.submit(resume)
    await a.finish(resume, resume.row("applied", {}), {"clear": True})
    assert not (await a.admin_state()).paused
    rows, total = await a.audit(0, 1)
    assert total == 2 and rows[0]["id"] == resume.id
    lines = await a.audit_lines(0, 10)
    assert [line.count("\n") for line in lines] == [0, 0]
    assert await a.action("never-asked") is None


async def test_a_table_act_naming_a_player_is_listed_under_the_player_too(
    stores: Stores,
) -> None:
    """A `remove` was on record under its table only: the player's page, which reads the
    log by `player:<id>`, did not show that an operator had removed them."""
    a = stores.admin
    pid = await player(stores)
    credit = act("credit", f"player:{pid}", "goodwill", amount=5)
    await a.adjust(credit, pid, 5)
    remove = act("remove", "table:alpha", "abusive chat", player_id=pid)
    await a.submit(remove)
    done = await a.finish(remove, remove.row("applied", {"player_id": pid, "at_round_end": False}))
    assert (await a.finish(remove, remove.row("applied", {}))).replayed  # listed once
    mine, total = await a.audit(0, 10, target=f"player:{pid}")
    assert total == 2 and [r["id"] for r in mine] == [remove.id, credit.id]
    assert mine[0] == done.row and mine[0]["target"] == "table:alpha"
    table, total = await a.audit(0, 10, target="table:alpha")
    assert total == 1 and table[0]["id"] == remove.id
    assert (await a.audit(0, 10))[1] == 2  # one row each in the log itself
    pause = act("pause", "table:alpha", "dealer change")
    await a.submit(pause)
    await a.finish(pause, pause.row("applied", {}), {"set": {"reason": "x", "since_ms": 1}})
    assert (await a.audit(0, 10, target=f"player:{pid}"))[1] == 2


async def test_the_audit_log_pages_newest_first(stores: Stores) -> None:
    pid = await player(stores)
    ids = []
    for i in range(5):
        credit = act("credit", f"player:{pid}", f"credit {i}", amount=1)
        ids.append(credit.id)
        await stores.admin.adjust(credit, pid, 1)
    page, total = await stores.admin.audit(1, 2)
    assert total == 5 and [r["id"] for r in page] == [ids[3], ids[2]]
    last, _ = await stores.admin.audit(4, 10)
    assert [r["id"] for r in last] == [ids[0]]
    assert (await stores.admin.audit(5, 10))[0] == []
    lines = await stores.admin.audit_lines(3, 10)
    assert len(lines) == 2 and f'"id":"{ids[3]}"' in lines[0]


# ----- reads -----------------------------------------------------------------------------


async def test_players_are_found_by_id_username_or_name(stores: Stores) -> None:
    ann = await player(stores, "Ann Smith")
    await player(stores, "Bob")
    await stores.store.register(ann, "ann_99", "$argon2id$x", "tok")
    by_name = await stores.admin.find_players("smith", 10)
    assert [p["player_id"] for p in by_name] == [ann]
    assert by_name[0] == {"player_id": ann, "name": "Ann Smith", "username": "ann_99"}
    assert [p["player_id"] for p in await stores.admin.find_players("ANN_99", 10)] == [ann]
    assert [p["player_id"] for p in await stores.admin.find_players(ann, 10)] == [ann]
    assert await stores.admin.find_players("nobody-like-this", 10) == []
    assert await stores.admin.player("missing") is None


async def test_holds_and_a_round_journal(stores: Stores) -> None:
    pid = await player(stores)
    rid = "alpha-j1"
    bet = [Transfer(rid, 2, Reason.ANTE, player_account(pid), HOUSE, 300)]
    await stores.store.bet(Fence("alpha", 0), "op-j", bet, [Hold(rid, 2, pid, 600)])
    assert await stores.admin.holds(pid, ["alpha", "beta"]) == [
        {"round_id": rid, "table": "alpha", "seat": 2, "amount": 600}
    ]
    journal = await stores.admin.journal(rid)
    assert journal is not None
    assert journal["state"] == "open" and journal["table"] == "alpha"
    assert journal["ledger"] == [[rid, 2, "ante", player_account(pid), HOUSE, 300]]
    assert journal["holds"] == [{"seat": 2, "player_id": pid, "amount": 600}]
    assert await stores.store.recover(Fence("alpha", 0)) == [rid]  # as a new host does
    journal = await stores.admin.journal(rid)
    assert journal is not None and journal["state"] == "voided"
    assert journal["ledger"][-1][2] == "refund" and journal["holds"] == []
    assert await stores.admin.holds(pid, ["alpha"]) == []
    assert await stores.admin.journal("alpha-never") is None


async def test_a_round_recovered_from_its_journal_reverses_only_what_is_in_play(
    stores: Stores,
) -> None:
    """An ante withdrawn before the crash shows as its ante and its refund, nothing more:
    the journal used to be reversed row by row, so a refund of that refund, taken from
    the player, stood beside one paid to the player. A transfer a later one gave back is
    now left alone; every other is reversed once, as its own row."""
    pid = await player(stores)
    me, meter, rid = player_account(pid), meter_account("main"), "alpha-n1"
    await stores.store.ensure_meter("main", SEED)

    def t(seat: int, reason: Reason, source: str, target: str, cents: int) -> Transfer:
        return Transfer(rid, seat, reason, source, target, cents)

    fence = Fence("alpha", 0)
    stake = [t(0, Reason.PROGRESSIVE, me, meter, 70), t(0, Reason.PROGRESSIVE, me, HOUSE, 30)]
    await stores.store.bet(fence, "op-n1", [t(0, Reason.ANTE, me, HOUSE, 500), *stake], [
        Hold(rid, 0, pid, 1_000)
    ])  # fmt: skip
    await stores.store.bet(fence, "op-n2", [t(1, Reason.ANTE, me, HOUSE, 200)], [
        Hold(rid, 1, pid, 400)
    ])  # fmt: skip
    await stores.store.apply(fence, "op-n3", [t(1, Reason.REFUND, HOUSE, me, 200)], [
        Hold(rid, 1, pid, -400)
    ])  # fmt: skip
    await stores.store.apply(fence, "op-n4", [t(0, Reason.RAISE, me, HOUSE, 1_000)], [
        Hold(rid, 0, pid, -1_000)
    ])  # fmt: skip
    journal = await stores.admin.journal(rid)
    assert journal is not None
    before = len(journal["ledger"])
    assert await stores.store.recover(fence) == [rid]
    journal = await stores.admin.journal(rid)
    assert journal is not None and journal["state"] == "voided"
    added = journal["ledger"][before:]
    assert added == [
        [rid, 0, "refund", HOUSE, me, 1_000],  # the raise, the newest first
        [rid, 0, "refund", HOUSE, me, 30],  # the stake's house share
        [rid, 0, "refund", meter, me, 70],  # and the meter's
        [rid, 0, "refund", HOUSE, me, 500],  # the ante
    ]
    assert (await stores.store.wallet(pid)).balance == START
    await books(stores.store)


async def test_hold_statistics_are_written_with_the_settlement(stores: Stores) -> None:
    """A process wrote its rounds' statistics every 10 s, apart from the settlements: a
    round settled in the seconds before its host was killed, or a backup was taken, was
    in the books and never in the statistics. The settlement writes its row now, its
    percent prizes added, once however often it is repeated."""
    store, fence = stores.store, Fence("alpha", 0)
    await store.ensure_meter("main", SEED)
    a, b = await player(stores), await player(stores, "bo")
    me_a, me_b, meter = player_account(a), player_account(b), meter_account("main")
    stake = Transfer("r1", 0, Reason.PROGRESSIVE, me_a, meter, 100)
    ante_a = Transfer("r1", 0, Reason.ANTE, me_a, HOUSE, 100)
    await store.bet(fence, "o1", [ante_a, stake], [Hold("r1", 0, a, 200)])
    ante_b = Transfer("r1", 1, Reason.ANTE, me_b, HOUSE, 200)
    await store.bet(fence, "o2", [ante_b], [Hold("r1", 1, b, 400)], opens=False)
    raised = Transfer("r1", 0, Reason.RAISE, me_a, HOUSE, 200)
    await store.apply(fence, "o3", [raised], [Hold("r1", 0, a, -200)])
    await store.apply(fence, "o4", [], [Hold("r1", 1, b, -400)])
    # seat 0 raised and won (ante 1:1, raise 2:1: $8 back) and hit 10 % of the meter
    pay = [Transfer("r1", 0, Reason.PAYOUT, HOUSE, me_a, 800)]
    claim = JackpotClaim("r1", 0, a, "STRAIGHT_FLUSH", 1_000)
    won = {"returned": 800, "net": 800 - 100 - 200 - 100, "progressive_prize": 0}
    lost = {"returned": 0, "net": -200, "progressive_prize": None}
    rec = {"round_id": "r1", "table": "alpha", "seats": [
        {"seat": 0, "player_id": a, "ante": 100, "decision": "raise", "progressive": True,
         "result": won},
        {"seat": 1, "player_id": b, "ante": 200, "decision": "fold", "result": lost},
    ]}  # fmt: skip
    settled = await store.settle(fence, "r1", pay, [claim], "main", SEED, rec)
    await store.settle(fence, "r1", pay, [claim], "main", SEED, rec)  # a repeat: once
    now = int(time.time() * 1000)
    stats = await stores.admin.round_stats(["alpha", "beta"], now - 3_600_000, now + 60_000)
    assert stats["alpha"] == {
        "rounds": 1,
        "hands": 2,
        "antes": 300,
        "wagered": 500,
        "returned": 800,
        "progressive_staked": 100,
        "progressive_paid": settled.paid[0].amount,
    }
    assert settled.paid[0].amount == (SEED + 100) // 10
    assert stats["beta"]["rounds"] == 0
    assert (await stores.admin.round_stats(["alpha"], now + 60_000, now + 120_000)) == {
        "alpha": dict.fromkeys(stats["alpha"], 0)
    }


def test_a_round_stat_reads_a_history_entry() -> None:
    entry = {
        "round_id": "alpha-1",
        "settled_at": 5,
        "seats": [
            {  # raised and won 1:1 plus the raise at 2:1, with a $50 progressive prize
                "ante": 100,
                "decision": "raise",
                "progressive": True,
                "result": {"returned": 5_800, "net": 5_800 - 100 - 200 - 100,
                           "progressive_prize": 5_000},
            },
            {"ante": 200, "decision": "fold", "progressive": False,
             "result": {"returned": 0, "net": -200, "progressive_prize": None}},
        ],
    }  # fmt: skip
    assert round_stat(entry) == RoundStat("alpha-1", 5, 2, 300, 500, 800, 100, 5_000)


async def test_details_are_published_for_every_console(stores: Stores) -> None:
    a = stores.admin
    assert not (await a.admin_state()).seen
    await a.mark_seen(5)
    assert (await a.admin_state()).seen
    await a.publish("proc-1", {"process_id": "proc-1", "ts": 1}, {"alpha": {"phase": "waiting"}})
    await a.publish("proc-2", {"process_id": "proc-2", "ts": 2}, {})
    tables, processes = await a.published()
    assert tables == {"alpha": {"phase": "waiting"}}
    assert set(processes) == {"proc-1", "proc-2"}
