"""A private `redis-server` for the store tests, never the shared one on 6379.

`redis_url` (session): REDIS_URL when set, else a redis-server of our own on a
free port, in a temporary directory, stopped at the end.
`private_redis` (per test): always our own server, for tests that flush scripts,
kill connections or restart Redis. Each test works under a fresh namespace
(`fresh_namespace`), so tests never see each other's data.

Import the fixtures into a test module to use them (`from tests.redis_fixture
import ...`); `time_limit` bounds a test's wall time (a hang dumps every
thread's stack and ends the run instead of blocking CI forever).
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncio_redis
import pytest

#: Seconds any one test may take, setup and teardown included.
TEST_TIME_LIMIT = 120.0


def _die_with_parent() -> None:
    """In the child, on Linux: SIGTERM when the test process dies, even by SIGKILL or
    `time_limit`'s exit, so no orphaned redis-server outlives a broken run."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def fresh_namespace() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


class RedisServer:
    """One redis-server process on 127.0.0.1; `stop()` then `start()` restarts it on
    the same port with its data (saved on shutdown, as a durable Redis keeps it);
    `forget()` between them makes it come back empty, as one that keeps nothing."""

    def __init__(self, port: int | None = None, password: str | None = None) -> None:
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not on the PATH (or set REDIS_URL)")
        self.port = port or free_port()
        self.password = password
        self.dir = Path(tempfile.mkdtemp(prefix="stud-redis-"))
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        assert self.process is None, "already running"
        log = open(self.dir / "redis.log", "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port", str(self.port),
                "--bind", "127.0.0.1",
                "--save", "3600 1",  # in effect: saved only when it shuts down
                "--appendonly", "no",
                "--enable-debug-command", "local",  # DEBUG RELOAD: data swapped in place
                "--dir", str(self.dir),
                *(["--requirepass", self.password] if self.password else []),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent if sys.platform == "linux" else None,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + timeout
        while not self.ping():
            if self.process.poll() is not None or time.monotonic() > deadline:
                output = (self.dir / "redis.log").read_text(errors="replace")[-2000:]
                self.stop()
                raise RuntimeError(f"redis-server on port {self.port} did not start:\n{output}")
            time.sleep(0.02)

    def ping(self) -> bool:
        try:
            return self.command("PING") in ("+PONG", "-NOAUTH Authentication required.")
        except OSError:
            return False

    def command(self, *args: str) -> str:
        """Send one command on a connection of its own (unauthenticated); its reply's
        first line."""
        parts = [a.encode() for a in args]
        request = b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in parts)
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            s.sendall(request)
            reply = b""
            while not reply.endswith(b"\r\n"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
        return reply.decode().split("\r\n")[0]

    def stop(self) -> None:
        """Terminate the server and wait until it is gone (its port is free again)."""
        process, self.process = self.process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)

    def forget(self) -> None:
        """Delete what a stopped server saved: its next start is empty."""
        assert self.process is None, "stop it first"
        (self.dir / "dump.rdb").unlink(missing_ok=True)

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def start_redis(password: str | None = None) -> RedisServer:
    """A started server; a port taken between probing and binding gets another try."""
    for attempt in range(3):
        server = RedisServer(password=password)
        try:
            server.start()
        except RuntimeError:
            server.cleanup()
            if attempt == 2:
                raise
        else:
            return server
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = start_redis()
    try:
        yield server.url
    finally:
        server.cleanup()


@pytest.fixture
def private_redis() -> Iterator[RedisServer]:
    server = start_redis()
    try:
        yield server
    finally:
        server.cleanup()


@pytest.fixture
def time_limit() -> Iterator[None]:
    faulthandler.dump_traceback_later(TEST_TIME_LIMIT, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


async def raw_connection(url: str) -> asyncio_redis.Connection:
    """A plain asyncio-redis connection, to look at or disturb what a store did."""
    from server.stores.redis import parse_redis_url

    host, port, db, password = parse_redis_url(url)
    conn = await asyncio_redis.Connection.create(host, port, auto_reconnect=False)
    if password:
        await conn.auth(password)
    if db:
        await conn.select(db)
    return conn


async def drop_namespace(url: str, namespace: str) -> None:
    """Delete every key of a test namespace (REDIS_URL may be a server others use)."""
    conn = await raw_connection(url)
    try:
        cursor = await conn.scan(match=f"{{{namespace}}}:*")
        keys = await cursor.fetchall()
        for i in range(0, len(keys), 500):
            await conn.delete(keys[i : i + 500])
    finally:
        conn.close()
