"""The index of who sits where, which hellos, disconnects and graces read instead of
looking at every table: it must always agree with the tables themselves."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.app import StudServer
from server.seating import Seating
from tests.conftest import ClientFactory, ServerFactory


def by_scan(server: StudServer, player_id: str) -> list[str]:
    return sorted(t for t, room in server.rooms.items() if room.table.seats_of(player_id))


@given(st.lists(st.tuples(st.sampled_from("abc"), st.sets(st.sampled_from("pqrs"))), max_size=30))
def test_each_player_is_at_the_tables_that_last_listed_them(
    updates: list[tuple[str, set[str]]],
) -> None:
    seating, now = Seating(), {t: set[str]() for t in "abc"}
    for table, players in updates:
        seating.update(table, players)
        now[table] = players
    for player in "pqrs":
        assert seating.tables_of(player) == sorted(t for t in "abc" if player in now[t])
    assert seating._tables.keys() <= set("pqrs")
    assert all(seating._tables.values())  # nobody is kept with no table


async def test_the_index_follows_sits_stands_leaves_and_a_lost_table(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "ann")
    pid = ann.player_id
    await ann.request("sit", table="alpha")
    await ann.request("sit", table="alpha")
    await ann.request("sit", table="beta")
    assert server.seating.tables_of(pid) == by_scan(server, pid) == ["alpha", "beta"]
    await ann.request("stand", table="alpha", seat=0)
    assert server.seating.tables_of(pid) == ["alpha", "beta"]  # one seat left there
    await ann.request("leave", table="beta")
    assert server.seating.tables_of(pid) == by_scan(server, pid) == ["alpha"]
    again = await connect(server, None)
    await again.hello(token=ann.token)  # a second connection: its welcome lists the seats
    assert again.welcome["seats"] == {"alpha": [1]}
    server.rooms["alpha"].lose()  # hosted elsewhere now: its seats are not ours
    assert server.seating.tables_of(pid) == by_scan(server, pid) == []
