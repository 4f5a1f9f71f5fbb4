"""Accounts: register, login, logout and change_password (PROTOCOL.md section 3).

A guest becomes an account by `register` (same player, wallet, history, seats
and token); `login` switches a connection to an account from any device and
any process of the fleet; `logout` revokes the connection's token. Passwords
are hashed with argon2id off the event loop (`server/passwords.py`); the store
keeps the hash only.

Failed password checks are counted per account and per client address in the
store, so every process of a fleet sees the same counts; past a limit, checks
are refused (`too_many_attempts`) without hashing anything. An unknown
username and a wrong password take the same path: one store read, one argon2
check (a dummy hash for the unknown user), one failure counted, one answer.
"""

from __future__ import annotations

import logging
import math
import secrets
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from protocol.errors import ErrorCode, ProtocolError, RequestId
from protocol.messages import ChangePassword, Login, Logout, Register
from server.attempts import Throttled, count_check, take_back
from server.config import AccountsConfig
from server.durable import Pending, until_known
from server.passwords import Passwords, PasswordsBusy
from server.sessions import Session, Sessions
from server.stores.base import (
    Credentials,
    OutcomeUnknown,
    Player,
    Store,
    StoreError,
    fold_username,
)

log = logging.getLogger("stud.accounts")

PASSWORD_MIN = 10
PASSWORD_MAX = 128
BAD_CREDENTIALS = "wrong username or password"

#: Sends the `welcome` for `player` on the connection: (session, player, request id, resumed).
Welcome = Callable[[Session, Player, RequestId | None, bool], Awaitable[None]]


