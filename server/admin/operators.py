"""Operators: signing in to the console, bearer tokens, rate limits, the operators file.

Operators are not players: their own names, their own argon2id hashes (made
by the same `Passwords` pool as players'), their own tokens in their own part
of the store (`AdminStore`), so a player's session token is never an
operator's. A sign-in returns a random bearer token, kept only as its sha256,
valid `admin.token_ttl` seconds and revoked by signing out. Failed password
checks are counted per operator name and per client address, in the store,
with the `[accounts]` limits and window; past them nothing is checked until
the window ends.

The memory store lives and dies with its process, so `stud-server operator`
writes operators to a file (`admin.operators_file`) that a server loads at
start and again when it changed (each sign-in and each request looks, so a
removal or a new password takes effect at once). With Redis the command
writes to Redis directly and the store is the only source: a process on Redis
never reads the file (`file` is empty), so nothing it holds can bring back an
operator removed from the store, or add one the store does not have.

Each operator has a role (`ROLES`): an admin does every act, a viewer only reads.
The role is read from the store for every act (`role`), never kept with a token,
and changing it replaces the operator, which revokes its tokens on every process
as a new password does. An entry written before roles has none: an admin.
"""

from __future__ import annotations

import json
import logging
import math
import os
import secrets
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from server.admin.store_watch import StoreWatch
from server.attempts import Throttled, count_check, take_back
from server.config import AccountsConfig, AdminConfig
from server.passwords import Passwords
from server.ratelimit import TokenBucket, Verdict
from server.stores.admin import (
    ADMIN,
    OPERATOR_NAME,
    ROLES,
    AdminStore,
    Operator,
    fold_operator,
)
from server.stores.base import Store, StoreError, token_hash

log = logging.getLogger("stud.admin")

#: Rate-limit buckets kept before idle ones are forgotten.
MAX_BUCKETS = 10_000
#: Tokens remembered as the store last confirmed them, for reads while it is away.
MAX_CONFIRMED = 10_000
#: Seconds a token signed in on another process is remembered after the store last
#: confirmed it here (its own expiry is not known here).
CONFIRMED_ELSEWHERE = 60.0


class SignInRefused(Exception):
    def __init__(self, code: str, message: str, retry_after: int = 0) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class SignedIn:
    operator: str
    token: str
    expires_in: float
    role: str = ADMIN


def valid_name(name: object) -> bool:
    return isinstance(name, str) and OPERATOR_NAME.fullmatch(name) is not None


