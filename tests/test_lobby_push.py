"""Lobby pushes are spaced by their size: a watcher of a 1,000-table lobby (1.2 MB)
is not sent megabytes every push interval; a small lobby goes out every interval. A
leave is answered with the lobby it changed, not left to the next push."""

from __future__ import annotations

from typing import Any

from server.lobby import PUSH_BYTES_PER_SECOND, Lobby
from server.metrics import Metrics
from tests.conftest import ClientFactory, ServerFactory

LONG = {"betting": 60, "decision": 60, "results": 60}  # nothing moves by the clock


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


async def test_a_leave_is_answered_with_the_lobby_as_it_leaves_it(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A player who left went back to the lobby last pushed before the leave: a full
    table left read "Free seats 0 of 9" and "Table full" until the next throttled push
    (an interval, or seconds for a big lobby). A watcher of the lobby is sent it with
    the leave's answer, its seats free; a connection that does not watch it is not."""
    nine = [{"id": "nine", "title": "Nine", "variant": "casino-stud", "seats": 9}]
    # no throttled push during the test: only what the leave sends
    server = await make_server(tables=nine, timers=LONG, jackpot_push_interval=3600)
    ann, bob, cy = [await connect(server, name) for name in ("ann", "bob", "cy")]
    await ann.request("lobby", watch=True)
    for player in (ann, bob, cy):
        await player.request("join", table="nine")
        for _ in range(3):
            await player.request("sit", table="nine")
    assert ann.lobby is not None and ann.lobby["tables"][0]["taken"] < 9
    await ann.request("leave", table="nine")
    assert ann.lobby["tables"][0]["taken"] == 6
    await bob.request("leave", table="nine")
    assert bob.lobby is None