def password_problem(password: str, username: str) -> str | None:
    """Why a new password is refused (`weak_password`), or None. Never quotes it."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        return f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters, got {len(password)}"
    if password.lower() == username.lower():
        return "the password may not be the username"
    return None


class Accounts:
    def __init__(
        self,
        config: AccountsConfig,
        store: Store,
        sessions: Sessions,
        passwords: Passwords,
        pending: Pending,
        *,
        patience: float,
        welcome: Welcome,
        forget_tables: Callable[[Session], None],
        seated: Callable[[str], str | None],  # why a sign-in or out must wait, if it must
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
        signed_out: Callable[[str], None],
    ) -> None:
        self.config = config
        self.store = store
        self.sessions = sessions
        self.passwords = passwords
        self.pending = pending
        self.patience = patience
        self.welcome = welcome
        self.forget_tables = forget_tables
        self.seated = seated
        self.spawn = spawn
        self.signed_out = signed_out  # tokens revoked: the player's other connections go

    async def handle(
        self, session: Session, msg: Register | Login | Logout | ChangePassword
    ) -> None:
        try:
            match msg:
                case Register():
                    await self.register(session, msg)
                case Login():
                    await self.login(session, msg)
                case Logout():
                    await self.logout(session, msg)
                case ChangePassword():
                    await self.change_password(session, msg)
        except PasswordsBusy as e:
            raise ProtocolError(
                ErrorCode.BUSY,
                "the server is checking too many passwords right now: try again in a moment",
                details={"retry_after": e.retry_after},
            ) from None

    # ----- the messages ----------------------------------------------------------

    async def register(self, session: Session, msg: Register) -> None:
        player = _player(session)
        if player.username is not None:
            raise ProtocolError(
                ErrorCode.ALREADY_REGISTERED, f"you are the account {player.username!r} already"
            )
        _strong(msg.password, msg.username)
        if await self.store.credentials(msg.username) is not None:  # spare the hash
            raise ProtocolError(
                ErrorCode.USERNAME_TAKEN,
                f"the username {msg.username!r} is taken",
                field="username",
            )
        hashed = await self.passwords.hash(msg.password)
        pid = player.player_id
        account = await until_known(  # a repeat of the same claim changes nothing
            lambda: self.store.register(pid, msg.username, hashed, player.token),
            what="register",
            op=f"register:{pid}",
            pending=self.pending,
            patience=self.patience,
        )
        self.sessions.renamed(account)
        log.info("account registered", extra={"player_id": pid, "username": account.username})
        self.sessions.reply(session, msg, username=account.username)

    async def login(self, session: Session, msg: Login) -> None:
        """On a welcomed connection, or as its first message (protocol version 1): an
        account signing in on a new device makes no guest first."""
        current = session.player
        if current is not None:
            self._not_seated(current)
        keys = self._keys(session, msg.username)
        creds, good = await self._check(keys, msg.username, msg.password)
        if creds is None or not good:
            raise ProtocolError(ErrorCode.BAD_CREDENTIALS, BAD_CREDENTIALS)
        await self._forgive(keys[1:])  # the address's count: failures only
        await self.store.clear_failures(keys[0])
        if self.passwords.needs_rehash(creds.password_hash):
            self.spawn(
                self._rehash(creds.username, creds.player_id, creds.password_hash, msg.password)
            )
        token = secrets.token_urlsafe(32)
        await until_known(
            lambda: self.store.issue_token(creds.player_id, token),
            what="issue_token",
            op=f"token:{creds.player_id}",
            pending=self.pending,
            patience=self.patience,
        )
        account = Player(creds.player_id, creds.name, token, creds.username)
        log.info("signed in", extra={"player_id": account.player_id, "username": account.username})
        await self.welcome(session, account, msg.id, True)

    async def logout(self, session: Session, msg: Logout) -> None:
        player = _player(session)
        self._not_seated(player)
        await until_known(
            lambda: self.store.revoke_token(player.token),
            what="revoke_token",
            op=f"revoke:{player.player_id}",
            pending=self.pending,
            patience=self.patience,
        )
        self.sessions.reply(session, msg)
        self.forget_tables(session)
        self.sessions.detach(session)
        self.signed_out(player.player_id)  # the token's connection to another process

    async def change_password(self, session: Session, msg: ChangePassword) -> None:
        player = _player(session)
        if player.username is None:
            raise ProtocolError(ErrorCode.NOT_REGISTERED, "a guest has no password: register first")
        username = player.username
        _strong(msg.new, username, field="new")
        keys = self._keys(session, username)
        creds, good = await self._check(keys, username, msg.old)
        if creds is None or not good:
            raise ProtocolError(ErrorCode.BAD_CREDENTIALS, "the old password is wrong", field="old")
        await self._forgive(keys)
        new_hash = await self.passwords.hash(msg.new)
        changed = await until_known(
            lambda: self.store.set_password(
                username,
                player.player_id,
                creds.password_hash,
                new_hash,
                revoke_except=player.token,
            ),
            what="set_password",
            op=f"password:{player.player_id}",
            pending=self.pending,
            patience=self.patience,
        )
        if not changed:  # another change came first: the old password is not current
            raise ProtocolError(
                ErrorCode.BAD_CREDENTIALS,
                "the password was changed meanwhile, on another device: sign in with the new one",
                field="old",
            )
        log.info("password changed", extra={"player_id": player.player_id, "username": username})
        self.sessions.reply(session, msg)
        self.signed_out(player.player_id)  # every other device's open connection

    # ----- helpers -------------------------------------------------------------

    def _not_seated(self, player: Player) -> None:
        why = self.seated(player.player_id)
        if why is not None:
            raise ProtocolError(ErrorCode.SEATED, why)

    def _keys(self, session: Session, username: str) -> list[str]:
        """The failure counters a password check of `username` from here counts in."""
        return [f"user:{fold_username(username)}", f"addr:{self.address(session)}"]

    def address(self, session: Session) -> str:
        """The client's address: the socket's peer, or behind a proxy the last entry of
        the configured header (the one the proxy appended)."""
        header = self.config.address_header
        if header:
            value = session.ws.request.headers.get(header) if session.ws.request else None
            if value:
                return value.split(",")[-1].strip()[:64]
        peer = session.ws.remote_address
        return str(peer[0]) if peer else "unknown"

    async def admit_new_player(self, session: Session) -> None:
        """A `hello` with a name makes a player kept for good: one client address may
        make `max_new_players_per_address` of them a window, counted fleet-wide."""
        limit = self.config.max_new_players_per_address
        if limit <= 0:
            return
        key = f"new:{self.address(session)}"
        try:
            (made,) = await self.store.add_failure([key], self.config.window)
        except OutcomeUnknown:
            raise unanswered("no player was made: say hello again") from None
        if made > limit:
            (counted,) = await self.store.failures([key])
            wait = max(1, math.ceil(counted.retry_after))
            log.warning("new players throttled", extra={"keys": [key]})
            raise ProtocolError(
                ErrorCode.TOO_MANY_ATTEMPTS,
                f"too many new players from this address: try again in {wait} seconds, "
                "or resume with a token",
                details={"retry_after": wait},
            )

    async def _check(
        self, keys: list[str], username: str, password: str
    ) -> tuple[Credentials | None, bool]:
        """The account's credentials and whether `password` is theirs, the check counted
        as a failure under both keys before it is made: a burst of checks sent at once
        cannot pass the limits (each read the count before any was added). At a limit,
        too_many_attempts, nothing hashed, and that attempt not counted; a check that
        passes is taken back by the caller, one that could not be made is taken back here."""
        cfg = self.config
        limits = (cfg.max_failures_per_account, cfg.max_failures_per_address)
        try:
            await count_check(self.store, keys, limits, cfg.window)
        except Throttled as e:
            log.warning("password checks throttled", extra={"keys": e.keys})
            raise ProtocolError(
                ErrorCode.TOO_MANY_ATTEMPTS,
                f"too many failed sign-ins: try again in {e.retry_after} seconds",
                details={"retry_after": e.retry_after},
            ) from None
        except OutcomeUnknown:
            raise unanswered("you are not signed in: try again") from None
        try:
            creds = await self.store.credentials(username)
            good = await self.passwords.verify(creds.password_hash if creds else None, password)
        except BaseException:
            await self._forgive(keys)  # not checked: not a failure
            raise
        return creds, good

    async def _forgive(self, keys: list[str]) -> None:
        await take_back(self.store, keys, self.config.window)

    async def _rehash(self, username: str, player_id: str, old: str, password: str) -> None:
        """The hash was made with other parameters: replace it (best effort)."""
        try:
            new = await self.passwords.hash(password)
            await self.store.set_password(username, player_id, old, new)
        except (PasswordsBusy, StoreError) as e:
            log.info("password rehash postponed: %s", type(e).__name__)


def unanswered(nothing_done: str) -> ProtocolError:
    """A counter's write (no money) left in doubt, said as the store not answering with
    what was not done: not as an outcome unknown, which store_unavailable says never is."""
    return ProtocolError(
        ErrorCode.STORE_UNAVAILABLE, f"the game's data store did not answer in time; {nothing_done}"
    )


def _player(session: Session) -> Player:
    if session.player is None:
        raise ProtocolError(ErrorCode.NOT_WELCOMED, "say hello first")
    return session.player


def _strong(password: str, username: str, field: str = "password") -> None:
    problem = password_problem(password, username)
    if problem is not None:
        raise ProtocolError(ErrorCode.WEAK_PASSWORD, problem, field=field)
