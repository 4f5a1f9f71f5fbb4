"""Operator roles: an `admin` does every act, a `viewer` reads everything and acts on
nothing. Operators kept before roles were (a file entry or a Redis entry without one)
are admins. The role is read from the store for every act, and a role changed or an
operator removed signs its tokens out on every process."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from server.admin.operators import read_file
from server.app import StudServer
from server.stores.admin_redis import RedisAdmin
from server.stores.redis import RedisStore
from tests.conftest import ClientFactory, make_config
from tests.console import PASSWORD, Operator, http, new_id, with_console
from tests.redis_fixture import (
    drop_namespace,
    fresh_namespace,
    raw_connection,
    redis_url,
    time_limit,
)
from tests.test_admin_cli import cheap_config, operator

__all__ = ["redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

CLI_PASSWORD = "operator-password-9"
READS = (
    "/api/session",
    "/api/overview",
    "/api/tables",
    "/api/tables/alpha",
    "/api/jackpots",
    "/api/players?q=pat",
    "/api/pending",
    "/api/books",
    "/api/audit",
    "/api/audit.jsonl",
)


@pytest.fixture
async def server() -> AsyncIterator[StudServer]:
    s = StudServer(with_console(make_config()))
    await s.start()
    yield s
    await s.stop(grace=0)


async def sign_in_as(server: StudServer, name: str, role: str) -> Operator:
    hashed = await server.passwords.hash(PASSWORD)
    await server.admin.admin.put_operator(name, hashed, replace=True, now_ms=1, role=role)
    op = Operator(server, name=name)
    reply = await http(op.port, "POST", "/api/session", {"name": name, "password": PASSWORD})
    assert reply.status == 200, reply
    assert reply.json["role"] == role
    op.token = reply.json["token"]
    return op


def acts(player_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Every act of the API, each with the fields it takes."""
    return [
        ("/api/tables/alpha/pause", {}),
        ("/api/tables/alpha/resume", {}),
        ("/api/tables/alpha/void", {"round_id": "r-1"}),
        ("/api/tables/alpha/remove", {"player_id": player_id}),
        (f"/api/players/{player_id}/credit", {"amount": 500}),
        (f"/api/players/{player_id}/debit", {"amount": 500}),
        (f"/api/players/{player_id}/suspend", {}),
        (f"/api/players/{player_id}/unsuspend", {}),
        ("/api/jackpots/main/reseed", {}),
        ("/api/jackpots/main/correct", {"amount": 200_000}),
    ]


