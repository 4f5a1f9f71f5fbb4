"""Lobby pushes are spaced by their size: a watcher of a 1,000-table lobby (1.2 MB)
is not sent megabytes every push interval; a small lobby goes out every interval."""

from __future__ import annotations

from typing import Any

from server.lobby import PUSH_BYTES_PER_SECOND, Lobby
from server.metrics import Metrics


class CountingOutbox:
    def __init__(self) -> None:
        self.sent: list[int] = []

    def send_all(self, connections: Any, data: bytes) -> int:
        self.sent.append(len(data))
        return len(list(connections))


def lobby_of(rows: int, clock: list[float]) -> tuple[Lobby, CountingOutbox]:
    outbox = CountingOutbox()
    row = {"id": "t", "variant": {"paytable": "x" * 1_100}}
    lobby = Lobby(
        lambda: [dict(row, id=f"t{i}") for i in range(rows)],
        {"main": 1},
        Metrics(),
        outbox,  # type: ignore[arg-type]
        clock=lambda: clock[0],
    )
    lobby.watch(object(), True)  # type: ignore[arg-type]
    return lobby, outbox


def test_a_big_lobby_is_pushed_no_faster_than_its_bytes_allow() -> None:
    clock = [100.0]
    lobby, outbox = lobby_of(1_000, clock)
    lobby.changed()
    lobby.flush()
    assert len(outbox.sent) == 1 and outbox.sent[0] > 1_000_000
    spacing = outbox.sent[0] / PUSH_BYTES_PER_SECOND  # about 5.6 s
    lobby.changed()
    clock[0] += 1.0  # the next push interval
    lobby.flush()
    assert len(outbox.sent) == 1  # held: still marked, sent once its time has come
    clock[0] = 100.0 + spacing
    lobby.flush()
    assert len(outbox.sent) == 2


def test_a_small_lobby_goes_out_at_every_interval() -> None:
    clock = [100.0]
    lobby, outbox = lobby_of(5, clock)
    for _ in range(3):
        lobby.changed()
        lobby.flush()
        clock[0] += 0.25
    assert len(outbox.sent) == 3
    lobby.flush()  # nothing changed: nothing sent
    assert len(outbox.sent) == 3


def test_a_table_just_taken_over_is_listed_once_where_it_is_hosted() -> None:
    """Until the next heartbeat's read, the remote rows still held the dead host's row
    of a table this process had just claimed: the lobby listed it twice (a terminal
    client crashed on the duplicate key)."""
    hosted: list[dict[str, Any]] = [{"id": "other", "url": "ws://here/ws"}]
    lobby = Lobby(lambda: list(hosted), {"main": 1}, Metrics(), CountingOutbox())  # type: ignore[arg-type]
    lobby.set_remote([{"id": "casino-1", "url": "ws://dead/ws", "phase": "deciding"}])
    assert [r["id"] for r in lobby.frame()["tables"]] == ["other", "casino-1"]
    hosted.append({"id": "casino-1", "url": "ws://here/ws", "phase": "waiting"})  # claimed
    tables = lobby.frame()["tables"]
    assert [(r["id"], r["url"]) for r in tables] == [
        ("other", "ws://here/ws"),
        ("casino-1", "ws://here/ws"),
    ]
