"""`stud-server operator add|list|remove`: into the operators file (memory store) or Redis."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from server.admin.operators import read_file, write_file
from server.app import StudServer
from server.stores.admin import Operator
from server.stores.admin_redis import RedisAdmin
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.console import http, with_console
from tests.redis_fixture import drop_namespace, fresh_namespace, redis_url, time_limit

__all__ = ["redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

PASSWORD = "operator-password-9"


def cheap_config(tmp: Path) -> Path:
    """A config with cheap argon2id parameters (the same algorithm and code path)."""
    path = tmp / "stud.toml"
    path.write_text("[accounts]\ntime_cost = 1\nmemory_cost = 1024\n")
    return path


def operator(
    *args: str, password: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "operator", *args],
        input=None if password is None else password + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_operators_in_a_file(tmp_path: Path) -> None:
    file, config = tmp_path / "operators.json", cheap_config(tmp_path)
    common = ["--file", str(file), "--config", str(config)]
    added = operator("add", "olga", *common, "--password-stdin", password=PASSWORD)
    assert added.returncode == 0, added.stderr
    assert added.stdout == f"operator olga added to {file}\n"
    assert file.stat().st_mode & 0o777 == 0o600
    stored = json.loads(file.read_text())["operators"]
    assert [o["name"] for o in stored] == ["olga"] and stored[0]["hash"].startswith("$argon2id$")
    assert PASSWORD not in file.read_text()
    twice = operator("add", "OLGA", *common, "--password-stdin", password=PASSWORD)
    assert twice.returncode == 2 and "exists" in twice.stderr
    # a new password keeps the date the operator was added
    stored[0]["created_ms"] -= 86_400_000  # added a day ago
    file.write_text(json.dumps({"operators": stored}))
    new = operator("add", "olga", *common, "--replace", "--password-stdin", password=PASSWORD + "x")
    assert new.returncode == 0, new.stderr
    assert new.stdout == f"operator olga: password replaced in {file}\n"  # not added again
    renewed = json.loads(file.read_text())["operators"][0]
    assert renewed["hash"] != stored[0]["hash"]
    assert renewed["created_ms"] == stored[0]["created_ms"]
    weak = operator("add", "bert", *common, "--password-stdin", password="short")
    assert weak.returncode == 2 and "10 to 128" in weak.stderr
    bad = operator("add", "no spaces", *common, "--password-stdin", password=PASSWORD)
    assert bad.returncode == 2
    first = operator("add", "bert", *common, "--replace", "--password-stdin", password=PASSWORD)
    assert first.stdout == f"operator bert added to {file}\n"  # --replace: none to replace
    listed = operator("list", *common)
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["bert", "olga"]
    assert operator("remove", "bert", *common).returncode == 0
    assert operator("remove", "bert", *common).returncode == 2
    nowhere = operator("list")
    assert nowhere.returncode == 2 and "--redis" in nowhere.stderr
    # both places named: neither is guessed (the file would be written, Redis meant)
    both = operator("remove", "olga", *common, "--redis", "redis://127.0.0.1:1/0")
    assert both.returncode == 2 and "not both" in both.stderr
    assert [o.name for o in read_file(file)] == ["olga"]
    # the file changed with REDIS_URL set: done, and said to be read by no process on Redis
    env = {"REDIS_URL": "redis://127.0.0.1:1/0"}
    aside = operator("add", "cara", *common, "--password-stdin", password=PASSWORD, env=env)
    assert aside.returncode == 0 and "never reads this file" in aside.stderr, aside.stderr


async def test_a_server_on_the_memory_store_reads_the_file_as_it_changes(tmp_path: Path) -> None:
    file, config_file = tmp_path / "operators.json", cheap_config(tmp_path)
    common = ["--file", str(file), "--config", str(config_file)]
    assert operator("add", "olga", *common, "--password-stdin", password=PASSWORD).returncode == 0
    config = with_console(make_config())
    config = replace(config, admin=replace(config.admin, operators_file=str(file)))
    server = StudServer(config)
    await server.start()
    try:
        port = server.admin.port
        assert port is not None
        olga = await http(port, "POST", "/api/session", {"name": "olga", "password": PASSWORD})
        assert olga.status == 200
        await asyncio.to_thread(
            operator, "add", "bert", *common, "--password-stdin", password=PASSWORD
        )
        bert = await http(port, "POST", "/api/session", {"name": "bert", "password": PASSWORD})
        assert bert.status == 200
        # Adding bert reloaded the file: olga, unchanged in it, stays signed in.
        assert (await http(port, "GET", "/api/books", token=olga.json["token"])).status == 200
        await asyncio.to_thread(operator, "remove", "olga", *common)
        token = olga.json["token"]  # removed: its token is revoked at once, sign-in or not
        assert (await http(port, "GET", "/api/books", token=token)).status == 401
        gone = await http(port, "POST", "/api/session", {"name": "olga", "password": PASSWORD})
        assert gone.status == 401
        # bert's entry changed (a new password hash): his tokens are revoked.
        kept = read_file(file)
        write_file(file, [Operator(o.name, o.password_hash + "x", o.created_ms) for o in kept])
        assert (await http(port, "GET", "/api/books", token=bert.json["token"])).status == 401
        # a file broken by hand is logged and skipped: who was signed in stays so
        write_file(file, kept)
        again = await http(port, "POST", "/api/session", {"name": "bert", "password": PASSWORD})
        file.write_text("{not json")
        assert (await http(port, "GET", "/api/books", token=again.json["token"])).status == 200
    finally:
        await server.stop(grace=0)


async def test_operators_in_redis(redis_url: str, tmp_path: Path) -> None:
    namespace = fresh_namespace()
    config = cheap_config(tmp_path)
    env_args = ["--redis", redis_url, "--config", str(config)]
    try:
        added = await asyncio.to_thread(
            lambda: operator(
                "add",
                "olga",
                *env_args,
                "--password-stdin",
                password=PASSWORD,
                env={"STUD_REDIS_NAMESPACE": namespace},
            )
        )
        assert added.returncode == 0, added.stderr
        assert added.stdout == "operator olga added\n"
        store = await RedisStore.connect(redis_url, namespace=namespace)
        try:
            found = await RedisAdmin(store).get_operator("olga")
            assert found is not None and found.password_hash.startswith("$argon2id$")
            # a new password keeps the date the operator was added
            await RedisAdmin(store).put_operator(
                "olga", found.password_hash, replace=True, now_ms=found.created_ms - 86_400_000
            )
            renewed = await asyncio.to_thread(
                lambda: operator(
                    "add",
                    "olga",
                    *env_args,
                    "--replace",
                    "--password-stdin",
                    password=PASSWORD + "x",
                    env={"STUD_REDIS_NAMESPACE": namespace},
                )
            )
            assert renewed.returncode == 0, renewed.stderr
            assert renewed.stdout == "operator olga: password replaced\n"
            now = await RedisAdmin(store).get_operator("olga")
            assert now is not None and now.password_hash != found.password_hash
            assert now.created_ms == found.created_ms - 86_400_000
        finally:
            await store.close()
    finally:
        await drop_namespace(redis_url, namespace)


async def test_with_redis_a_removed_operator_stays_removed_whatever_the_file_says(
    redis_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With Redis the store is the only source of operators: a process given an operators
    file (one that lists olga) does not copy it in, so a removal is not undone by a restart
    and an operator only in the file cannot sign in."""
    namespace = fresh_namespace()
    file = tmp_path / "operators.json"
    config = with_console(make_config())
    config = replace(config, admin=replace(config.admin, operators_file=str(file)))

    async def serve() -> StudServer:
        store = await RedisStore.connect(redis_url, namespace=namespace)
        server = StudServer(config, store=store)
        await server.start()
        return server

    async def sign_in(server: StudServer, name: str) -> int:
        port = server.admin.port
        assert port is not None
        answer = await http(port, "POST", "/api/session", {"name": name, "password": PASSWORD})
        return answer.status

    caplog.set_level(logging.INFO, logger="stud.admin")
    try:
        first = await serve()
        try:
            hashed = await first.passwords.hash(PASSWORD)
            write_file(file, [Operator("olga", hashed, 1), Operator("filed", hashed, 1)])
            await first.admin.admin.put_operator("olga", hashed, replace=False, now_ms=2)
            assert await sign_in(first, "olga") == 200
            assert await sign_in(first, "filed") == 401  # only in the file
            removed = await asyncio.to_thread(
                lambda: operator(
                    "remove", "olga", "--redis", redis_url, env={"STUD_REDIS_NAMESPACE": namespace}
                )
            )
            assert removed.returncode == 0, removed.stderr
            assert await sign_in(first, "olga") == 401
        finally:
            await first.stop(grace=0)
        again = await serve()  # a restart with the same config
        try:
            assert await again.admin.admin.list_operators() == []
            assert await sign_in(again, "olga") == 401
            assert await sign_in(again, "filed") == 401
        finally:
            await again.stop(grace=0)
        said = [r for r in caplog.records if r.name == "stud.admin"]
        assert any(
            r.levelno == logging.WARNING and getattr(r, "file", None) == str(file) for r in said
        ), [r.getMessage() for r in said]
        assert not any(r.getMessage() == "operators loaded" for r in said)
    finally:
        await drop_namespace(redis_url, namespace)