async def test_a_viewer_reads_everything_and_every_act_is_refused_unapplied(
    server: StudServer, connect: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    pat = await connect(server, "pat")
    before = await server.store.totals()
    meter = dict(server.meters)
    vera = await sign_in_as(server, "vera", "viewer")
    for path in (*READS, f"/api/players/{pat.player_id}"):
        reply = await http(vera.port, "GET", path, token=vera.token)
        assert reply.status == 200, (path, reply)
    assert (await vera.get("/api/session")) == {"operator": "vera", "role": "viewer"}
    caplog.set_level(logging.INFO, logger="stud.admin")
    for path, fields in acts(pat.player_id):
        body = {"action_id": new_id(), "reason": "just looking", **fields}
        refused = await http(vera.port, "POST", path, body, token=vera.token)
        assert refused.status == 403, (path, refused)
        assert refused.json["error"] == "forbidden_role"
        assert "viewer" in refused.json["message"]
        # nothing recorded under its id: not done, not pending
        assert await server.admin.admin.action(body["action_id"]) is None
    # a bad body is refused for the role too, before it is read
    bad = await http(vera.port, "POST", "/api/tables/alpha/pause", {"nope": 1}, token=vera.token)
    assert bad.status == 403 and bad.json["error"] == "forbidden_role"
    assert (await vera.get("/api/audit"))["total"] == 0
    assert server.rooms["alpha"].paused is None
    assert await server.store.totals() == before
    assert dict(server.meters) == meter
    assert (await server.admin.admin.admin_state()).suspended == {}
    refusals = [r for r in caplog.records if r.getMessage() == "operator act refused: role"]
    assert len(refusals) == 11 and {getattr(r, "operator", None) for r in refusals} == {"vera"}
    # signing out is not an act
    assert (await http(vera.port, "DELETE", "/api/session", token=vera.token)).status == 200


async def test_an_admin_still_does_every_act(server: StudServer, connect: ClientFactory) -> None:
    pat = await connect(server, "pat")
    olga = await sign_in_as(server, "olga", "admin")
    assert (await olga.get("/api/session")) == {"operator": "olga", "role": "admin"}
    row = await olga.act(f"/api/players/{pat.player_id}/credit", amount=500)
    assert row["outcome"] == "applied" and row["operator"] == "olga"
    assert (await olga.act("/api/tables/alpha/pause"))["outcome"] == "applied"


async def test_a_role_changed_takes_effect_on_tokens_already_issued(server: StudServer) -> None:
    olga = await sign_in_as(server, "olga", "admin")
    hashed = (await server.admin.admin.get_operator("olga")).password_hash  # type: ignore[union-attr]
    # the same password, another role: the tokens it had are revoked
    await server.admin.admin.put_operator("olga", hashed, replace=True, now_ms=1, role="viewer")
    body = {"action_id": new_id(), "reason": "still an admin?"}
    stale = await http(olga.port, "POST", "/api/tables/alpha/pause", body, token=olga.token)
    assert stale.status == 401
    again = await http(olga.port, "POST", "/api/session", {"name": "olga", "password": PASSWORD})
    assert again.json["role"] == "viewer"
    refused = await http(olga.port, "POST", "/api/tables/alpha/pause", body, again.json["token"])
    assert refused.status == 403 and refused.json["error"] == "forbidden_role"
    assert server.rooms["alpha"].paused is None


async def test_the_role_is_read_for_each_act_not_kept_with_the_token(server: StudServer) -> None:
    """Even a token the store still honours acts only with its operator's role now."""
    olga = await sign_in_as(server, "olga", "admin")
    admin = server.admin.admin
    held = await admin.get_operator("olga")
    assert held is not None
    admin.operators["olga"] = replace(held, role="viewer")  # type: ignore[attr-defined]
    body = {"action_id": new_id(), "reason": "demoted"}
    refused = await http(olga.port, "POST", "/api/tables/alpha/pause", body, token=olga.token)
    assert refused.status == 403 and refused.json["error"] == "forbidden_role"
    assert (await olga.get("/api/session"))["role"] == "viewer"


# ----- the operators file (memory store) ------------------------------------------------


async def test_roles_in_the_file_old_entries_are_admins(tmp_path: Path) -> None:
    file, config_file = tmp_path / "operators.json", cheap_config(tmp_path)
    common = ["--file", str(file), "--config", str(config_file)]
    added = operator("add", "vera", *common, "--role", "viewer", "--password-stdin",
                     password=CLI_PASSWORD)  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "viewer" in added.stdout
    assert (
        operator("add", "olga", *common, "--password-stdin", password=CLI_PASSWORD).returncode == 0
    )
    stored = json.loads(file.read_text())["operators"]
    assert {o["name"]: o["role"] for o in stored} == {"olga": "admin", "vera": "viewer"}
    listed = operator("list", *common).stdout.splitlines()
    assert [line.split("\t")[:2] for line in listed] == [["olga", "admin"], ["vera", "viewer"]]
    bad = operator("add", "cara", *common, "--role", "owner", "--password-stdin",
                   password=CLI_PASSWORD)  # fmt: skip
    assert bad.returncode == 2 and [o.name for o in read_file(file)] == ["olga", "vera"]
    # a file written before roles: its operators are admins
    for entry in stored:
        del entry["role"]
    file.write_text(json.dumps({"operators": stored}))
    assert {o.name: o.role for o in read_file(file)} == {"olga": "admin", "vera": "admin"}
    # --replace without --role keeps the role; with it, changes it
    kept = operator("add", "vera", *common, "--replace", "--password-stdin", password=CLI_PASSWORD)
    assert kept.returncode == 0 and {o.name: o.role for o in read_file(file)}["vera"] == "admin"
    demoted = operator("add", "vera", *common, "--replace", "--role", "viewer",
                       "--password-stdin", password=CLI_PASSWORD)  # fmt: skip
    assert demoted.returncode == 0, demoted.stderr
    assert "role viewer (was admin)" in demoted.stdout
    assert {o.name: o.role for o in read_file(file)}["vera"] == "viewer"
    again = operator("add", "vera", *common, "--replace", "--password-stdin", password=CLI_PASSWORD)
    assert again.returncode == 0 and {o.name: o.role for o in read_file(file)}["vera"] == "viewer"
    # a role no version writes: the file is not ours
    file.write_text(json.dumps({"operators": [{**stored[0], "role": "owner"}]}))
    with pytest.raises(ValueError, match="role"):
        read_file(file)


async def test_a_server_on_the_memory_store_follows_the_file_s_roles(tmp_path: Path) -> None:
    file, config_file = tmp_path / "operators.json", cheap_config(tmp_path)
    common = ["--file", str(file), "--config", str(config_file)]
    assert (
        operator("add", "olga", *common, "--password-stdin", password=CLI_PASSWORD).returncode == 0
    )
    stored = json.loads(file.read_text())["operators"]
    del stored[0]["role"]  # as written before roles
    file.write_text(json.dumps({"operators": stored}))
    config = with_console(make_config())
    config = replace(config, admin=replace(config.admin, operators_file=str(file)))
    server = StudServer(config)
    await server.start()
    try:
        port = server.admin.port
        assert port is not None
        signed = await http(
            port, "POST", "/api/session", {"name": "olga", "password": CLI_PASSWORD}
        )
        assert signed.status == 200 and signed.json["role"] == "admin"
        token = signed.json["token"]
        body = {"action_id": new_id(), "reason": "as before"}
        paused = await http(port, "POST", "/api/tables/alpha/pause", body, token=token)
        assert paused.status == 200 and paused.json["row"]["outcome"] == "applied"
        # the role alone changed in the file (same hash): her tokens are revoked
        stored[0]["role"] = "viewer"
        file.write_text(json.dumps({"operators": stored}))
        assert (await http(port, "GET", "/api/books", token=token)).status == 401
        signed = await http(
            port, "POST", "/api/session", {"name": "olga", "password": CLI_PASSWORD}
        )
        assert signed.json["role"] == "viewer"
        body = {"action_id": new_id(), "reason": "now a viewer"}
        refused = await http(port, "POST", "/api/tables/alpha/resume", body, signed.json["token"])
        assert refused.status == 403 and refused.json["error"] == "forbidden_role"
        assert server.rooms["alpha"].paused is not None
    finally:
        await server.stop(grace=0)


# ----- Redis ---------------------------------------------------------------------------


async def test_roles_in_redis_old_entries_are_admins(redis_url: str, tmp_path: Path) -> None:
    namespace = fresh_namespace()
    env = {"STUD_REDIS_NAMESPACE": namespace}
    common = ["--redis", redis_url, "--config", str(cheap_config(tmp_path))]

    def cli(*args: str, password: str | None = None) -> Any:
        return asyncio.to_thread(lambda: operator(*args, *common, password=password, env=env))

    store = await RedisStore.connect(redis_url, namespace=namespace)
    server = StudServer(with_console(make_config()), store=store)
    await server.start()
    try:
        port = server.admin.port
        assert port is not None
        added = await cli("add", "vera", "--role", "viewer", "--password-stdin",
                          password=CLI_PASSWORD)  # fmt: skip
        assert added.returncode == 0, added.stderr
        olga = await cli("add", "olga", "--password-stdin", password=CLI_PASSWORD)
        assert olga.returncode == 0, olga.stderr
        listed = (await cli("list")).stdout.splitlines()
        assert [line.split("\t")[:2] for line in listed] == [["olga", "admin"], ["vera", "viewer"]]

        async def sign_in(name: str) -> dict[str, Any]:
            reply = await http(
                port, "POST", "/api/session", {"name": name, "password": CLI_PASSWORD}
            )
            assert reply.status == 200, reply
            answer: dict[str, Any] = reply.json
            return answer

        async def pause(token: str) -> Any:
            body = {"action_id": new_id(), "reason": "a look"}
            return await http(port, "POST", "/api/tables/alpha/pause", body, token=token)

        vera = await sign_in("vera")
        assert vera["role"] == "viewer"
        refused = await pause(vera["token"])
        assert refused.status == 403 and refused.json["error"] == "forbidden_role"
        assert (await http(port, "GET", "/api/audit", token=vera["token"])).json["total"] == 0
        # an entry written before roles (no "role"): an admin
        conn = await raw_connection(redis_url)
        try:
            entry = json.loads(await conn.hget(f"{{{namespace}}}:operators", "olga"))
            del entry["role"]
            await conn.hset(f"{{{namespace}}}:operators", "olga", json.dumps(entry))
        finally:
            conn.close()
        found = await RedisAdmin(store).get_operator("olga")
        assert found is not None and found.role == "admin"
        olga_in = await sign_in("olga")
        assert olga_in["role"] == "admin"
        assert (await pause(olga_in["token"])).status == 200
        # the role changed by the command: the tokens issued before are out at once
        demoted = await cli("add", "olga", "--replace", "--role", "viewer", "--password-stdin",
                            password=CLI_PASSWORD)  # fmt: skip
        assert demoted.returncode == 0, demoted.stderr
        assert (await http(port, "GET", "/api/books", token=olga_in["token"])).status == 401
        olga_in = await sign_in("olga")
        assert olga_in["role"] == "viewer"
        assert (await pause(olga_in["token"])).status == 403
        removed = await cli("remove", "vera")
        assert removed.returncode == 0
        assert (await http(port, "GET", "/api/books", token=vera["token"])).status == 401
    finally:
        await server.stop(grace=0)
        await drop_namespace(redis_url, namespace)
