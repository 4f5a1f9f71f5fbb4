"""The most one operator act may move: `[admin] max_adjustment`, on each store.

A credit or debit above it is refused in the store's own atomic write: nothing
moves, the wallet and the house stay as they were, the books still sum to 0, and
the refusal is in the audit log (`over_act_limit`, with the limit). The same
request again answers the same refused row and adds none. 0, the default, sets no
limit of its own: the wallet's `max_balance` still bounds a credit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import ClientFactory, make_config
from tests.console import Operator, http, new_id, with_console
from tests.redis_fixture import (
    drop_namespace,
    fresh_namespace,
    redis_url,
    time_limit,
)

__all__ = ["redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

START = 100_000  # conftest's starting credits
LIMIT = 5_000  # the most one act may move here, in cents

Factory = Callable[..., Awaitable[StudServer]]


@pytest.fixture(params=["memory", "redis"])
async def console(request: pytest.FixtureRequest) -> AsyncIterator[Factory]:
    """A server with its console, on the memory store or in a Redis namespace of its own."""
    servers: list[StudServer] = []
    stores: list[RedisStore] = []
    namespace = fresh_namespace()
    url = request.getfixturevalue("redis_url") if request.param == "redis" else ""

    async def start(**admin: Any) -> StudServer:
        config = with_console(make_config(), **admin)
        if not url:
            server = StudServer(config)
        else:
            config = replace(config, fleet_ttl=1.5)
            store = await RedisStore.connect(url, namespace=namespace)
            side = await RedisStore.connect(url, namespace=namespace)
            stores.append(side)
            fleet = Fleet(side, "here", "ws://here", ttl=1.5)
            server = StudServer(config, store=store, fleet=fleet)
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.stop(grace=0)
    for side in stores:
        await side.close()
    if url:
        await drop_namespace(url, namespace)


async def books(server: StudServer) -> dict[str, int]:
    totals = await server.store.totals()
    assert sum(totals.values()) == 0, totals
    return totals


async def audit(op: Operator) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = (await op.get("/api/audit?limit=500"))["rows"]
    return rows


async def test_a_credit_or_debit_above_the_act_limit_is_refused_and_moves_nothing(
    console: Factory, connect: ClientFactory
) -> None:
    server = await console(max_adjustment=LIMIT)
    op = await Operator.sign_in(server)
    pat = await connect(server, "pat")
    before = await books(server)
    refused = []
    for action in ("credit", "debit"):
        body = {"action_id": new_id(), "reason": "one act too many", "amount": LIMIT + 1}
        path = f"/api/players/{pat.player_id}/{action}"
        answer = await op.post(path, body)
        assert answer["state"] == "done" and answer["replayed"] is False
        row = answer["row"]
        assert row["outcome"] == "refused", row
        assert row["details"]["result"] == {"code": "over_act_limit", "limit": LIMIT}
        assert row["details"]["request"] == {"amount": LIMIT + 1}
        assert row["operator"] == "olga" and row["target"] == f"player:{pat.player_id}"
        refused.append(body["action_id"])
        # it is on record, under the player too
        assert (await audit(op))[0] == row
        mine = await op.get(f"/api/audit?target=player:{pat.player_id}")
        assert mine["rows"][0] == row
        # the same request again answers the first refusal and records nothing more
        count = len(await audit(op))
        again = await op.post(path, body)
        assert again["replayed"] is True and again["row"] == row
        assert len(await audit(op)) == count
        # the same id for another request is still a conflict, applied or not
        other = {**body, "amount": LIMIT}
        conflict = await http(op.port, "POST", path, other, op.token)
        assert conflict.status == 409 and conflict.json["error"] == "conflict"
    # nothing moved: the wallet and the house are as they were, the books sum to 0
    assert await books(server) == before
    assert (await server.store.wallet(pat.player_id)).balance == START
    moves = (await op.get(f"/api/players/{pat.player_id}"))["moves"]
    assert not [m for m in moves if m["op"] in refused], moves


async def test_an_act_up_to_the_limit_exactly_is_applied(
    console: Factory, connect: ClientFactory
) -> None:
    server = await console(max_adjustment=LIMIT)
    op = await Operator.sign_in(server)
    pat = await connect(server, "pat")
    house = (await books(server)).get("house", 0)
    credit = await op.act(f"/api/players/{pat.player_id}/credit", "a lost payout", amount=LIMIT)
    assert credit["outcome"] == "applied"
    assert credit["details"]["result"]["balance"] == START + LIMIT
    debit = await op.act(f"/api/players/{pat.player_id}/debit", "paid twice", amount=LIMIT)
    assert debit["outcome"] == "applied"
    totals = await books(server)
    assert totals[f"player:{pat.player_id}"] == START
    assert totals.get("house", 0) == house


async def test_an_unknown_player_is_named_before_the_limit(console: Factory) -> None:
    """A mistyped id is said as such, whatever the amount asked."""
    server = await console(max_adjustment=LIMIT)
    op = await Operator.sign_in(server)
    row = await op.act("/api/players/nobody/credit", "typo", amount=LIMIT + 1)
    assert row["outcome"] == "refused"
    assert row["details"]["result"] == {"code": "unknown_player"}
    await books(server)


async def test_no_limit_of_its_own_by_default(console: Factory, connect: ClientFactory) -> None:
    """0 (the default): an act is bounded by the wallet's max_balance only, as before."""
    server = await console()
    assert server.config.admin.max_adjustment == 0
    op = await Operator.sign_in(server)
    pat = await connect(server, "pat")
    big = 50 * LIMIT
    row = await op.act(f"/api/players/{pat.player_id}/credit", "a big payout", amount=big)
    assert row["outcome"] == "applied" and row["details"]["result"]["balance"] == START + big
    cap = server.config.wallet.max_balance
    fortune = await op.act(f"/api/players/{pat.player_id}/credit", "typo", amount=cap)
    assert fortune["details"]["result"] == {
        "code": "over_limit",
        "balance": START + big,
        "limit": cap,
    }
    await books(server)


async def test_a_refused_act_repeated_after_the_limit_is_lifted_stays_refused(
    console: Factory, connect: ClientFactory
) -> None:
    """An act is answered once: its action id asked again answers the first refusal, even
    once the limit would let it through (a process restarted with another setting)."""
    server = await console(max_adjustment=LIMIT)
    op = await Operator.sign_in(server)
    pat = await connect(server, "pat")
    before = await books(server)
    body = {"action_id": new_id(), "reason": "over the limit", "amount": LIMIT * 2}
    path = f"/api/players/{pat.player_id}/credit"
    first = await op.post(path, body)
    assert first["row"]["details"]["result"] == {"code": "over_act_limit", "limit": LIMIT}
    count = len(await audit(op))
    server.config = replace(server.config, admin=replace(server.config.admin, max_adjustment=0))
    again = await op.post(path, body)
    assert again["replayed"] is True and again["row"] == first["row"]
    assert len(await audit(op)) == count
    assert await books(server) == before
    assert (await server.store.wallet(pat.player_id)).balance == START
    # a new act (a new id) is taken under the setting now
    row = await op.act(path, "now allowed", amount=LIMIT * 2)
    assert row["outcome"] == "applied" and row["details"]["result"]["balance"] == START + 2 * LIMIT
    await books(server)
