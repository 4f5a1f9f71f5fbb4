"""The processes of a chaos run: one Redis with its AOF, three table servers.

Everything listens on loopback ports of its own, lives in one work directory and
dies with the harness (PR_SET_PDEATHSIG, set in the child: processes are started
from the event loop's thread, never from a worker thread whose exit would kill
them). Signals go to the PIDs we started, and nothing else.

Layout: five tables, each configured on two of the three processes, so every
table has a standby; two of them play `chaos-percent`, a variant paying a
percent of the one shared meter on common hands (1% for high cards, 5% for a
pair...), so those two tables race percent claims on one meter all the time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.redis_fixture import _die_with_parent, free_port


@dataclass(frozen=True)
class Settings:
    """The knobs every process of a run shares (short, so faults outlast them)."""

    betting: float = 1.0
    decision: float = 2.0
    results: float = 0.3
    fleet_ttl: float = 2.0
    store_timeout: float = 1.0
    reconnect_grace: float = 4.0
    shutdown_grace: float = 1.0
    starting_credits: int = 500_000
    max_buy_chips: int = 200_000
    max_balance: int = 5_000_000
    jackpot_seed: int = 20_000
    contribution_bp: int = 7_000
    min_ante: int = 100
    max_ante: int = 5_000


#: table id -> (variant, the two servers configured with it)
TABLES: dict[str, tuple[str, tuple[str, str]]] = {
    "pct-a": ("chaos-percent", ("s1", "s2")),
    "pct-b": ("chaos-percent", ("s2", "s3")),
    "casino": ("casino-stud", ("s3", "s1")),
    "stud": ("stud-poker", ("s1", "s2")),
    "bermuda": ("bermuda", ("s2", "s3")),
}
SERVERS = ("s1", "s2", "s3")

PERCENT_VARIANT = """
[variants.chaos-percent]
title = "Chaos Percent Stud"
base = "casino-stud"
folded_collects_progressive = true