class Operators:
    def __init__(
        self,
        admin: AdminStore,
        store: Store,
        passwords: Passwords,
        config: AdminConfig,
        accounts: AccountsConfig,
        file: str,
        watch: StoreWatch,
    ) -> None:
        self.admin = admin
        self.watch = watch
        self.file = file  # the operators file, read on the memory store only
        self.store = store
        self.passwords = passwords
        self.config = config
        self.accounts = accounts
        self._file_stamp: float | None = None
        # sha256(token) -> (operator, until when (monotonic) it can be valid): tokens the
        # store confirmed to this process. While the store cannot be reached they still
        # sign their operator in here, for the reads that need no store (no act can be
        # applied meanwhile anyway); one the store no longer knows is forgotten.
        self._confirmed: dict[str, tuple[str, float]] = {}
        self._issued_here: set[str] = set()  # token hashes signed in here: expiry known
        self._from_file: set[str] = set()  # folded names the file put in the store

    # ----- the operators file --------------------------------------------------------

    async def load_file(self, *, at_start: bool = False) -> None:
        """Load (or reload, if it changed) the operators file into the store. A file that
        cannot be read stops a start (ValueError); later, it is logged and skipped."""
        path = self.file
        if not path:
            return
        try:
            stamp = os.stat(path).st_mtime_ns
        except FileNotFoundError:
            stamp = -1
        if stamp == self._file_stamp:
            return
        try:
            found = read_file(path) if stamp != -1 else []
        except ValueError as e:  # a hand-edited file gone wrong: keep who was signed in
            if at_start:
                raise
            self._file_stamp = stamp
            log.error("operators file not loaded: %s", e, extra={"file": path})
            return
        now = int(time.time() * 1000)
        for op in found:
            held = await self.admin.get_operator(op.name)
            if held is not None and _entry(held) == _entry(op):
                continue  # unchanged: replacing it would sign its operator out everywhere
            await self.admin.put_operator(
                op.name, op.password_hash, replace=True, now_ms=op.created_ms or now, role=op.role
            )
        names = {fold_operator(op.name) for op in found}
        for gone in self._from_file - names:
            await self.admin.remove_operator(gone)
        self._from_file = names
        self._file_stamp = stamp
        log.info("operators loaded", extra={"file": path, "operators": len(found)})

    # ----- signing in ------------------------------------------------------------

    async def sign_in(self, name: str, password: str, address: str) -> SignedIn:
        await self.load_file()
        keys = [f"op:{fold_operator(name)[:32]}", f"opaddr:{address[:64]}"]
        limits = (self.accounts.max_failures_per_account, self.accounts.max_failures_per_address)
        window = self.accounts.window
        try:  # counted before it is made: a burst of checks cannot pass the limits
            await count_check(self.store, keys, limits, window)
        except Throttled as e:
            log.warning("operator sign-ins throttled", extra={"keys": e.keys})
            raise SignInRefused(
                "too_many_attempts",
                f"too many failed sign-ins: try again in {e.retry_after} s",
                e.retry_after,
            ) from None
        try:
            operator = await self.admin.get_operator(name) if valid_name(name) else None
            hashed = operator.password_hash if operator is not None else None
            good = await self.passwords.verify(hashed, password)
        except BaseException:
            await take_back(self.store, keys, window)  # not checked: not a failure
            raise
        if operator is None or not good:
            log.warning("operator sign-in refused", extra={"operator": name, "addr": address})
            raise SignInRefused("bad_credentials", "wrong operator name or password")
        await take_back(self.store, keys[1:], window)  # the address's count: failures only
        await self.store.clear_failures(keys[0])
        token = secrets.token_urlsafe(32)
        ttl = self.config.token_ttl
        await self.admin.issue_operator_token(operator.name, token, ttl)
        self._confirm(token, operator.name, ttl)
        self._issued_here.add(token_hash(token))
        log.info(
            "operator signed in",
            extra={"operator": operator.name, "role": operator.role, "addr": address},
        )
        return SignedIn(operator.name, token, ttl, operator.role)

    async def check(self, token: str, *, cached: bool = False) -> str | None:
        """The token's operator, as the store says; while the store cannot be reached and
        `cached` (a read this process answers without the store), as it last said to this
        process (StoreError for a token it never confirmed here, and for anything else:
        an act must never rest on a token the store may have revoked)."""
        if not token:
            return None
        await self.load_file()  # an operator removed from the file is out at their next request
        held = self._confirmed.get(token_hash(token))
        if cached and self.watch.away and held is not None and held[1] > time.monotonic():
            return held[0]  # not worth a store timeout: it failed a call just now
        try:
            operator = await self.admin.operator_for_token(token)
        except StoreError:
            self.watch.failed()
            if not cached or held is None or held[1] <= time.monotonic():
                raise
            return held[0]
        if operator is None:
            self._confirmed.pop(token_hash(token), None)
        elif token_hash(token) not in self._issued_here:
            # issued by another process: when it expires is not known here, so it is
            # remembered a short while from its last confirmation, not a whole token_ttl
            self._confirm(token, operator, min(self.config.token_ttl, CONFIRMED_ELSEWHERE))
        return operator

    def last_confirmed(self, token: str) -> str | None:
        """The operator the store last confirmed the token for to this process, without
        asking it: who sent a request refused before its token was checked (throttled,
        or the store away), for the request's log line only, never to let one through."""
        held = self._confirmed.get(token_hash(token)) if token else None
        return held[0] if held is not None else None

    async def role(self, name: str) -> str | None:
        """The operator's role as the store has it now (None: no such operator). Read for
        every act, never kept with a token, so a role changed anywhere holds at once;
        StoreError without the store: an act is never let through on a guess."""
        await self.load_file()
        operator = await self.admin.get_operator(name)
        return operator.role if operator is not None else None

    async def sign_out(self, token: str, operator: str) -> None:
        self._confirmed.pop(token_hash(token), None)
        self._issued_here.discard(token_hash(token))
        await self.admin.revoke_operator_token(token)
        log.info("operator signed out", extra={"operator": operator})

    def _confirm(self, token: str, operator: str, ttl: float) -> None:
        now = time.monotonic()
        if len(self._confirmed) >= MAX_CONFIRMED:
            self._confirmed = {k: v for k, v in self._confirmed.items() if v[1] > now}
            if len(self._confirmed) >= MAX_CONFIRMED:
                self._confirmed.clear()  # a flood of sign-ins: the store decides alone
            self._issued_here &= set(self._confirmed)
        self._confirmed[token_hash(token)] = (operator, now + ttl)


class Limiter:
    """Token buckets by key (an operator, an address): a request that finds its bucket
    empty is refused (429) until it refills."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, TokenBucket] = {}

    def admit(self, key: str, now: float) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= MAX_BUCKETS:
                self._forget_idle(now)
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst)
        return bucket.admit(now) is Verdict.PASS

    def retry_after(self) -> int:
        return max(1, math.ceil(1 / self.rate))

    def _forget_idle(self, now: float) -> None:
        full = self.burst / self.rate  # seconds an idle bucket takes to refill
        self.buckets = {k: b for k, b in self.buckets.items() if now - b.stamp < full}


# ----- the file ---------------------------------------------------------------------


def _entry(o: Operator) -> tuple[str, str, str]:
    return (o.name, o.password_hash, o.role)


def read_file(path: str | Path) -> list[Operator]:
    """The operators of a file written by `write_file` (JSON, one object). An entry
    without a role was written before roles were: an admin, as then."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read the operators file {path}: {e}") from e
    try:
        found = [
            Operator(
                str(entry["name"]),
                str(entry["hash"]),
                int(entry["created_ms"]),
                str(entry.get("role", ADMIN)),
            )
            for entry in data.get("operators", [])
        ]
        for o in found:
            if o.role not in ROLES:
                raise ValueError(f"operator {o.name!r}: role {o.role!r}, not one of {ROLES}")
        return found
    except (AttributeError, KeyError, TypeError, ValueError) as e:  # valid JSON, not ours
        raise ValueError(
            f"cannot read the operators file {path}: not the file `stud-server operator add`"
            f" writes ({type(e).__name__}: {e})"
        ) from e


def write_file(path: str | Path, operators: list[Operator]) -> None:
    """Write the operators atomically, readable by the owner only (it holds hashes)."""
    target = Path(path)
    data = {
        "operators": [
            {"name": o.name, "hash": o.password_hash, "created_ms": o.created_ms, "role": o.role}
            for o in sorted(operators, key=lambda o: fold_operator(o.name))
        ]
    }
    fd, tmp = tempfile.mkstemp(dir=target.parent or Path("."), prefix=".operators-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
