"""Accounts across a fleet: two real `stud-server` processes on one Redis.

Register on one process, sign in on the other with the wallet and history kept;
one username claimed on both at the same instant makes one account; failures
counted on one process throttle the other; and no password is anywhere in
Redis in clear.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clients.connection import ServerError, StudClient
from tests.redis_fixture import raw_connection, redis_url, time_limit
from tests.test_fleet import START, ServerProcess, namespace, open_client, processes

__all__ = ["namespace", "processes", "redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

PASSWORD = "correct horse battery staple"


@pytest.fixture
async def pair(
    redis_url: str, namespace: str, processes: list[ServerProcess], tmp_path: Path
) -> tuple[ServerProcess, ServerProcess]:
    one = ServerProcess(tmp_path, "east", redis_url, namespace)
    two = ServerProcess(tmp_path, "west", redis_url, namespace)
    processes += [one, two]
    await asyncio.gather(asyncio.to_thread(one.start), asyncio.to_thread(two.start))
    return one, two


async def test_register_on_one_process_and_sign_in_on_the_other(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    one, two = pair
    ann = await open_client(one.url, "Ann")
    try:
        await ann.request("sit", table="east")
        await ann.request("ante", table="east", seat=0, amount=500)
        await ann.request("deal", table="east")
        await ann.wait_table("east", lambda s: s["phase"] == "deciding")
        await ann.request("fold", table="east", seat=0)
        await ann.wait_table("east", lambda s: s["phase"] == "showdown")
        await ann.wait_for(lambda c: c.balance.get("balance") == START - 500)
        await ann.request("leave", table="east")
        assert (await ann.register("Ann_99", PASSWORD))["username"] == "Ann_99"
    finally:
        await ann.close()
    device = await open_client(two.url, "new device")
    try:
        welcome = await device.login("ann_99", PASSWORD)
        assert welcome["player_id"] == ann.player_id and welcome["username"] == "Ann_99"
        assert welcome["balance"]["balance"] == START - 500  # no second grant
        await device.request("history")
        rounds = [f for f in device.frames if f["t"] == "history"][-1]["rounds"]
        assert [r["table"] for r in rounds] == ["east"]
        assert rounds[0]["seats"][0]["result"]["outcome"] == "fold"
        # the token this login issued resumes the account on the first process too
        back = await open_client(one.url, None, token=device.token)
        assert back.player_id == ann.player_id
        await back.close()
    finally:
        await device.close()


async def test_one_name_claimed_on_both_processes_at_once_makes_one_account(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    one, two = pair
    for attempt in range(4):
        a = await open_client(one.url, "a")
        b = await open_client(two.url, "b")
        try:
            name = f"same_name_{attempt}"
            results = await asyncio.gather(
                a.request("register", username=name, password=PASSWORD),
                b.request("register", username=name.upper(), password=PASSWORD),
                return_exceptions=True,
            )
            oks = [r for r in results if isinstance(r, dict) and r["t"] == "ok"]
            taken = [r for r in results if isinstance(r, ServerError)]
            assert len(oks) == 1 and len(taken) == 1, results
            assert taken[0].code == "username_taken"
        finally:
            await a.close()
            await b.close()


async def test_failures_on_one_process_throttle_the_other(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    one, two = pair
    ann = await open_client(one.url, "Ann")
    await ann.register("ann_99", PASSWORD)
    await ann.close()
    guesser = await open_client(one.url, "guesser")
    try:
        for i in range(10):  # max_failures_per_account's default
            with pytest.raises(ServerError) as e:
                await guesser.login("ann_99", f"guess number {i}")
            assert e.value.code == "bad_credentials"
    finally:
        await guesser.close()
    other = await open_client(two.url, "other")
    try:
        with pytest.raises(ServerError) as e:
            await other.login("ann_99", PASSWORD)  # right, but not checked now
        assert e.value.code == "too_many_attempts" and e.value.frame["retry_after"] > 0
    finally:
        await other.close()


async def test_no_password_is_in_redis_in_clear(
    redis_url: str, namespace: str, pair: tuple[ServerProcess, ServerProcess]
) -> None:
    one, two = pair
    secrets = [PASSWORD, "a wrong password", "the new password here"]
    ann = await open_client(one.url, "Ann")
    await ann.register("ann_99", PASSWORD)
    await ann.close()
    device = await open_client(two.url, "device")
    with pytest.raises(ServerError):
        await device.login("ann_99", secrets[1])
    await device.login("ann_99", PASSWORD)
    await device.request("change_password", old=PASSWORD, new=secrets[2])
    await device.close()
    conn = await raw_connection(redis_url)
    try:
        cursor = await conn.scan(match=f"{{{namespace}}}:*")
        keys = await cursor.fetchall()
        assert f"{{{namespace}}}:users" in keys
        seen: list[str] = []
        for key in keys:
            kind = (await conn.type(key)).status
            if kind == "string":
                seen.append(await conn.get(key))
            elif kind == "hash":
                seen += [f"{k}={v}" for k, v in (await conn.hgetall_asdict(key)).items()]
            elif kind == "list":
                seen += await conn.lrange_aslist(key, 0, -1)
            elif kind == "set":
                seen += list(await conn.smembers_asset(key))
            elif kind == "zset":
                seen += list((await conn.zrange_asdict(key, 0, -1)).keys())
            seen.append(key)
        users = await conn.hgetall_asdict(f"{{{namespace}}}:users")
    finally:
        conn.close()
    dump = "\n".join(seen)
    for secret in secrets:
        assert secret not in dump
    assert '"hash":"$argon2id$v=19$m=19456,t=2,p=1$' in users["ann_99"]
    assert ann.token not in dump and device.token not in dump  # tokens only as sha256


async def closed_with(client: StudClient) -> tuple[int | None, str | None]:
    """How the server closed the client's connection (it waits for that)."""
    await asyncio.wait_for(client.ws.wait_closed(), 15)
    close = client.ws.protocol.close_rcvd
    return (close.code, close.reason) if close is not None else (None, None)


async def test_a_password_change_closes_the_account_s_connections_on_other_processes(
    pair: tuple[ServerProcess, ServerProcess],
) -> None:
    """The other device's open connection used to stay welcomed after a password change
    (and after a logout of its token elsewhere), buying chips and taking seats with a
    token no resume would take any more."""
    one, two = pair
    first = await open_client(one.url, "Ann")
    await first.register("Ann_pw", PASSWORD)
    device = await open_client(two.url, "phone")
    await device.login("ann_pw", PASSWORD)
    await device.request("change_password", old=PASSWORD, new="a brand new secret 42")
    code, reason = await closed_with(first)
    assert code == 1008 and reason is not None and reason.startswith("signed out")
    # the device that changed it goes on, and its token still resumes the account
    assert (await device.request("balance"))["t"] == "ok"
    again = await open_client(one.url, None, token=device.token)
    assert again.player_id == first.player_id

    # a logout revokes its one token: that token's connection to the other process goes
    await device.request("logout")
    code, reason = await closed_with(again)
    assert code == 1008 and reason is not None and reason.startswith("signed out")
    with pytest.raises(ServerError, match="invalid_token"):
        await open_client(one.url, None, token=device.token)
    await device.close()