[variants.chaos-percent.progressive]
HIGH_CARD = { percent = 1 }
ACE_KING = { percent = 1 }
ONE_PAIR = { percent = 5 }
TWO_PAIR = { percent = 10 }
THREE_OF_A_KIND = { percent = 20 }
STRAIGHT = { percent = 30 }
"""


def server_config(name: str, s: Settings) -> str:
    """The TOML file of one server: the shared settings and its tables."""
    tables = [tid for tid, (_, hosts) in TABLES.items() if name in hosts]
    lines = [
        "[server]",
        'host = "127.0.0.1"',
        f"fleet_ttl = {s.fleet_ttl}",
        f"store_timeout = {s.store_timeout}",
        f"reconnect_grace = {s.reconnect_grace}",
        f"shutdown_grace = {s.shutdown_grace}",
        "jackpot_push_interval = 0.5",
        "",
        "[timers]",
        f"betting = {s.betting}",
        f"decision = {s.decision}",
        f"results = {s.results}",
        "",
        "[wallet]",
        f"starting_credits = {s.starting_credits}",
        "starting_bonus = 0",
        f"max_buy_chips = {s.max_buy_chips}",
        f"max_balance = {s.max_balance}",
        "",
        "[jackpots.main]",
        f"seed = {s.jackpot_seed}",
        f"contribution_bp = {s.contribution_bp}",
        PERCENT_VARIANT,
    ]
    for tid in tables:
        variant = TABLES[tid][0]
        lines += [
            "[[tables]]",
            f'id = "{tid}"',
            f'variant = "{variant}"',
            "seats = 7",
            f"min_ante = {s.min_ante}",
            f"max_ante = {s.max_ante}",
            "",
        ]
    return "\n".join(lines)


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


async def _wait_exit(process: subprocess.Popen[bytes], timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while process.poll() is None:
        if time.monotonic() > deadline:
            return None
        await asyncio.sleep(0.05)
    return process.returncode


async def _stop(process: subprocess.Popen[bytes], timeout: float) -> int | None:
    """SIGCONT (a stopped process cannot act on SIGTERM), SIGTERM, wait; then SIGKILL.
    Returns the exit status when it exited by itself within `timeout`."""
    _signal(process.pid, signal.SIGCONT)
    _signal(process.pid, signal.SIGTERM)
    code = await _wait_exit(process, timeout)
    if code is None:
        _signal(process.pid, signal.SIGKILL)
        await _wait_exit(process, 10)
    return code


class ChaosRedis:
    """redis-server with an append-only file fsynced on every write, restartable
    from that file alone (no RDB snapshots)."""

    def __init__(self, workdir: Path) -> None:
        self.dir = workdir / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.stopped = False  # SIGSTOPped by us
        self.starts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def log(self) -> Path:
        return self.dir / "redis.log"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    async def start(self, timeout: float = 15.0) -> None:
        assert not self.alive, "redis-server is already running"
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not on the PATH")
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [
                    binary,
                    "--port", str(self.port),
                    "--bind", "127.0.0.1",
                    "--dir", str(self.dir),
                    "--appendonly", "yes",
                    "--appendfsync", "always",
                    "--save", "",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            )  # fmt: skip
        self.stopped = False
        self.starts += 1
        deadline = time.monotonic() + timeout
        while not await self.ping():
            if not self.alive or time.monotonic() > deadline:
                tail = self.log.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server did not start on {self.port}:\n{tail}")
            await asyncio.sleep(0.05)

    async def ping(self, timeout: float = 1.0) -> bool:
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", self.port), timeout
            )
        except (OSError, TimeoutError):
            return False
        try:
            writer.write(b"*1\r\n$4\r\nPING\r\n")
            line = await asyncio.wait_for(reader.readline(), timeout)
            return line.startswith(b"+PONG")
        except (OSError, TimeoutError):
            return False
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    def signal(self, sig: signal.Signals) -> None:
        assert self.process is not None
        _signal(self.process.pid, sig)
        if sig is signal.SIGSTOP:
            self.stopped = True
        elif sig is signal.SIGCONT:
            self.stopped = False

    async def wait_gone(self, timeout: float = 15.0) -> None:
        """After SIGTERM/SIGKILL: wait for the exit (SIGKILL if it takes too long)."""
        process = self.process
        if process is None:
            return
        if await _wait_exit(process, timeout) is None:
            _signal(process.pid, signal.SIGKILL)
            await _wait_exit(process, 10)
        self.process = None
        self.stopped = False

    async def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            await _stop(process, 15)
        self.stopped = False


@dataclass
class StudProcess:
    """One `stud-server serve` OS process; each start is a new incarnation with
    its own JSON log file (`<name>.<n>.log`): a restarted server is another process."""

    name: str
    workdir: Path
    redis_url: str
    namespace: str
    settings: Settings
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    incarnation: int = -1
    stopped: bool = False  # SIGSTOPped by us
    exits: dict[str, int | None] = field(default_factory=dict)  # identity -> status

    def __post_init__(self) -> None:
        self.config = self.workdir / f"{self.name}.toml"
        self.config.write_text(server_config(self.name, self.settings), encoding="utf-8")

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    @property
    def identity(self) -> str:
        return f"{self.name}#{self.incarnation}"

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def tables(self) -> list[str]:
        return [tid for tid, (_, hosts) in TABLES.items() if self.name in hosts]

    def log_path(self, incarnation: int) -> Path:
        return self.workdir / "logs" / f"{self.name}.{incarnation}.log"

    def logs(self) -> Iterable[tuple[str, Path]]:
        """(identity, log file) of every incarnation so far."""
        for n in range(self.incarnation + 1):
            yield f"{self.name}#{n}", self.log_path(n)

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
        env.pop("REDIS_URL", None)
        env.update(
            REDIS_URL=self.redis_url,
            STUD_REDIS_NAMESPACE=self.namespace,
            STUD_PORT=str(self.port),
            PYTHONUNBUFFERED="1",
        )
        return env

    async def start(self, timeout: float = 30.0) -> None:
        assert not self.alive, f"{self.name} is already running"
        self.incarnation += 1
        path = self.log_path(self.incarnation)
        path.parent.mkdir(parents=True, exist_ok=True)
        script = Path(sys.executable).with_name("stud-server")
        command = [str(script)] if script.exists() else [sys.executable, "-m", "server.cli"]
        with open(path, "ab") as log:
            self.process = subprocess.Popen(
                [*command, "serve", "--config", str(self.config), "--log-format", "json"],
                env=self.environment(),
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            )
        self.stopped = False
        deadline = time.monotonic() + timeout
        while not await self.healthy():
            if not self.alive or time.monotonic() > deadline:
                tail = path.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"{self.identity} did not start:\n{tail}")
            await asyncio.sleep(0.1)

    async def healthy(self, timeout: float = 1.0) -> bool:
        """GET /healthz answers 200."""
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", self.port), timeout
            )
        except (OSError, TimeoutError):
            return False
        try:
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            status = await asyncio.wait_for(reader.readline(), timeout)
            return b" 200 " in status
        except (OSError, TimeoutError):
            return False
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    def signal(self, sig: signal.Signals) -> None:
        assert self.process is not None
        _signal(self.process.pid, sig)
        if sig is signal.SIGSTOP:
            self.stopped = True
        elif sig is signal.SIGCONT:
            self.stopped = False

    async def kill(self) -> None:
        """SIGKILL, and wait until it is gone (its port free for the restart)."""
        process, self.process = self.process, None
        if process is None:
            return
        _signal(process.pid, signal.SIGKILL)
        self.exits[self.identity] = await _wait_exit(process, 10)
        self.stopped = False

    async def terminate(self, timeout: float = 20.0) -> int | None:
        """SIGTERM (graceful) and wait; the exit status, None when it had to be killed."""
        process, self.process = self.process, None
        if process is None:
            return None
        code = await _stop(process, timeout)
        self.exits[self.identity] = code
        self.stopped = False
        return code


class Cluster:
    """Redis and the three servers of one run, in `workdir`."""

    def __init__(self, workdir: Path, namespace: str, settings: Settings) -> None:
        self.workdir = workdir
        self.namespace = namespace
        self.settings = settings
        self.redis = ChaosRedis(workdir)
        self.servers = {
            name: StudProcess(name, workdir, self.redis.url, namespace, settings)
            for name in SERVERS
        }

    @property
    def urls(self) -> list[str]:
        return [s.url for s in self.servers.values()]

    def by_url(self, url: str) -> StudProcess | None:
        return next((s for s in self.servers.values() if s.url == url), None)

    async def start(self) -> None:
        await self.redis.start()
        await asyncio.gather(*(s.start() for s in self.servers.values()))

    async def heal_redis(self) -> None:
        if self.redis.stopped:
            self.redis.signal(signal.SIGCONT)
        if not self.redis.alive:
            self.redis.process = None
            await self.redis.start()

    async def heal(self) -> None:
        """Whatever is stopped continues, whatever is down starts again."""
        await self.heal_redis()
        for s in self.servers.values():
            if s.stopped:
                s.signal(signal.SIGCONT)
        await asyncio.gather(*(s.start() for s in self.servers.values() if not s.alive))

    async def terminate_servers(self, timeout: float = 20.0) -> dict[str, int | None]:
        """SIGTERM every server at once and wait for each: identity -> exit status."""
        identities = [s.identity for s in self.servers.values() if s.alive]
        codes = await asyncio.gather(*(s.terminate(timeout) for s in self.servers.values()))
        return {
            s.identity: code
            for s, code in zip(self.servers.values(), codes, strict=True)
            if s.identity in identities
        }

    async def close(self) -> None:
        """Stop everything still running (also after a failure)."""
        for s in self.servers.values():
            if s.process is not None:
                await s.terminate(5)
        await self.redis.stop()
