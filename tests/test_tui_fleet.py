"""The terminal client with two server processes on one Redis: its server gone, it
goes on at the other (the same player, by the token) and shows the table as the
new host has it, never the round that died with the old one; a table hosted by the
other process opens there. Needs redis-server on the PATH."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from clients.bots import money
from clients.connection import StudClient
from clients.tui import LobbyScreen, PlayScreen, StudApp
from clients.tui.words import unseen_round_text
from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.redis_fixture import RedisServer, free_port, private_redis, time_limit
from tests.test_tui import hold_reconnects, phase, sees, settle, shown, until

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

START = 100_000
FAST = (0.05, 0.2)  # the link's backoff: retries come quick in a test
LONG = {"betting": 30, "decision": 30, "results": 30}
VOIDED = "every bet of it (antes, raises, progressive) was refunded"  # as the browser says
SEAT_GONE = "Your seat #1 there is gone: press s to sit."  # the browser's, with the key to sit


def ws(server: StudServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


class Casino:
    """Server processes on one Redis, each by name; one started again under its name
    listens at its old address, as a process resumed or restarted in place does."""

    def __init__(self, redis: RedisServer) -> None:
        self.redis = redis
        self.ports: dict[str, int] = {}
        self.servers: list[StudServer] = []

    async def start(
        self, name: str, tables: list[str], timers: dict[str, float] | None = None
    ) -> StudServer:
        port = self.ports.setdefault(name, free_port())
        public = f"ws://127.0.0.1:{port}/ws"
        config = make_config(
            tables=[{"id": t, "variant": "casino-stud", "seats": 3} for t in tables],
            wallet={"starting_credits": START, "starting_bonus": 0},
            timers=timers or LONG,
        )
        config = replace(config, port=port, public_url=public, fleet_ttl=1.5)
        store = await RedisStore.connect(self.redis.url, namespace="tui-fleet")
        fleet = Fleet(store, f"proc-{name}-{len(self.servers)}", public, ttl=1.5)
        server = StudServer(config, store=store, fleet=fleet)
        await server.start()
        self.servers.append(server)
        return server

    async def stop(self) -> None:
        for server in self.servers:
            await server.stop(grace=0)


@pytest.fixture
async def casino(private_redis: RedisServer) -> AsyncIterator[Casino]:
    casino = Casino(private_redis)
    try:
        yield casino
    finally:
        await casino.stop()


@pytest.fixture
async def pair(casino: Casino) -> tuple[StudServer, StudServer]:
    """Process "first" hosts table east; "second" hosts west and stands by for east."""
    return await casino.start("first", ["east"]), await casino.start("second", ["west", "east"])


def hold_renewals(server: StudServer) -> asyncio.Event:
    """The server's lease renewals wait for the event set: to the others it stands
    still (as one stopped with SIGSTOP), so another process takes its tables over."""
    gate = asyncio.Event()
    renew = server.hosting.leases.claim_many

    async def held_back(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await renew(*args, **kwargs)

    server.hosting.leases.claim_many = held_back  # type: ignore[method-assign]
    return gate


async def seated(p: Any, app: StudApp, *, processes: int = 2) -> None:
    """The table on screen, that many processes in the lobby (0: not waited for), and
    the player at seat #1."""
    await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
    if processes:
        await until(p, lambda: len(app.link.fleet) == processes, "the processes in the lobby")
    await p.press("s")
    await until(p, lambda: app.own_seats() == [0], "the seat")


