"""What each client message does: identity, the lobby, the wallet, routing to tables.

A message reaches here validated (server/gateway.py). Table commands go to
the table's `Room`, which applies them under its lock; everything else is
answered here. Errors are raised (`ProtocolError`, the engine's `Refusal`, a
`StoreError`) and the gateway turns them into `error` frames.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from protocol.codec import PROTOCOL_VERSION, negotiate_version
from protocol.errors import ErrorCode, ProtocolError, RequestId
from protocol.messages import (
    Ante,
    Balance,
    BuyChips,
    ChangePassword,
    ClientMessage,
    Deal,
    Fold,
    Hello,
    History,
    Join,
    Leave,
    Lobby,
    Login,
    Logout,
    Ping,
    Raise,
    Register,
    Seed,
    Sit,
    Stand,
    Withdraw,
)
from server.accounts import Accounts
from server.config import Config
from server.durable import Pending, until_known
from server.game.table import Decision, Refusal
from server.jackpots import JackpotNews
from server.lobby import Lobby as LobbyView
from server.metrics import Metrics
from server.passwords import Passwords
from server.room import Room
from server.seating import Seating
from server.sessions import Session, Sessions
from server.stores.base import (
    NotOwner,
    OpAbandoned,
    OpConflict,
    OutcomeUnknown,
    Player,
    Store,
    StoreError,
    Wallet,
    new_player,
    suspended_error,
)

log = logging.getLogger("stud.server")


def with_id(reply: dict[str, Any], request_id: RequestId | None) -> dict[str, Any]:
    """A reply echoes its request's `id`; a request without one (or with nil, which
    counts as absent: PROTOCOL.md section 1) gets a reply without one."""
    if request_id is not None:
        reply["id"] = request_id
    return reply


#: Reads of the wallet a welcome makes at most while it moves under them.
WELCOME_READS = 3


class Requests:
    def __init__(
        self,
        config: Config,
        store: Store,
        sessions: Sessions,
        rooms: Mapping[str, Room],
        lobby: LobbyView,
        jackpots: JackpotNews,
        metrics: Metrics,
        pending: Pending,
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
        stopping: Callable[[], bool],
        passwords: Passwords,
        seating: Seating,
        barred: Callable[[str], dict[str, Any] | None],
        signed_out: Callable[[str], None],
    ) -> None:
        self.config = config
        self.store = store
        self.sessions = sessions
        self.rooms = rooms
        self.lobby = lobby
        self.jackpots = jackpots
        self.metrics = metrics
        self.pending = pending
        self.spawn = spawn
        self.stopping = stopping
        self.seating = seating
        self.barred = barred  # an operator's suspension of a player (server/admin/)
        self.accounts = Accounts(
            config.accounts,
            store,
            sessions,
            passwords,
            pending,
            patience=config.store_patience,
            welcome=self.welcome,
            forget_tables=self.forget_tables,
            seated=self.seated,
            spawn=spawn,
            signed_out=signed_out,
        )

    async def handle(self, session: Session, msg: ClientMessage, started: float) -> None:
        sessions = self.sessions
        match msg:  # the commands of every hand first: a case is a type check
            case Ante():
                room = self._room(msg.table)
                self._not_suspended(self._pid(session))
                rid = await room.ante(
                    self._pid(session), msg.seat, msg.amount, msg.progressive, started, msg.seq
                )
                sessions.reply(session, msg, round_id=rid)
            case Deal():
                await self._room(msg.table).deal(self._pid(session), started, msg.seq)
                sessions.reply(session, msg)
            case Fold() | Raise():
                decision = Decision.FOLD if isinstance(msg, Fold) else Decision.RAISE
                room = self._room(msg.table)
                await room.decide(self._pid(session), msg.seat, decision, started, msg.seq)
                sessions.reply(session, msg)
            case Hello():
                await self.hello(session, msg)
            case Ping():
                pong = {"t": "pong", "server_time_ms": int(time.time() * 1000)}
                sessions.send(session.ws, with_id(pong, msg.id))
            case Lobby():
                self.lobby.watch(session.ws, msg.watch)
                sessions.send(session.ws, self.lobby.frame())
                sessions.reply(session, msg)
            case Balance():
                wallet = await self.store.wallet(self._pid(session))
                sessions.send(session.ws, {"t": "balance", **wallet.to_public()})
                sessions.reply(session, msg)
            case BuyChips():
                if self.stopping():
                    raise ProtocolError(ErrorCode.SHUTTING_DOWN, "this server is shutting down")
                pid = self._pid(session)
                self._not_suspended(pid)
                wallet = await self.buy_chips(pid, msg)
                sessions.push_wallet(pid, wallet)  # before the ok, as for the other requests
                sessions.reply(session, msg)
            case Join():
                room = self._room(msg.table)
                self._watch(session, room)
                sessions.reply(session, msg)
            case Leave():
                room = self._room(msg.table)  # unknown_table first, then not_at_table
                self._at(session, msg.table)
                # watched until the departure lands: it may wait out a suspended table
                # (or fail), and the player sits on meanwhile
                await room.remove_player(self._pid(session))
                session.tables.discard(msg.table)
                room.remove_viewer(session.ws)
                self.lobby.send_now(session.ws)  # the lobby the player goes back to
                sessions.reply(session, msg)
            case Sit():
                room = self._room(msg.table)
                player = self._player(session)
                self._not_suspended(player.player_id)
                self._may_watch(session, room)
                seat = await room.sit(player.player_id, player.name, msg.seat)
                # watched once seated, so a refused sit changes nothing
                if msg.table not in session.tables:
                    self._watch(session, room)
                sessions.reply(session, msg, seat=seat)
            case Stand():
                await self._room(msg.table).stand(self._pid(session), msg.seat)
                sessions.reply(session, msg)
            case Withdraw():
                await self._room(msg.table).withdraw(self._pid(session), msg.seat, msg.seq)
                sessions.reply(session, msg)
            case Seed():
                room = self._room(msg.table)
                self._at(session, msg.table)
                await room.set_client_seed(self._pid(session), msg.client_seed)
                sessions.reply(session, msg)
            case History():
                rounds = await self.store.history(self._pid(session), msg.limit)
                sessions.send(session.ws, {"t": "history", "rounds": rounds})
                sessions.reply(session, msg)
            case Register() | Login() | Logout() | ChangePassword():
                await self.accounts.handle(session, msg)

    # ----- identity ------------------------------------------------------------

    async def hello(self, session: Session, msg: Hello) -> None:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_WELCOMED, "this connection already said hello")
        version = negotiate_version(msg.v)
        if version is None:
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol version {PROTOCOL_VERSION}",
                details={"supported": [PROTOCOL_VERSION]},
            )
        resumed = False
        if msg.token is not None:
            days = self.config.accounts.token_idle_days
            try:
                player = await self.store.player_by_token(msg.token, idle=days * 86_400 or None)
            except OutcomeUnknown:
                # the lookup notes the token's use, a write of no money: nothing of the
                # player changed, so it is said as the store not answering (it said "the
                # outcome is unknown" under store_unavailable, which says nothing was)
                raise ProtocolError(
                    ErrorCode.STORE_UNAVAILABLE,
                    "the game's data store did not answer in time; nothing changed: "
                    "say hello again",
                ) from None
            if player is None:
                unused = f" (or unused for more than {days:g} days)" if days else ""
                raise ProtocolError(
                    ErrorCode.INVALID_TOKEN,
                    f"unknown session token{unused}: say hello with a name, or sign in",
                )
            resumed = True
        elif msg.name is not None:
            await self.accounts.admit_new_player(session)
            w = self.config.wallet
            chosen = new_player(msg.name)  # a retry creates this player, not another
            player = await until_known(
                lambda: self.store.create_player(
                    chosen.name, w.starting_credits, w.starting_bonus, chosen
                ),
                what="create_player",
                op=chosen.player_id,
                pending=self.pending,
                patience=self.config.store_patience,
            )
        else:
            raise ProtocolError(
                ErrorCode.MISSING_FIELD, "hello needs a name or a token", field="name"
            )
        session.version = version
        await self.welcome(session, player, msg.id, resumed)

    async def welcome(
        self, session: Session, player: Player, request_id: RequestId | None, resumed: bool
    ) -> None:
        """The connection is `player`'s now: say so (`welcome`), and re-join their tables.
        What can fail comes first (the wallet's read): refused, the connection is as it
        was, not half the new player's with the older connections closed."""
        for _ in range(WELCOME_READS):  # a wallet pushed meanwhile: read it again
            with self.sessions.pushes_meanwhile(player.player_id) as moved:
                wallet = await self.store.wallet(player.player_id)
                again = moved()
            if not again:
                break
        if session.player is not None:  # a sign-in on a welcomed connection: the guest goes
            self.forget_tables(session)
            self.sessions.detach(session)
        was_gone, older = self.sessions.attach(session, player)
        for other in older:  # one connection per player: the newest wins
            self.spawn(self.sessions.retire(other))
        limits = self.config.limits
        seats = {}  # the index catches up when a command ends: a leaving seat may be listed
        for table_id in self.seating.tables_of(player.player_id):
            if own := [s.index for s in self.rooms[table_id].table.seats_of(player.player_id)]:
                seats[table_id] = own
        welcome = {
            "t": "welcome",
            "v": session.version,
            "player_id": player.player_id,
            "token": player.token,
            "name": player.name,
            "username": player.username,
            "resumed": resumed,
            "balance": wallet.to_public(),
            "seats": seats,
            "jackpots": dict(self.jackpots.meters),
            # the address its lobby rows give for this process's own tables: a client
            # reached it by another (a proxy, 127.0.0.1 for localhost) tells them apart
            "url": self.config.public_url,
            "limits": {
                "max_frame_bytes": limits.max_frame_bytes,
                "rate_per_second": int(limits.rate_per_second),  # whole (config.py)
                "rate_burst": limits.rate_burst,
                "max_seats_per_player": self.config.max_seats_per_player,
                "reconnect_grace_ms": int(self.config.reconnect_grace * 1000),
            },
        }
        self.sessions.send(session.ws, with_id(welcome, request_id))
        for table_id in seats:
            room = self.rooms[table_id]
            self._watch(session, room)
            if was_gone:
                await room.set_connected(player.player_id, True)

    async def buy_chips(self, player_id: str, msg: BuyChips) -> Wallet:
        """The top-up carried to a definite outcome. A client `key` is the operation id,
        so the player's repeat of a purchase whose reply was lost buys nothing more."""
        w = self.config.wallet
        op = f"buy:key:{msg.key}" if msg.key is not None else f"buy:{secrets.token_hex(8)}"
        try:
            return await until_known(
                lambda: self.store.buy_chips(
                    player_id, msg.amount, w.max_balance, op, max_amount=w.max_buy_chips
                ),
                what="buy_chips",
                op=op,
                pending=self.pending,
                patience=self.config.store_patience,
                abandon=lambda: self.store.abandon(op, player_id=player_id),
            )
        except OpConflict as e:
            raise ProtocolError(
                ErrorCode.INVALID_FIELD,
                f"key {msg.key!r} was already used for a purchase of {e.details['amount']} cents",
                field="key",
                details={"bought": e.details["amount"]},
            ) from None
        except OpAbandoned:
            if msg.key is None:
                raise
            raise ProtocolError(
                ErrorCode.STORE_UNAVAILABLE,
                f"the purchase under key {msg.key!r} was given up: nothing was bought, and "
                "this key buys nothing now; send a new key to try again",
                details={"given_up": True},  # unlike one never sent, whose key may go again
            ) from None

    async def disconnected(self, session: Session) -> None:
        """The connection closed: it watches nothing now; a player's last one starts the grace."""
        self.lobby.watch(session.ws, False)
        for table_id in session.tables:
            self.rooms[table_id].remove_viewer(session.ws)
        if session.player is not None and not self.stopping():
            self.spawn(self._token_used(session.player.token))
        if not self.sessions.closed(session):
            return
        assert session.player is not None
        pid = session.player.player_id
        for table_id in self.seating.tables_of(pid):
            await self.rooms[table_id].set_connected(pid, False)
        if self.stopping():
            return
        self.sessions.start_grace(
            pid, self.config.reconnect_grace, lambda: self.spawn(self._grace_over(pid))
        )

    async def _token_used(self, token: str) -> None:
        """A connection with the token ended: it was in use until now, so its idle time
        (`token_idle_days`) starts now, not at the hello of a connection open for weeks."""
        with contextlib.suppress(StoreError):
            await self.store.player_by_token(token)

    async def _grace_over(self, player_id: str) -> None:
        """The player stayed away past the grace: their seats go (after any live round)."""
        if not self.sessions.grace_over(player_id):
            return
        for table_id in self.seating.tables_of(player_id):
            with contextlib.suppress(Refusal, NotOwner, StoreError):
                await self.rooms[table_id].remove_player(player_id, by_request=False)

    def forget_tables(self, session: Session) -> None:
        """The connection watches no table any more (its player changes)."""
        for table_id in session.tables:
            room = self.rooms.get(table_id)
            if room is not None:
                room.remove_viewer(session.ws)
        session.tables.clear()

    def seated(self, player_id: str) -> str | None:
        """Why a change of identity must wait, if it must: a seat the player keeps at a
        table of this process, or one left with a hand still in play (a folded hand has
        nothing left in play; one left at the showdown is settled and only on view)."""
        for table_id in self.seating.tables_of(player_id):
            room = self.rooms.get(table_id)
            if room is None:
                continue
            if room.table.keeps_seat(player_id):
                return f"you hold a seat at {table_id!r}: leave the table before signing in or out"
            if room.table.has_hand_in_play(player_id):
                return (
                    f"your hand at {table_id!r} is still in play: sign in or out once its round "
                    "settles"
                )
        return None

    def table_lost(self, table_id: str) -> None:
        """The table is hosted elsewhere now: no connection here watches it any more."""
        for session in self.sessions:
            session.tables.discard(table_id)

    # ----- helpers -------------------------------------------------------------

    def _player(self, session: Session) -> Player:
        if session.player is None:
            raise ProtocolError(ErrorCode.NOT_WELCOMED, "say hello first")
        return session.player

    def _pid(self, session: Session) -> str:
        return self._player(session).player_id

    def _not_suspended(self, player_id: str) -> None:
        suspension = self.barred(player_id)
        if suspension is not None:  # the words the store's own refusal has
            raise suspended_error(str(suspension["reason"]))

    def _room(self, table_id: str) -> Room:
        room = self.rooms.get(table_id)
        if room is None or not room.active:
            remote = self.lobby.remote_row(table_id)
            url = str(remote.get("url") or "") if remote is not None else ""
            if url == self.config.public_url:
                # an earlier process at this address left the row: its host is gone, and
                # another takes the table over within seconds (never send a client here)
                url = ""
            if not url and room is not None:
                url = room.moved_to  # lost just now: the lobby lists its new host later
            where = f": it is hosted at {url}" if url else ""
            if url and remote is not None and remote.get("silent"):
                where += ", which is not answering just now"  # frozen: back, or taken over
            raise ProtocolError(
                ErrorCode.UNKNOWN_TABLE,
                f"no table {table_id!r} on this server{where}",
                field="table",
                details={"url": url} if url else None,
            )
        return room

    def _at(self, session: Session, table_id: str) -> None:
        if table_id not in session.tables:
            raise ProtocolError(
                ErrorCode.NOT_AT_TABLE, f"join table {table_id!r} first", field="table"
            )

    def _may_watch(self, session: Session, room: Room) -> None:
        """Refuse a table past the connection's limit of tables watched."""
        if (
            room.id not in session.tables
            and len(session.tables) >= self.config.limits.max_tables_per_connection
        ):
            raise ProtocolError(
                ErrorCode.INVALID_FIELD,
                f"at most {self.config.limits.max_tables_per_connection} tables per connection",
                field="table",
            )

    def _watch(self, session: Session, room: Room) -> None:
        """Add the connection to the table's viewers and send it the snapshot."""
        self._may_watch(session, room)
        session.tables.add(room.id)
        for frame in room.add_viewer(session.ws, self._pid(session)):
            self.metrics.frames_out += self.sessions.outbox.send(session.ws, frame)
