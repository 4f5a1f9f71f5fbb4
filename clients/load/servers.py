"""The processes the parent starts (the table server, the bare baseline,
redis-server), their config and command lines, and waiting for them to answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

from clients.load.machine import free_port, pin, raise_nofile


def _child_setup(cpus: Sequence[int] | None) -> Callable[[], None]:
    def setup() -> None:
        pin(cpus)
        raise_nofile()

    return setup


class Child:
    """A server (ours, the bare baseline, redis-server) in its own OS process."""

    def __init__(
        self,
        argv: list[str],
        *,
        log: Path,
        cpus: Sequence[int] | None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.log = log
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env or {})},
                preexec_fn=_child_setup(cpus),
                start_new_session=True,
            )
        self.pid = self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def tail(self) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-3000:]
        return ""

    def stop(self, timeout: float = 20.0) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def http_get(url: str, timeout: float = 10.0) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        body: bytes = r.read()
        return body


async def wait_http(child: Child | None, url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            await asyncio.to_thread(http_get, url, 1.0)
            return
        except OSError:
            pass
        if (child is not None and not child.alive()) or time.monotonic() > deadline:
            raise RuntimeError(f"no answer from {url}" + (f":\n{child.tail()}" if child else ""))
        await asyncio.sleep(0.1)


async def wait_port(child: Child, port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if not child.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the baseline server did not start:\n{child.tail()}") from None
            await asyncio.sleep(0.05)


def tables_config(
    table_ids: Sequence[str], seats: int, timers: dict[str, float], extra_server: str = ""
) -> str:
    """A server config with the given tables, short timers and limits for bots."""
    head = f"""# written by stud-client load
[server]
reconnect_grace = 5
shutdown_grace = 10
{extra_server}
[timers]
betting = {timers["betting"]}
decision = {timers["decision"]}
results = {timers["results"]}

[limits]
rate_per_second = 200
rate_burst = 400
hello_timeout = 60

[wallet]
starting_credits = 1000000
starting_bonus = 0

[accounts]
max_new_players_per_address = 0  # every bot connects from this machine

[jackpots.main]
seed = 1000000
contribution_bp = 7000
"""
    rows = [
        f'[[tables]]\nid = "{t}"\nvariant = "casino-stud"\nseats = {seats}\n'
        "min_ante = 100\nmax_ante = 10000\n"
        for t in table_ids
    ]
    return head + "\n" + "\n".join(rows)


def stud_server_argv(
    config: Path, port: int, *, redis: str | None, loop: str, log_level: str
) -> list[str]:
    args = ["serve", "--config", str(config), "--port", str(port), "--log-level", log_level]
    if redis:
        args += ["--redis", redis]
    if loop != "default":
        args += ["--event-loop", loop]
    return [sys.executable, "-m", "server.cli", *args]


def server_loop(option: str) -> str:
    """The loop a stud-server of this environment runs on for `--server-loop`: by
    default uvloop where it is installed (its `event_loop = "auto"`)."""
    if option != "default":
        return option
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


#: `--redis-fsync`: none (no append-only file), or the AOF's appendfsync policy.
FSYNC_CHOICES = ("none", "everysec", "always")


def start_redis(tmp: Path, cpus: Sequence[int] | None, fsync: str = "none") -> tuple[Child, str]:
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("--redis spawn needs redis-server on the PATH")
    port = free_port()
    aof = (
        ["--appendonly", "no"]
        if fsync == "none"
        else ["--appendonly", "yes", "--appendfsync", fsync]
    )
    child = Child(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", *aof,
         "--dir", str(tmp)],
        log=tmp / "redis.log",
        cpus=cpus,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        if not child.alive() or time.monotonic() > deadline:
            raise RuntimeError(f"redis-server did not start:\n{child.tail()}")
        time.sleep(0.05)
    return child, f"redis://127.0.0.1:{port}/0"


async def drop_redis_namespace(url: str, namespace: str) -> None:
    """Delete the run's keys from a Redis the caller gave us."""
    import asyncio_redis

    from_url = url.removeprefix("redis://").split("/")[0]
    host, _, port = from_url.rpartition(":")
    if "@" in host:
        return  # a password-protected Redis: leave cleaning to its operator
    conn = await asyncio_redis.Connection.create(host or "127.0.0.1", int(port or 6379))
    try:
        cursor = await conn.scan(match=f"{{{namespace}}}:*")
        keys = await cursor.fetchall()
        for i in range(0, len(keys), 500):
            await conn.delete(keys[i : i + 500])
    finally:
        conn.close()
