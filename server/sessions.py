"""Who is connected: every connection, the player behind it, and the reconnect grace.

A player may have several connections for a moment (a resume on a new one
closes the older), and keeps their seats for `reconnect_grace` seconds after
the last one closes. Everything that goes to "this player" (wallet pushes,
private frames) goes through here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from websockets.asyncio.server import ServerConnection

from protocol.codec import PROTOCOL_VERSION, encode
from protocol.errors import CloseCode, ProtocolError, RequestId
from protocol.messages import ClientMessage
from server.metrics import Metrics
from server.outbox import Outbox
from server.ratelimit import TokenBucket
from server.stores.base import Player, Wallet

#: The close reason of a connection its player's newer one replaced.
REPLACED = "replaced by a new connection"
#: The close reason of a connection whose token was revoked while it was open.
SIGNED_OUT = "signed out: this session's token was revoked (a logout, or a password change)"
UNKNOWN_AFTER_RESTORE = (
    "the game's data was restored from a backup made before this player was: say hello"
    " again, as a new player"
)


@dataclass(eq=False)
class Session:
    """One WebSocket connection and what it has joined."""

    ws: ServerConnection
    bucket: TokenBucket
    player: Player | None = None
    tables: set[str] = field(default_factory=set)
    version: int = PROTOCOL_VERSION  # the one its hello chose
    busy: bool = False  # a request of this connection is being handled
    answered_at: float = 0.0  # when (monotonic) the store last failed its hello or login
    closing: tuple[int, str] | None = None  # (code, reason) to close with after that request


@dataclass(eq=False)
class PlayerPresence:
    sessions: set[Session] = field(default_factory=set)
    grace: asyncio.TimerHandle | None = None


class Sessions:
    """Every open connection, and each player's connections and grace timer."""

    def __init__(self, metrics: Metrics, outbox: Outbox) -> None:
        self.metrics = metrics
        self.outbox = outbox
        self.all: set[Session] = set()
        self.presence: dict[str, PlayerPresence] = {}
        # the connections with a player, kept as they come and go: a meter push goes to
        # all of them every second, and 10,000 sessions were sifted for it each time
        self._welcomed: dict[ServerConnection, None] = {}
        self._readers: dict[str, int] = {}  # player -> welcomes reading the wallet now
        self._pushes: dict[str, int] = {}  # player -> wallet pushes while one reads

    def __len__(self) -> int:
        return len(self.all)

    def __iter__(self) -> Iterator[Session]:
        return iter(self.all)

    # ----- connections ---------------------------------------------------------

    def opened(self, session: Session) -> None:
        self.all.add(session)

    def closed(self, session: Session) -> bool:
        """Forget a closed connection; True when it was its player's last one."""
        self.all.discard(session)
        self._welcomed.pop(session.ws, None)
        if session.player is None:
            return False
        presence = self.presence.get(session.player.player_id)
        if presence is None:
            return False
        presence.sessions.discard(session)
        return not presence.sessions

    async def close(self, ws: ServerConnection, code: int, reason: str) -> None:
        await ws.close(code, reason)  # counted by its code when the connection ends

    async def retire(
        self, session: Session, code: int = CloseCode.NORMAL, reason: str = REPLACED
    ) -> None:
        """Close a connection its player's newer one replaces, or one signed out. One that
        is handling a request is closed once that request is answered (the gateway sees
        `closing`): a bet that was applied is never left without its answer."""
        if session.busy:
            session.closing = (code, reason)
        else:
            await self.close(session.ws, code, reason)

    # ----- players -------------------------------------------------------------

    def attach(self, session: Session, player: Player) -> tuple[bool, list[Session]]:
        """The connection is now `player`'s; returns (whether the player was gone,
        the player's older connections, which the caller closes: one per player)."""
        session.player = player
        if session in self.all:  # not one that closed while its login was out
            self._welcomed[session.ws] = None
        presence = self.presence.setdefault(player.player_id, PlayerPresence())
        was_gone = not presence.sessions
        older = list(presence.sessions)
        presence.sessions.add(session)
        if presence.grace is not None:
            presence.grace.cancel()
            presence.grace = None
        return was_gone, older

    def detach(self, session: Session) -> None:
        """The connection is no longer its player's (a logout, or a login as another
        player); a player left with no connection here is forgotten (they hold no seat
        here: signing in or out is refused while seated)."""
        if session.player is None:
            return
        pid = session.player.player_id
        session.player = None
        self._welcomed.pop(session.ws, None)
        presence = self.presence.get(pid)
        if presence is None:
            return
        presence.sessions.discard(session)
        if not presence.sessions:
            if presence.grace is not None:
                presence.grace.cancel()
            del self.presence[pid]

    def renamed(self, player: Player) -> None:
        """The player became an account: every connection of theirs knows it."""
        presence = self.presence.get(player.player_id)
        for session in presence.sessions if presence else ():
            assert session.player is not None
            session.player = replace(session.player, username=player.username)

    def start_grace(self, player_id: str, seconds: float, expired: Callable[[], None]) -> None:
        presence = self.presence.get(player_id)
        if presence is None:
            return
        presence.grace = asyncio.get_running_loop().call_later(seconds, expired)

    def grace_over(self, player_id: str) -> bool:
        """The grace timer ran out: True (and the player forgotten) if they are still gone."""
        presence = self.presence.get(player_id)
        if presence is None or presence.sessions:
            return False
        del self.presence[player_id]
        return True

    def is_connected(self, player_id: str) -> bool:
        p = self.presence.get(player_id)
        return bool(p and p.sessions)

    def players_connected(self) -> int:
        return sum(1 for p in self.presence.values() if p.sessions)

    def of(self, player_id: str) -> list[Session]:
        presence = self.presence.get(player_id)
        return list(presence.sessions) if presence else []

    def connections_of(self, player_id: str) -> list[ServerConnection]:
        presence = self.presence.get(player_id)
        return [s.ws for s in presence.sessions] if presence else []

    def welcomed(self) -> list[ServerConnection]:
        return list(self._welcomed)

    # ----- pushes --------------------------------------------------------------

    def send(self, ws: ServerConnection, message: dict[str, Any]) -> None:
        self.metrics.frames_out += self.outbox.send(ws, encode(message))

    def reply(self, session: Session, msg: ClientMessage, **data: Any) -> None:
        """`ok` for a request that carried an id (PROTOCOL.md section 2)."""
        if msg.id is not None:
            self.send(session.ws, {"t": "ok", "id": msg.id, **data})

    def send_error(
        self, session: Session, error: ProtocolError, request_id: RequestId | None = None
    ) -> None:
        self.metrics.errors[str(error.code)] += 1
        self.send(session.ws, error.to_frame(request_id))

    @contextlib.contextmanager
    def pushes_meanwhile(self, player_id: str) -> Iterator[Callable[[], bool]]:
        """Whether the player's wallet was pushed while the `with` ran (a welcome's read:
        the push went to the older connections only, so the read may be stale)."""
        readers, pushes = self._readers, self._pushes
        readers[player_id] = readers.get(player_id, 0) + 1
        before = pushes.get(player_id, 0)
        try:
            yield lambda: pushes.get(player_id, 0) != before
        finally:
            readers[player_id] -= 1
            if not readers[player_id]:
                del readers[player_id]
                pushes.pop(player_id, None)

    def push_wallet(self, player_id: str, wallet: Wallet) -> None:
        if player_id in self._readers:
            self._pushes[player_id] = self._pushes.get(player_id, 0) + 1
        conns = self.connections_of(player_id)
        if conns:
            data = encode({"t": "balance", **wallet.to_public()})
            self.metrics.frames_out += self.outbox.send_all(conns, data)
