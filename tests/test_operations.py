"""`stud-server` as an operator runs it: what it says at start about the address it
serves, and how it refuses a bad setting (one line, exit 2, never a traceback)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from clients.connection import StudClient
from tests.redis_fixture import drop_namespace, fresh_namespace, redis_url, time_limit

__all__ = ["redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

SERVING = re.compile(r"serving on (\S+):(\d+) ")


def stud(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """One `stud-server` command that ends by itself (stdin empty: no terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2 with one `stud-server: ...` line naming each of `words`, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("stud-server: "), result.stderr
    for word in words:
        assert word in lines[-1], result.stderr


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def serve(
    serving: list[subprocess.Popen[bytes]], log: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[str, int]:
    """Start `serve` and wait for its `serving on HOST:PORT` line: the address bound."""
    with open(log, "ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", *args],
            env={**os.environ, **(env or {})},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    serving.append(process)
    deadline = time.monotonic() + 30
    while not (found := SERVING.search(log.read_text())):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"did not start:\n{log.read_text()[-3000:]}")
        time.sleep(0.05)
    return found.group(1), int(found.group(2))


async def test_port_0_gives_out_the_port_it_bound(
    redis_url: str, serving: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    """`--port 0` takes any free port: the address the welcome and the lobby rows give
    other processes' clients is that port, never `:0`."""
    env = {"STUD_REDIS_NAMESPACE": fresh_namespace()}
    host, port = serve(serving, tmp_path / "a.log", "--port", "0", "--redis", redis_url, env=env)
    assert port != 0
    client = await StudClient.open(f"ws://{host}:{port}/ws")
    try:
        welcome = await client.hello(name="ann")
        assert welcome["url"] == f"ws://{host}:{port}/ws"
    finally:
        await client.close()
        await drop_namespace(redis_url, env["STUD_REDIS_NAMESPACE"])


def test_an_operators_file_that_is_not_json_is_refused_by_name(tmp_path: Path) -> None:
    """A hand-edited operators file gone wrong stops the start like any bad setting."""
    broken = tmp_path / "ops.json"
    broken.write_text("{broken")
    result = stud("serve", "--port", "0", env={"STUD_OPERATORS_FILE": str(broken)})
    refused(result, "admin.operators_file", str(broken))
    broken.write_text('{"operators": [{"name": "olga"}]}')  # JSON, but not ours
    result = stud("serve", "--port", "0", env={"STUD_OPERATORS_FILE": str(broken)})
    refused(result, "admin.operators_file", str(broken))


def test_an_unknown_log_level_is_a_usage_error() -> None:
    result = stud("serve", "--port", "0", "--log-level", "loud")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert "--log-level" in result.stderr and "'loud'" in result.stderr, result.stderr


def test_operator_add_without_a_terminal_says_how_to_give_the_password(tmp_path: Path) -> None:
    """No terminal to ask on (a script, a container without -t): `--password-stdin`."""
    o_json = tmp_path / "o.json"
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "operator", "add", "zed", "--file", str(o_json)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,  # no controlling terminal: /dev/tty cannot be opened
    )
    refused(result, "--password-stdin")
    assert not o_json.exists()


def test_operator_list_says_when_there_is_none(tmp_path: Path) -> None:
    result = stud("operator", "list", "--file", str(tmp_path / "o.json"))
    assert result.returncode == 0 and result.stdout == "", result
    assert "no operators" in result.stderr, result.stderr


def test_check_config_warns_of_a_missing_operators_file_and_a_wildcard_address(
    tmp_path: Path,
) -> None:
    config = tmp_path / "stud.toml"
    missing = tmp_path / "ops.json"
    config.write_text(f'[server]\nhost = "0.0.0.0"\n[admin]\noperators_file = "{missing}"\n')
    result = stud("check-config", str(config))
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert any(f"admin.operators_file '{missing}' does not exist" in w for w in warnings)
    assert any("server.host '0.0.0.0' and no public_url" in w for w in warnings), warnings
    config.write_text('[server]\nhost = "0.0.0.0"\npublic_url = "ws://tables.example/ws"\n')
    assert "warning" not in stud("check-config", str(config)).stderr


def test_serve_warns_of_them_at_start(
    serving: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    missing = tmp_path / "ops.json"
    log = tmp_path / "serve.log"
    env = {"STUD_OPERATORS_FILE": str(missing)}
    serve(serving, log, "--host", "0.0.0.0", "--port", "0", env=env)
    said = log.read_text()
    assert f"WARNING stud.config: admin.operators_file '{missing}' does not exist" in said
    assert "WARNING stud.config: server.host '0.0.0.0' and no public_url" in said


async def test_accept_empty_store_leaves_a_store_that_lost_nothing_alone(redis_url: str) -> None:
    """Only a store a process found emptied (its note `origin_lost`) has a loss to accept."""
    namespace = fresh_namespace()
    try:
        env = {"STUD_REDIS_NAMESPACE": namespace}
        result = stud("accept-empty-store", "--redis", redis_url, env=env)
        assert result.returncode == 1, result
        assert "there is no loss to accept" in result.stderr, result.stderr
    finally:
        await drop_namespace(redis_url, namespace)


@pytest.mark.parametrize(
    ("config", "given", "passed"),
    [
        ("[admin]\nport = 8799\n", "", None),  # the config's port: serve reads it there
        ("[server]\nport = 8798\n", "", "8780"),
        ("[admin]\nport = 8799\n", "9000", "9000"),
    ],
)
def test_make_run_takes_the_console_port_as_it_takes_the_players_port(
    tmp_path: Path, config: str, given: str, passed: str | None
) -> None:
    """Given, else the config's `[admin] port`, else 8780 (`make -n`: nothing runs)."""
    path = tmp_path / "stud.toml"
    path.write_text(config)
    args = ["make", "-n", "run", f"CONFIG={path}"] + ([f"ADMIN_PORT={given}"] if given else [])
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "STUD_ADMIN_PORT"}
    shown = subprocess.run(args, cwd=root, capture_output=True, text=True, env=env, timeout=60)
    command = shown.stdout[shown.stdout.index("stud-server serve") :]
    found = re.search(r"--admin-port (\S+)", command)
    assert (found.group(1) if found else None) == passed, command


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--port", "70000"), ("server.port: must be 0..65535, got 70000",)),
        (("--port", "-5"), ("server.port: must be 0..65535, got -5",)),
        (
            ("--port", "0", "--admin-port", "99999"),
            ("admin.port: 0..65535 (0: any free port), or -1 for no console, got 99999",),
        ),
        (("--port", "0", "--admin-port", "-2"), ("admin.port:", "got -2")),
    ],
)
def test_a_port_given_on_the_command_line_is_checked_as_the_config_s(
    args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    """`--port 70000` served on 4464 (70000 - 65536), `--admin-port 99999` on a random
    port: the options take the config file's checks and words, and its exit 2."""
    refused(stud("serve", *args), *words)


def test_a_console_on_the_memory_store_without_an_operators_file_says_so(
    serving: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    """No `[admin] operators_file` and no Redis: nobody can sign in (every sign-in
    answers bad_credentials), so the start says so and how to add an operator."""
    log = tmp_path / "serve.log"
    env = {"STUD_OPERATORS_FILE": ""}  # empty: not set
    serve(serving, log, "--port", "0", "--admin-port", "0", env=env)
    deadline = time.monotonic() + 30
    while "operator console on" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    said = log.read_text()
    assert "WARNING stud.admin: console has no operators" in said, said
    assert "stud-server operator add NAME --file" in said and "STUD_OPERATORS_FILE" in said


def test_a_console_with_an_operators_file_or_none_at_all_says_nothing_of_it(
    serving: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    env = {"STUD_OPERATORS_FILE": str(tmp_path / "ops.json")}
    serve(serving, log, "--port", "0", "--admin-port", "0", env=env)
    unset = {"STUD_OPERATORS_FILE": ""}
    serve(serving, tmp_path / "none.log", "--port", "0", "--admin-port", "-1", env=unset)
    deadline = time.monotonic() + 30
    while "operator console on" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "console has no operators" not in log.read_text() + (tmp_path / "none.log").read_text()


def test_a_redis_that_refuses_the_password_is_a_setting_to_fix() -> None:
    """A Redis whose password was changed (or that has none) refuses the process: a
    setting to correct, exit 2 as for any bad setting, not 1 as for a Redis away."""
    from tests.redis_fixture import start_redis

    guarded = start_redis(password="the-new-one")
    open_one = start_redis()
    try:
        port = str(guarded.port)
        missing = stud("serve", "--port", "0", "--redis", f"redis://127.0.0.1:{port}/0")
        refused(missing, "cannot use Redis at", "NOAUTH")
        wrong = stud("serve", "--port", "0", "--redis", f"redis://:old@127.0.0.1:{port}/0")
        refused(wrong, "cannot use Redis at", "WRONGPASS")
        needless = stud(
            "serve", "--port", "0", "--redis", f"redis://:pw@127.0.0.1:{open_one.port}/0"
        )
        refused(needless, "cannot use Redis at", "AUTH")
    finally:
        guarded.cleanup()
        open_one.cleanup()
