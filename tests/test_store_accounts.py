"""The store contract for accounts: usernames, password hashes, tokens, failure counters.

Every test runs on MemoryStore and RedisStore (the `store` fixture of
tests/test_store_contract.py). The hashes here are opaque strings: the store
keeps what it is given and never looks inside (server/passwords.py makes them).
"""

from __future__ import annotations

import asyncio

import pytest

from server.stores.base import (
    AlreadyRegistered,
    Failures,
    InvalidRequest,
    Store,
    UsernameTaken,
    Wallet,
)
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore
from tests.redis_fixture import redis_url, time_limit
from tests.test_store_contract import books

__all__ = ["redis_url", "time_limit"]  # fixtures, used below

pytestmark = pytest.mark.usefixtures("time_limit")

HASH = "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g"
OTHER = "$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$b3RoZXJvdGhlcg"


async def test_register_keeps_the_player_and_grants_nothing(store: Store) -> None:
    guest = await store.create_player("Ann", 10_000, 500)
    before = await books(store)
    account = await store.register(guest.player_id, "Ann_99", HASH, guest.token)
    assert account.player_id == guest.player_id and account.username == "Ann_99"
    assert account.name == "Ann" and account.token == guest.token
    assert await books(store) == before  # registering moves no money
    assert await store.wallet(guest.player_id) == Wallet(10_000, 500, 0)
    resumed = await store.player_by_token(guest.token)
    assert resumed is not None and resumed.username == "Ann_99"
    for spelling in ("ann_99", "ANN_99", "Ann_99"):
        creds = await store.credentials(spelling)
        assert creds is not None
        assert (creds.player_id, creds.username, creds.name) == (guest.player_id, "Ann_99", "Ann")
        assert creds.password_hash == HASH
    assert await store.credentials("ann_98") is None
    assert HASH not in repr(creds)


async def test_a_username_is_one_account_whatever_the_case(store: Store) -> None:
    a = await store.create_player("a", 0, 0)
    b = await store.create_player("b", 0, 0)
    await store.register(a.player_id, "lucky_7", HASH, a.token)
    with pytest.raises(UsernameTaken) as e:
        await store.register(b.player_id, "LUCKY_7", OTHER, b.token)
    assert e.value.code == "username_taken"
    assert (await store.player_by_token(b.token)) == b  # still a guest
    # the same registration again is a no-op; another name for an account is refused
    again = await store.register(a.player_id, "lucky_7", HASH, a.token)
    assert again.username == "lucky_7"
    with pytest.raises(AlreadyRegistered):
        await store.register(a.player_id, "other_name", HASH, a.token)
    assert await store.credentials("other_name") is None
    with pytest.raises(InvalidRequest):
        await store.register("no-such-player", "ghost_1", HASH, "t")


async def test_two_claims_of_one_name_at_once_make_one_account(store: Store) -> None:
    if isinstance(store, RedisStore):  # two connections, as two processes would have
        other: Store = await RedisStore.connect(store.url, store.namespace)
    else:
        other = store
    try:
        for round_ in range(5):
            a = await store.create_player("a", 0, 0)
            b = await store.create_player("b", 0, 0)
            name = f"race_{round_}"
            results = await asyncio.gather(
                store.register(a.player_id, name, HASH, a.token),
                other.register(b.player_id, name.upper(), OTHER, b.token),
                return_exceptions=True,
            )
            won = [r for r in results if not isinstance(r, BaseException)]
            lost = [r for r in results if isinstance(r, UsernameTaken)]
            assert len(won) == 1 and len(lost) == 1, results
            creds = await store.credentials(name)
            assert creds is not None and creds.player_id == won[0].player_id
    finally:
        if other is not store:
            await other.close()


async def test_tokens_issued_and_revoked(store: Store) -> None:
    p = await store.create_player("Bo", 100, 0)
    await store.issue_token(p.player_id, "second-device-token")
    first, second = (
        await store.player_by_token(p.token),
        await store.player_by_token("second-device-token"),
    )
    assert first is not None and second is not None
    assert first.player_id == second.player_id == p.player_id
    assert second.token == "second-device-token"  # each connection knows its own
    await store.revoke_token("second-device-token")
    await store.revoke_token("second-device-token")  # idempotent
    assert await store.player_by_token("second-device-token") is None
    assert await store.player_by_token(p.token) is not None
    # revoked, not lost: the player is still known (a store restarted empty knows no one)
    assert await store.player_known(p.player_id)
    assert not await store.player_known("no-such-player")
    with pytest.raises(InvalidRequest):
        await store.issue_token("no-such-player", "t")


async def test_set_password_compares_and_revokes_the_other_tokens(store: Store) -> None:
    p = await store.create_player("Cy", 0, 0)
    await store.register(p.player_id, "cy_cy", HASH, p.token)
    await store.issue_token(p.player_id, "laptop")
    await store.issue_token(p.player_id, "phone")
    # a rehash (no revocation) keeps every token
    assert await store.set_password("cy_cy", p.player_id, HASH, OTHER)
    assert await store.player_by_token("laptop") is not None
    # a stale old hash is refused; a repeat of the change that landed is true again
    assert not await store.set_password("CY_CY", p.player_id, HASH, "$argon2id$x")
    assert await store.set_password("cy_cy", p.player_id, HASH, OTHER)
    # a change by the user keeps the token of their connection only
    assert await store.set_password("cy_cy", p.player_id, OTHER, HASH, revoke_except="laptop")
    assert await store.player_by_token("laptop") is not None
    assert await store.player_by_token("phone") is None
    assert await store.player_by_token(p.token) is None
    creds = await store.credentials("cy_cy")
    assert creds is not None and creds.password_hash == HASH
    with pytest.raises(InvalidRequest):
        await store.set_password("nobody", p.player_id, HASH, OTHER)


async def test_failure_counters_count_in_a_window(store: Store) -> None:
    keys = ["user:ann", "addr:127.0.0.1"]
    assert await store.failures(keys) == [Failures(0, 0.0), Failures(0, 0.0)]
    assert await store.add_failure(keys, 60) == [1, 1]
    assert await store.add_failure(["user:bob", "addr:127.0.0.1"], 60) == [1, 2]
    user, addr = await store.failures(keys)
    assert (user.count, addr.count) == (1, 2)
    assert 0 < user.retry_after <= 60 and 0 < addr.retry_after <= 60
    await store.clear_failures("user:ann")
    assert [f.count for f in await store.failures(keys)] == [0, 2]
    # a window ends: the count starts again
    assert await store.add_failure(["user:brief"], 0.05) == [1]
    await asyncio.sleep(0.2)
    assert (await store.failures(["user:brief"]))[0].count == 0
    assert await store.add_failure(["user:brief"], 60) == [1]
    # a check counted in advance is taken back: never below 0, the window's end kept
    assert await store.add_failure(keys, 600, by=-1) == [0, 1]
    (addr,) = await store.failures(keys[1:])
    assert (addr.count, 0 < addr.retry_after <= 60) == (1, True)
    assert await store.add_failure(keys, 60, by=-1) == [0, 0]
    assert await store.failures(keys) == [Failures(0, 0.0), Failures(0, 0.0)]


def test_memory_store_keeps_only_hashes_of_tokens() -> None:
    async def run() -> None:
        s = MemoryStore()
        p = await s.create_player("Di", 0, 0)
        assert p.token not in s.tokens
        await s.register(p.player_id, "di_di", HASH, p.token)
        assert (await s.player_by_token(p.token)) is not None

    asyncio.run(run())
