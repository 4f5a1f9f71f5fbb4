"""Who is connected, as the meter pushes and wallet pushes ask for it."""

from __future__ import annotations

from typing import Any, cast

from websockets.asyncio.server import ServerConnection

from server.metrics import Metrics
from server.outbox import Outbox
from server.ratelimit import TokenBucket
from server.sessions import Session, Sessions
from server.stores.base import Player


def session(name: str) -> Session:
    ws = cast(ServerConnection, type("FakeConnection", (), {"name": name})())
    return Session(ws, TokenBucket(10, 10))


def test_the_welcomed_are_the_open_connections_with_a_player() -> None:
    metrics = Metrics()
    sessions = Sessions(metrics, Outbox(1 << 20, metrics))
    a, b, c, late = (session(n) for n in ("a", "b", "c", "late"))
    for s in (a, b, c, late):
        sessions.opened(s)
    assert sessions.welcomed() == []
    sessions.attach(a, Player("pa", "a", "ta"))
    sessions.attach(b, Player("pb", "b", "tb"))
    sessions.attach(c, Player("pa", "a", "tc"))  # a's second connection
    assert sessions.welcomed() == [a.ws, b.ws, c.ws]  # in the order they were welcomed
    sessions.detach(b)  # signed out: connected, no player
    assert sessions.welcomed() == [a.ws, c.ws]
    sessions.closed(a)
    assert sessions.welcomed() == [c.ws]
    sessions.closed(late)  # closed while its login was out: the login lands after
    sessions.attach(late, Player("pl", "late", "tl"))
    assert sessions.welcomed() == [c.ws]
    sessions.attach(b, Player("pb", "b", "tb"))  # signed in again
    assert sessions.welcomed() == [c.ws, b.ws]
    everyone: list[Any] = [s.ws for s in sessions.all if s.player is not None]
    assert set(sessions.welcomed()) == set(everyone)