async def test_its_server_gone_the_terminal_goes_on_at_the_other_with_the_truth(
    pair: tuple[StudServer, StudServer],
) -> None:
    """A dealt round dies with its host: the terminal says it is offline while it is
    (the table as last seen, no clock), reaches the other process, which took the table
    over, and shows the table as it is there: no seat, the bet refunded, and says
    that the round was voided as its server shut down, and that the seat is gone."""
    first, second = pair
    assert first.rooms["east"].active
    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await seated(p, app)
        await p.press("3", "d")
        await until(p, lambda: (app.snapshot or {}).get("phase") == "deciding", "the deal")
        assert app.balance["held"] > 0
        await first.stop(grace=0)  # its rounds voided, every bet refunded
        await until(p, lambda: "OFFLINE" in shown(app, "#info"), "offline said")
        assert "Not connected" in shown(app, "#message")
        assert "left" not in shown(app, "#info")  # no clock runs on a table not heard
        await until(p, lambda: app.link.url == ws(second) and app.link.connected, "the other")
        await until(p, lambda: second.rooms["east"].active, "the takeover")
        await until(
            p,
            lambda: app.own_seats() == [] and (app.snapshot or {}).get("phase") == "waiting",
            "the table as its new host has it",
        )
        await until(p, lambda: app.balance.get("held") == 0, "the refund pushed")
        assert app.balance["balance"] == START
        message = await sees(p, app, "#message", VOIDED)
        assert "as the server shut down" in message and "Not connected" not in message
        # one line: the round first, then the seat the new host does not hold
        assert message == f"{unseen_round_text(None, shutdown=True)} {SEAT_GONE}"
        assert "OFFLINE" not in shown(app, "#info")


