"""Session tokens unused for too long stop resuming their player, in both stores.

A token resumed within the limit is good for another full limit from then (the
limit is on idleness, not on age); a look at a live connection's token never expires
it and counts as a use."""

from __future__ import annotations

import asyncio

import pytest

from clients.connection import ServerError, StudClient
from server.app import StudServer
from server.stores.base import Store, token_hash
from server.stores.redis import RedisStore
from tests.conftest import ClientFactory, ServerFactory
from tests.redis_fixture import redis_url, time_limit  # noqa: F401 - fixtures

pytestmark = pytest.mark.usefixtures("time_limit")

DAY = 86_400.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def test_a_token_resumed_in_time_lives_on_and_one_left_idle_is_gone(store: Store) -> None:
    clock = Clock()
    store.wall_clock = clock
    p = await store.create_player("ann", 1_000, 0)
    clock.now += 29 * DAY
    assert await store.player_by_token(p.token, idle=30 * DAY) == p
    clock.now += 29 * DAY  # 58 days old, but resumed 29 days ago
    assert await store.player_by_token(p.token, idle=30 * DAY) == p
    clock.now += 31 * DAY
    assert await store.player_by_token(p.token, idle=30 * DAY) is None
    assert await store.player_by_token(p.token) is None  # forgotten for good
    assert await store.player_known(p.player_id)  # the player and wallet stay


async def test_a_token_in_use_on_a_connection_counts_as_used(store: Store) -> None:
    """A connection open for longer than the limit did not count: its token expired
    under it, and a resume after a network blip lost the seat. A look without a limit
    (a live connection's token checked, or its connection ending) is a use."""
    clock = Clock()
    store.wall_clock = clock
    p = await store.create_player("ann", 1_000, 0)
    clock.now += 40 * DAY  # connected all along
    assert await store.player_by_token(p.token) == p  # never expires it
    clock.now += 1 * DAY  # the connection ended a day ago: resumed now
    assert await store.player_by_token(p.token, idle=30 * DAY) == p


async def test_tokens_of_sign_ins_and_registrations_count_from_their_issue(store: Store) -> None:
    clock = Clock()
    store.wall_clock = clock
    p = await store.create_player("ann", 1_000, 0)
    await store.register(p.player_id, "ann_1", "hash", "tok-registered")
    clock.now += 10 * DAY
    await store.issue_token(p.player_id, "tok-signed-in")
    clock.now += 25 * DAY
    assert await store.player_by_token("tok-registered", idle=30 * DAY) is None
    back = await store.player_by_token("tok-signed-in", idle=30 * DAY)
    assert back is not None and back.player_id == p.player_id
    await store.revoke_token("tok-signed-in")
    assert await store.player_by_token("tok-signed-in", idle=30 * DAY) is None


async def test_a_token_from_before_use_times_were_kept_counts_from_its_next_resume(
    store: Store,
) -> None:
    """Tokens a Redis held before this release have no use time: they are not cut off
    at the upgrade, the clock starts at their first resume."""
    if not isinstance(store, RedisStore):
        pytest.skip("the memory store holds nothing from an earlier release")
    clock = Clock()
    store.wall_clock = clock
    p = await store.create_player("ann", 1_000, 0)
    await store.run("forget", lambda conn: conn.delete([store.prefix + "tokens:used"]))
    clock.now += 400 * DAY
    assert await store.player_by_token(p.token, idle=30 * DAY) == p
    clock.now += 31 * DAY
    assert await store.player_by_token(p.token, idle=30 * DAY) is None


async def test_a_hello_with_a_token_left_idle_past_the_setting_is_told_so(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """[accounts] token_idle_days: a resume after that long unused gets invalid_token,
    saying why; 0 keeps tokens for good."""
    for days, expires in ((30, True), (0, False)):
        server = await make_server(accounts={"token_idle_days": days})
        clock = Clock()
        server.store.wall_clock = clock
        ann = await connect(server, "Ann")
        clock.now += 29 * DAY
        assert (await connect(server, None, token=ann.token)).player_id == ann.player_id
        await recorded(server, clock, ann)  # the first connection, closed by the resume
        clock.now += 31 * DAY
        if not expires:
            assert (await connect(server, None, token=ann.token)).player_id == ann.player_id
            continue
        with pytest.raises(ServerError) as e:
            await connect(server, None, token=ann.token)
        assert e.value.code == "invalid_token"
        assert "unused for more than 30 days" in e.value.frame["message"]


async def test_a_connection_ending_counts_as_a_use_of_its_token(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Connected for longer than the limit, then a network blip: the resume must work."""
    server = await make_server(accounts={"token_idle_days": 30})
    clock = Clock()
    server.store.wall_clock = clock
    ann = await connect(server, "Ann")
    clock.now += 40 * DAY
    await ann.close()
    await recorded(server, clock, ann)
    clock.now += DAY
    assert (await connect(server, None, token=ann.token)).player_id == ann.player_id


async def recorded(server: StudServer, clock: Clock, client: StudClient) -> None:
    """Wait until the server has seen the client's connection end and recorded that use
    of its token, at the clock's time (a moment after the close)."""
    used = server.store.token_used  # type: ignore[attr-defined]
    digest = token_hash(client.token)
    for _ in range(200):  # bounded: 2 s at most
        if client.closed.done() and len(server.sessions.of(client.player_id)) <= 1:
            await asyncio.sleep(0.05)  # the record is written by a task of its own
            if used.get(digest) == clock.now:
                return
        await asyncio.sleep(0.01)
    raise AssertionError("the connection's end was not recorded")
