"""Password hashing: argon2id (argon2-cffi), off the event loop.

Hashing a password costs tens of milliseconds of CPU and megabytes of memory
on purpose. Done on the event loop, a burst of sign-ins would stall every
table for that long, so each hash and each check runs in a small pool of
threads of its own (argon2's C code releases the GIL), and at most
`max_waiting` of them wait or run at once: past that `PasswordsBusy` answers
at once rather than letting a queue, and every sign-in's wait, grow without
bound.

A check for a user that does not exist verifies against a dummy hash made
with the same parameters, so it costs what a wrong password costs and an
observer cannot tell the two apart by the time of the answer.

Nothing here knows about players: the operator console uses it the same way.
Passwords are never logged, and no exception raised here carries one.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

log = logging.getLogger("stud.passwords")
T = TypeVar("T")


class PasswordsBusy(Exception):
    """Too many hashes are waiting already; nothing was done. Try again shortly."""

    retry_after = 1


class Passwords:
    def __init__(
        self,
        *,
        time_cost: int,
        memory_cost: int,
        parallelism: int,
        threads: int = 1,
        max_waiting: int = 32,
    ) -> None:
        self.hasher = PasswordHasher(
            time_cost=time_cost,
            memory_cost=memory_cost,
            parallelism=parallelism,
            type=Type.ID,
        )
        self.max_waiting = max_waiting
        self.waiting = 0  # hashes and checks queued or running now
        self.done = 0  # hashes and checks finished, for /metrics and benchmarks
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="argon2")
        self._dummy: str | None = None
        self._dummy_lock = asyncio.Lock()

    async def start(self) -> None:
        """Make the dummy hash now, so the first unknown user waits no longer than others."""
        await self._dummy_hash()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def hash(self, password: str) -> str:
        """The encoded argon2id hash (`$argon2id$v=19$m=...,t=...,p=...$salt$hash`)."""
        return await self._run(lambda: self.hasher.hash(password))

    async def verify(self, encoded: str | None, password: str) -> bool:
        """Whether `password` matches `encoded`; None (no such user) checks a dummy hash
        and is always False, at the same cost."""
        target = encoded if encoded is not None else await self._dummy_hash()
        matched = await self._run(lambda: _matches(self.hasher, target, password))
        return matched and encoded is not None

    def needs_rehash(self, encoded: str) -> bool:
        """Whether `encoded` was made with other parameters than the configured ones."""
        try:
            return self.hasher.check_needs_rehash(encoded)
        except InvalidHashError:
            return True

    async def _dummy_hash(self) -> str:
        async with self._dummy_lock:
            if self._dummy is None:
                dummy = secrets.token_urlsafe(24)
                self._dummy = await self._run(lambda: self.hasher.hash(dummy))
            return self._dummy

    async def _run(self, work: Callable[[], T]) -> T:
        if self.waiting >= self.max_waiting:
            raise PasswordsBusy("too many password checks are waiting")
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)
        finally:
            self.waiting -= 1
            self.done += 1


def _matches(hasher: PasswordHasher, encoded: str, password: str) -> bool:
    try:
        return hasher.verify(encoded, password)
    except VerifyMismatchError:
        return False
    except (VerificationError, InvalidHashError):
        log.error("a stored password hash could not be read")
        return False