async def test_a_round_its_new_host_voided_is_told_where_the_table_is_rejoined(
    pair: tuple[StudServer, StudServer],
) -> None:
    """Its host stood still past its lease and the other process took the table over,
    voiding the round; the terminal, back at the new host, rejoined the table there and
    a raised hand vanished, its $30 back, without a word. It says now that the round
    was voided, every bet refunded (the history has no settlement of it), and that both
    seats are gone (it said only "No seat: press s to sit"), and shows the wallet as
    refunded."""
    first, second = pair
    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s")
        await until(p, lambda: app.own_seats() == [0, 1], "two seats")
        await settle(app)
        await p.press("3", "tab", "3", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("r")  # seat 1 raises, seat 2 has yet to decide
        await until(p, lambda: "Raised" in shown(app, "#seats"), "the raise")
        assert app.balance["balance"] < START
        gate = hold_renewals(first)  # it stands still, as one stopped with SIGSTOP
        await until(p, lambda: second.rooms["east"].active, "the takeover")
        await first.stop(grace=0)
        await until(p, lambda: len(second.rooms["east"].audience.viewers) == 1, "rejoined there")
        message = await sees(p, app, "#message", VOIDED)
        assert "Your round was voided:" in message
        gone = "Your seats #1, #2 there are gone: press s to sit."
        assert message == f"{unseen_round_text(None, shutdown=False)} {gone}"
        await until(p, lambda: app.balance.get("held") == 0, "the refund")
        assert app.balance["balance"] == START
        await sees(p, app, "#player", "$1,000.00")
        gate.set()


async def test_a_table_of_the_other_process_opens_there(
    pair: tuple[StudServer, StudServer],
) -> None:
    first, second = pair
    app = StudApp(ws(first), "ann", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await until(p, lambda: len(app.link.fleet) == 2, "both processes in the lobby")
        player = app.player_id
        app.open_table("west")  # as Enter on its row does
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        assert app.link.url == ws(second) and app.table_id == "west"
        assert app.player_id == player  # the same player, by the token
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "a seat there")


async def test_a_table_its_host_left_opens_again_once_this_process_takes_it_over(
    pair: tuple[StudServer, StudServer],
) -> None:
    """The terminal reached the standby before it had taken the table over: back in the
    lobby, told what became of the seats (not sent to the host that just failed, which
    the lobby still named); the table opens by itself once the standby hosts it."""
    first, second = pair
    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await seated(p, app)
        await p.press("3", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        gate = hold_renewals(second)
        gone = ws(first)
        await first.stop(grace=0)  # the round voided as it shuts down
        await until(p, lambda: app.link.url == ws(second) and app.link.connected, "the other")
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        message = shown(app, "#message")
        assert "opens again by itself" in message and gone not in message
        gate.set()  # the standby takes the table over now
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table again")
        assert app.table_id == "east" and app.own_seats() == []
        message = await sees(p, app, "#message", VOIDED)
        assert "Your round was voided as the server shut down" in message
        assert message == f"{unseen_round_text(None, shutdown=True)} {SEAT_GONE}"
        assert app.balance["balance"] == START and app.balance["held"] == 0


async def test_a_table_moved_away_is_followed_to_its_new_host(
    pair: tuple[StudServer, StudServer],
) -> None:
    """Its host, cut off past its lease (its renewals held back here), lost the table to
    the other process and told its viewers `table_moved`: the terminal goes along and
    opens the table there, where it used to wait in the lobby; and says that the round
    in play was voided there, every bet refunded, and that the seat is gone."""
    first, second = pair
    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await seated(p, app, processes=0)
        await p.press("3", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        gate = hold_renewals(first)
        await until(p, lambda: second.rooms["east"].active, "the takeover")
        gate.set()  # the first learns it lost the table: table_moved
        await until(p, lambda: app.link.url == ws(second), "the new host")
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table there")
        assert app.table_id == "east" and app.link.connected
        message = await sees(p, app, "#message", VOIDED)
        assert "Your round was voided:" in message
        assert message == f"{unseen_round_text(None, shutdown=False)} {SEAT_GONE}"
        await until(p, lambda: app.balance.get("held") == 0, "the refund")
        assert app.balance["balance"] == START


async def test_a_table_not_where_it_was_looked_for_is_waited_for_and_followed(
    pair: tuple[StudServer, StudServer],
) -> None:
    """Sent to a process by a lobby row that was out of date, the join is refused
    there: the terminal said where the lobby had it (a host just killed) and gave up.
    It waits for the lobby to list the table again, and goes there."""
    first, second = pair
    app = StudApp(ws(first), "ann", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await until(p, lambda: len(app.link.fleet) == 2, "both processes in the lobby")
        app.open_table("west", follow=False)  # as the join after a follow does
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        assert app.link.url == ws(second) and app.table_id == "west"


async def back_and_forth(casino: Casino, p: Any, app: StudApp, *, long_after: bool) -> StudServer:
    """Table east goes from process a to b, the terminal with it, and back to a (in
    place again) while the terminal is taken by its ring to c, which hosts only west;
    returns the a that hosts east again. `long_after`: a's failure, seen by the
    terminal on the way to b, is long past when b fails (minutes, in the report)."""
    a, b = casino.servers[:2]
    await until(p, lambda: isinstance(app.screen, PlayScreen), "the table at a")
    await until(p, lambda: len(app.link.fleet) == 3, "a, c and the standby b in the lobby")
    await p.press("s")
    await until(p, lambda: app.own_seats() == [0], "the seat")
    hold_renewals(a)  # a stands still: b takes the table over
    await until(p, lambda: b.rooms["east"].active, "the takeover by b")
    await a.stop(grace=0)
    await until(p, lambda: len(b.rooms["east"].audience.viewers) == 1, "the table rejoined at b")
    assert app.table_id == "east" and app.awaiting is None
    assert await sees(p, app, "#message", SEAT_GONE) == SEAT_GONE  # no round was in play
    if long_after:
        app.link._failed.clear()
    a = await casino.start("a", ["east"])  # back, standing by for east
    await b.stop(grace=0)  # a takes the table back
    c = casino.servers[2]
    # c, the ring's next; its lobby may send the terminal on to a before a poll sees it at c
    await until(
        p, lambda: app.link.url in (ws(c), ws(a)) and app.link.connected, "the ring's next: c"
    )
    await until(p, lambda: a.rooms["east"].active, "the table back at a")
    return a


async def test_a_table_taken_back_by_its_first_host_is_followed_there(casino: Casino) -> None:
    """The table went to the standby and back to its first host. The terminal had
    rejoined it at the standby without noting that it was hosted there now, so the
    row naming the first host again read as that host's own, left behind where the
    table was lost: it waited in c's lobby for good, though Enter there went to a."""
    a = await casino.start("a", ["east"])
    await casino.start("b", ["east"])
    await casino.start("c", ["west"])
    assert a.rooms["east"].active
    app = StudApp(ws(a), "ann", table="east", backoff=FAST)
    app.link.known = [f"ws://127.0.0.1:{casino.ports['b']}/ws"]  # --fallback-url
    async with app.run_test(size=(120, 40)) as p:
        a = await back_and_forth(casino, p, app, long_after=True)
        await until(
            p,
            lambda: app.link.url == ws(a) and isinstance(app.screen, PlayScreen),
            "the table followed back to a",
        )
        assert app.table_id == "east" and app.link.connected


async def test_a_row_passed_over_as_a_failed_hosts_is_read_again_once_that_is_old(
    casino: Casino,
) -> None:
    """A lobby row naming a process that failed moments ago is passed over as that
    process's own, left behind. Here it is true (the process is back and took the
    table back), and once the failure is old no new lobby need come to read the row
    again: the terminal waited in the lobby for good."""
    a = await casino.start("a", ["east"])
    await casino.start("b", ["east"])
    await casino.start("c", ["west"])
    app = StudApp(ws(a), "ann", table="east", backoff=FAST)
    app.link.known = [f"ws://127.0.0.1:{casino.ports['b']}/ws"]
    async with app.run_test(size=(120, 40)) as p:
        a = await back_and_forth(casino, p, app, long_after=False)

        def host_in_lobby() -> str | None:
            rows = (app.lobby or {}).get("tables", [])
            return next((r.get("url") for r in rows if r.get("id") == "east"), None)

        await until(p, lambda: host_in_lobby() == ws(a), "c's lobby naming a")
        await p.pause()
        assert app.awaiting == "east" and app.link.failed_lately(ws(a))  # passed over
        app.link._failed = {u: t - 60 for u, t in app.link._failed.items()}  # a minute on
        await until(
            p,
            lambda: app.link.url == ws(a) and isinstance(app.screen, PlayScreen),
            "the table followed to a",
        )


async def test_seats_left_before_the_move_are_not_said_gone(
    pair: tuple[StudServer, StudServer],
) -> None:
    """The player sat, then left the table (l) before its host froze: opened again at the
    new host, it says nothing of seats gone, which were given up, not lost to the move."""
    first, second = pair
    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await seated(p, app)
        await p.press("l")
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        gate = hold_renewals(first)
        await until(p, lambda: second.rooms["east"].active, "the takeover")
        await first.stop(grace=0)
        await until(p, lambda: app.link.url == ws(second) and app.link.connected, "the other")
        app.open_table("east")  # as Enter on its row does
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table there")
        await until(p, lambda: len(second.rooms["east"].audience.viewers) == 1, "joined there")
        await settle(app)  # what the join had to say, said
        await p.pause()
        assert "gone" not in shown(app, "#message")
        gate.set()


async def test_a_round_settled_out_of_sight_is_the_last_round_shown(
    casino: Casino, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The round's last action came from the player's other device while the terminal
    was cut off, and its host froze right after settling it. Back at the new host, the
    terminal says the round ended while away; its "Last round" line kept showing the
    round before (the only showdown it saw), as if that were the last one played."""
    first = await casino.start("first", ["east"], timers={**LONG, "results": 0.2})
    second = await casino.start("second", ["west", "east"])
    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await seated(p, app)
        await p.press("1", "d")
        await until(p, lambda: phase(app) == "deciding", "the first deal")
        await p.press("f")  # seen: the Last round line says so
        await sees(p, app, "#player", "Last round: seat 1")
        assert "Folded -$1.00" in shown(app, "#player")
        await until(p, lambda: phase(app) == "waiting", "the next round")
        await p.press("3", "d")
        await until(p, lambda: phase(app) == "deciding", "the second deal")
        gate = hold_reconnects(monkeypatch)
        other = await StudClient.open(ws(first), history=False)
        await other.hello(token=app.link.token)  # the same player: the terminal's closes
        await until(p, lambda: not app.link.connected, "the terminal cut off")
        await other.request("raise", table="east", seat=0)
        await until(
            p, lambda: (other.tables.get("east") or {}).get("phase") == "waiting", "settled"
        )
        await other.close()
        frozen = hold_renewals(first)
        await until(p, lambda: second.rooms["east"].active, "the takeover")
        await first.stop(grace=0)
        gate.set()
        await p.press("g")  # replaced by the other device: the player takes it back here
        message = await sees(p, app, "#message", "Your round ended while you were away")
        record = next(r for r in app.history or [] if r.get("table") == "east")
        net = record["balance_after"] - record["balance_before"]
        last = [x for x in shown(app, "#player").splitlines() if "Last round" in x]
        assert last and "Folded" not in last[0] and "-$1.00" not in last[0], last
        assert last[0].startswith("Last round: seat 1 ")
        assert last[0].endswith(money(net, sign=True)), last[0]
        assert message.endswith(SEAT_GONE)  # one line: the round, then the seat
        frozen.set()


async def test_a_standby_hosting_nothing_is_reached_without_being_named_by_hand(
    casino: Casino,
) -> None:
    """Process a hosts every table; b stands by and hosts none, so no lobby row named
    it: once a went, the terminal knew nowhere else to go but --fallback-url. The
    lobby now lists the processes that answer, standbys too."""
    a = await casino.start("a", ["east"])
    b = await casino.start("b", ["east"])
    assert a.rooms["east"].active and not b.hosting.hosted()
    app = StudApp(ws(a), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await seated(p, app)
        assert app.link.known == [] and app.link.fleet == sorted([ws(a), ws(b)])
        await a.stop(grace=0)
        await until(p, lambda: app.link.url == ws(b) and app.link.connected, "the standby")
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table there")
        assert app.table_id == "east"


def crash(server: StudServer) -> None:
    """The process dies as one killed (SIGKILL) does: its lease on each table and its
    lobby rows stay in the store until they lapse; its clients' connections drop."""

    async def nothing(*args: Any, **kwargs: Any) -> None:
        return None

    server.hosting.release = nothing  # type: ignore[method-assign]
    assert server.fleet is not None
    server.fleet.close = nothing  # type: ignore[method-assign]


@pytest.mark.parametrize("watch", [False, True], ids=["player", "spectator"])
async def test_a_table_its_crashed_host_claims_again_in_place_is_followed_back(
    casino: Casino, watch: bool
) -> None:
    """Its host killed and started again at the same address a moment later; the
    terminal had gone on at c, which does not host the table. The restarted process
    claimed the table, but the terminal waited in c's lobby for good: the row naming the
    address the table was lost at read as the dead process's own, left behind. It goes
    back there once the new process holds the table."""
    a = await casino.start("a", ["east"])
    c = await casino.start("c", ["west"])
    app = StudApp(ws(a), "uma", table="east", watch=watch, backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        if watch:
            await until(p, lambda: app.table_id == "east", "the table watched")
            await until(p, lambda: len(app.link.fleet) == 2, "both processes in the lobby")
        else:
            await seated(p, app)
        crash(a)
        await a.stop(grace=0)
        await until(p, lambda: app.link.url == ws(c) and app.link.connected, "c")
        await until(p, lambda: app.awaiting == "east", "the table waited for")
        assert "opens again by itself" in shown(app, "#message")
        a = await casino.start("a", ["east"])  # in place: the same address
        await until(p, lambda: a.rooms["east"].active, "the table claimed again")
        await until(
            p,
            lambda: app.link.url == ws(a) and app.table_id == "east" and app.link.connected,
            "the table followed back to its address",
        )
        await until(p, lambda: len(a.rooms["east"].audience.viewers) == 1, "joined there")


async def test_a_table_restarted_on_a_restored_backup_says_why_the_seat_went(
    casino: Casino,
) -> None:
    """Redis went down and came back on a backup taken before the player's round: the
    table starts over with every seat free. The terminal said the round "was voided,
    every bet refunded", which a bet the backup never took was not; it now says what
    happened, and that the seat is free again."""
    server = await casino.start("only", ["east"])
    app = StudApp(ws(server), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await seated(p, app, processes=0)
        await settle(app)
        assert casino.redis.command("SAVE") == "+OK"  # the backup
        shutil.copy(casino.redis.dir / "dump.rdb", casino.redis.dir / "backup.rdb")
        await p.press("3", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        casino.redis.stop()  # and back on the backup
        shutil.copy(casino.redis.dir / "backup.rdb", casino.redis.dir / "dump.rdb")
        casino.redis.start()
        message = await sees(p, app, "#message", "starts over")
        assert message == (
            "The casino restored its data from a backup: what was played since is undone, and "
            "table east starts over. Your round there was given up: what the backup holds of "
            "it is refunded. Your wallet shows what you have. Your seat #1 is free again: "
            "press s to sit."
        )
        await until(p, lambda: phase(app) == "waiting" and not app.own_seats(), "the start")
        assert VOIDED not in shown(app, "#message")
        await until(p, lambda: app.balance.get("balance") == START, "the backup's wallet")
