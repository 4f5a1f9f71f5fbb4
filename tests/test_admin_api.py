"""The operator console's API against a live server (memory store): who may use it,
and each act's effect on the tables, the wallets and the books.

After every act the books sum to zero, the act has its audit row, and the same
request again (same action id) answers the same row and changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from clients.connection import ServerError
from server.admin import httpd
from server.admin.console import peer_check
from server.app import StudServer
from server.stores.admin_memory import MemoryAdmin
from server.stores.base import OutcomeUnknown
from tests.conftest import ClientFactory, make_config
from tests.console import PASSWORD, Operator, http, new_id, with_console
from tests.decks import shuffles

START = 100_000  # conftest's starting credits
SEED = 100_000  # conftest's jackpot seed
DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]
PAIR = ["Kh", "Ks", "7d", "5c", "2h"]
HIGH = ["9c", "8d", "4h", "3s", "Jh"]

ConsoleFactory = Callable[..., Awaitable[StudServer]]


@pytest.fixture
async def make_console() -> AsyncIterator[ConsoleFactory]:
    servers: list[StudServer] = []

    async def factory(
        shuffle: Any = None, admin: dict[str, Any] | None = None, **overrides: Any
    ) -> StudServer:
        config = with_console(make_config(**overrides), **(admin or {}))
        server = StudServer(config, shuffle=shuffle)
        await server.start()
        servers.append(server)
        return server

    yield factory
    for server in servers:
        await server.stop(grace=0)


async def books(server: StudServer) -> dict[str, int]:
    totals = await server.store.totals()
    assert sum(totals.values()) == 0, totals
    return totals


async def audit(op: Operator) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = (await op.get("/api/audit?limit=500"))["rows"]
    return rows


async def replayed(op: Operator, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The same request twice: the second answers the first's row and adds none."""
    first = await op.post(path, body)
    count = len(await audit(op))
    second = await op.post(path, body)
    assert second["replayed"] is True and second["row"] == first["row"]
    assert len(await audit(op)) == count
    row: dict[str, Any] = first["row"]
    return row


# ----- who may use it ---------------------------------------------------------------------


async def test_no_token_a_player_token_a_bad_or_expired_one_reach_nothing(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console()
    port = server.admin.port
    assert port is not None and port != server.port
    player = await connect(server, "pat")
    op = await Operator.sign_in(server)
    for path in ("/api/tables", "/api/audit", "/api/books", "/api/session"):
        assert (await http(port, "GET", path)).status == 401
        refused = await http(port, "GET", path, token=player.token)
        assert refused.status == 401 and refused.json["error"] == "unauthorized"
        assert "bearer" in refused.headers["www-authenticate"].lower()
    body = {"action_id": new_id(), "reason": "x"}
    assert (await http(port, "POST", "/api/tables/alpha/pause", body, player.token)).status == 401
    basic = await http(port, "GET", "/api/tables", headers={"Authorization": f"Basic {op.token}"})
    assert basic.status == 401
    assert (await http(port, "GET", "/api/tables", token=op.token)).status == 200
    # expired: the store's clock moves past the token's lifetime
    admin = server.admin.admin
    assert isinstance(admin, MemoryAdmin)
    admin.clock = lambda: time.time() + server.config.admin.token_ttl + 1
    assert (await http(port, "GET", "/api/tables", token=op.token)).status == 401
    admin.clock = time.time
    # signed out: revoked
    again = await Operator.sign_in(server)
    assert (await http(port, "DELETE", "/api/session", token=again.token)).status == 200
    assert (await http(port, "GET", "/api/tables", token=again.token)).status == 401
    # the table port serves none of it
    assert (await http(server.port, "GET", "/api/tables", token=op.token)).status == 404


async def test_wrong_passwords_are_refused_then_throttled(make_console: ConsoleFactory) -> None:
    server = await make_console(accounts={"max_failures_per_account": 2})
    await Operator.sign_in(server)
    port = server.admin.port
    assert port is not None
    for _ in range(2):
        wrong = await http(port, "POST", "/api/session", {"name": "olga", "password": "nope"})
        assert wrong.status == 401 and wrong.json["error"] == "bad_credentials"
    nobody = await http(port, "POST", "/api/session", {"name": "nobody", "password": PASSWORD})
    assert nobody.status == 401 and nobody.json["error"] == "bad_credentials"
    locked = await http(port, "POST", "/api/session", {"name": "olga", "password": PASSWORD})
    assert locked.status == 429 and locked.json["error"] == "too_many_attempts"
    assert int(locked.headers["retry-after"]) >= 1


async def test_a_burst_of_operator_guesses_is_held_to_the_limit(
    make_console: ConsoleFactory,
) -> None:
    """The console's sign-in read the failures before the password check and counted
    one after it: twelve wrong passwords sent at once were all checked against a limit
    of three. Each is counted before it is made now, as the players' sign-in is."""
    server = await make_console(accounts={"max_failures_per_account": 3})
    await Operator.sign_in(server)
    port = server.admin.port
    assert port is not None
    replies = await asyncio.gather(
        *(
            http(port, "POST", "/api/session", {"name": "olga", "password": f"wrong guess {i}"})
            for i in range(12)
        )
    )
    said = sorted(r.json["error"] for r in replies)
    assert said == ["bad_credentials"] * 3 + ["too_many_attempts"] * 9, said


async def test_a_throttled_sign_in_logs_only_the_keys_over_their_limit(
    make_console: ConsoleFactory, caplog: pytest.LogCaptureFixture
) -> None:
    server = await make_console(
        accounts={"max_failures_per_account": 2, "max_failures_per_address": 4}
    )
    await Operator.sign_in(server)
    port = server.admin.port
    assert port is not None
    caplog.set_level(logging.INFO, logger="stud.admin")

    def throttled() -> list[list[str]]:
        return [
            list(getattr(r, "keys", []))
            for r in caplog.records
            if r.getMessage() == "operator sign-ins throttled"
        ]

    for _ in range(3):  # two wrong, then refused: the name is over, the address is not
        await http(port, "POST", "/api/session", {"name": "mallory", "password": "nope"})
    assert throttled() == [["op:mallory"]]
    olga = await http(port, "POST", "/api/session", {"name": "olga", "password": PASSWORD})
    assert olga.status == 200  # from the same address
    for name in ("carl", "dave", "erin"):  # four failures from the address, then over
        await http(port, "POST", "/api/session", {"name": name, "password": "nope"})
    assert throttled()[-1] == ["opaddr:127.0.0.1"]


def local_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    for probe in ("192.0.2.254", "10.254.254.254", "172.31.255.254", "198.51.100.1"):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                s.connect((probe, 9))
            except OSError:
                continue
            address = str(s.getsockname()[0])
            if not address.startswith("127.") and address != "0.0.0.0":
                return address
    return None


async def test_a_peer_that_is_not_loopback_is_refused(make_console: ConsoleFactory) -> None:
    address = local_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    server = await make_console(admin={"host": "0.0.0.0"})
    op = await Operator.sign_in(server)
    far = await http(op.port, "GET", "/api/tables", token=op.token, host=address, local=address)
    assert far.status == 403 and far.json["error"] == "forbidden"
    page = await http(op.port, "GET", "/", host=address, local=address)
    assert page.status == 403
    near = await http(op.port, "GET", "/api/tables", token=op.token)
    assert near.status == 200


def test_the_peer_check() -> None:
    allowed = peer_check([])
    assert allowed("127.0.0.1") and allowed("::1") and allowed("::ffff:127.0.0.1")
    assert not allowed("192.0.2.7") and not allowed("") and not allowed("::ffff:10.0.0.1")
    wider = peer_check(["10.0.0.0/8"])
    assert wider("10.1.2.3") and wider("::ffff:10.1.2.3") and not wider("11.0.0.1")


async def test_requests_are_rate_limited(make_console: ConsoleFactory) -> None:
    server = await make_console(admin={"rate_per_second": 0.5, "rate_burst": 3})
    op = await Operator.sign_in(server)  # one request of the address's three
    statuses = [(await http(op.port, "GET", "/api/books", token=op.token)).status for _ in range(3)]
    assert statuses[:2] == [200, 200] and statuses[2] == 429
    limited = await http(op.port, "GET", "/api/books", token=op.token)
    assert limited.status == 429 and int(limited.headers["retry-after"]) >= 1


async def test_bad_requests_apply_nothing(make_console: ConsoleFactory) -> None:
    server = await make_console()
    op = await Operator.sign_in(server)
    port, token = op.port, op.token
    cases = [
        ("/api/tables/alpha/pause", {"reason": "no id"}, 400, "action_id"),
        ("/api/tables/alpha/pause", {"action_id": "short", "reason": "x"}, 400, "action_id"),
        ("/api/tables/alpha/pause", {"action_id": new_id(), "reason": ""}, 400, "reason"),
        ("/api/tables/alpha/pause", {"action_id": new_id(), "reason": "x" * 201}, 400, "reason"),
        ("/api/tables/alpha/void", {"action_id": new_id(), "reason": "x"}, 400, "round_id"),
        ("/api/tables/nowhere/pause", {"action_id": new_id(), "reason": "x"}, 404, None),
        ("/api/tables/alpha/explode", {"action_id": new_id(), "reason": "x"}, 404, None),
        ("/api/players/p/credit", {"action_id": new_id(), "reason": "x", "amount": 1.5}, 400,
         "amount"),
        ("/api/players/p/credit", {"action_id": new_id(), "reason": "x", "amount": 0}, 400,
         "amount"),
        # a field the act does not take: a misspelt one must not be dropped silently
        ("/api/tables/alpha/pause", {"action_id": new_id(), "reason": "x", "round_id": "r"},
         400, "round_id"),
        ("/api/players/p/credit", {"action_id": new_id(), "reason": "x", "amount": 100,
         "currency": "EUR"}, 400, "currency"),
        # a misspelt amount is named as written, not as the missing field
        ("/api/players/p/credit", {"action_id": new_id(), "reason": "x", "amout": 500}, 400,
         "amout"),
        ("/api/jackpots/main/correct", {"action_id": new_id(), "reason": "x", "amout": 5}, 400,
         "amout"),
        ("/api/session", {"name": "ops", "password": "x", "remember": True}, 400, "remember"),
        # the audit log is read by people and exported: no control characters in it
        ("/api/tables/alpha/pause", {"action_id": new_id(), "reason": "t\u0000\u0007"}, 400,
         "reason"),
        ("/api/tables/alpha/pause", {"action_id": new_id(), "reason": "a\nforged row"}, 400,
         "reason"),
    ]  # fmt: skip
    for path, body, status, field in cases:
        reply = await http(port, "POST", path, body, token)
        assert reply.status == status, (path, body, reply)
        assert reply.json.get("field") == field, (path, reply.json)
    empty = {"action_id": new_id(), "reason": ""}
    reply = await http(port, "POST", "/api/tables/alpha/pause", empty, token)
    assert reply.json["message"] == "reason: a string of 1-200 characters"
    not_json = await http(port, "POST", "/api/tables/alpha/pause", token=token, raw=None)
    assert not_json.status == 400  # an empty body has no action_id
    raw = (
        f"POST /api/tables/alpha/pause HTTP/1.1\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 5\r\n\r\n{nope"
    ).encode()
    assert (await http(port, "POST", "", raw=raw)).status == 400
    text = json.dumps({"action_id": new_id(), "reason": "as text"})
    as_text = (
        f"POST /api/tables/alpha/pause HTTP/1.1\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: text/plain\r\nContent-Length: {len(text)}\r\n\r\n{text}"
    )
    plain = await http(port, "POST", "", raw=as_text.encode())
    assert plain.status == 415 and plain.json["error"] == "bad_request"
    for query, field in [
        ("limit=501", "limit"),
        ("limit=0", "limit"),
        ("offset=-1", "offset"),
        ("limit=ten", "limit"),
        ("limt=10", "limt"),  # misspelt: refused, not read as no limit
        ("offset=0&target=table:alpha&foo=1", "foo"),
    ]:
        page = await http(port, "GET", f"/api/audit?{query}", token=token)
        assert (page.status, page.json["field"]) == (400, field), (query, page.json)
    for path, field in [("/api/books?x=1", "x"), ("/api/players/p?q=a", "q")]:
        page = await http(port, "GET", path, token=token)
        assert (page.status, page.json["field"]) == (400, field), (path, page.json)
    found = await http(port, "GET", "/api/players?q=nobody", token=token)
    assert found.status == 200 and found.json == {"players": []}
    big = f"POST /api/books HTTP/1.1\r\nContent-Length: {10**6}\r\n\r\n".encode()
    assert (await http(port, "POST", "", raw=big)).status == 413
    chunked = b"POST /api/books HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    assert (await http(port, "POST", "", raw=chunked)).status == 501
    assert (await http(port, "PUT", "/api/books", {}, token)).status == 405
    put = await http(port, "PUT", "/api/session", {}, token)
    assert put.status == 405 and put.headers["allow"] == "GET, HEAD, POST, DELETE"
    # each route's own methods: an act is POSTed, a view is read
    for method, path, allow in [
        ("GET", "/api/tables/alpha/pause", "POST"),
        ("POST", "/api/overview", "GET, HEAD"),
        ("OPTIONS", "/api/overview", "GET, HEAD"),
    ]:
        wrong = await http(port, method, path, {} if method == "POST" else None, token)
        assert (wrong.status, wrong.headers["allow"]) == (405, allow), (method, path)
    assert (await http(port, "POST", "/", {}, token)).status == 405
    assert (await http(port, "GET", "/web/../../pyproject.toml")).status == 404
    nothing = await http(port, "GET", "/api/nothing", token=token)
    assert nothing.status == 404  # every error body has the documented three keys
    assert nothing.json == {"error": "not_found", "message": "no such route", "field": None}
    anonymous = await http(port, "GET", "/api/books")
    assert anonymous.status == 401 and set(anonymous.json) == {"error", "message", "field"}
    assert await audit(op) == []
    assert server.rooms["alpha"].paused is None
    long = {"action_id": new_id(), "reason": "y" * 150}  # long, and within the 200
    assert (await http(port, "POST", "/api/tables/alpha/pause", long, token)).status == 200
    assert server.rooms["alpha"].paused is not None


async def test_a_body_shorter_than_its_length_is_answered_408(
    make_console: ConsoleFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request never arrives in full: the console says so when its read time is up,
    rather than close the connection without a word."""
    monkeypatch.setattr(httpd, "READ_TIMEOUT", 0.5)
    server = await make_console()
    op = await Operator.sign_in(server)
    short = (
        f"POST /api/tables/alpha/pause HTTP/1.1\r\nAuthorization: Bearer {op.token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{}"
    ).encode()
    reply = await http(op.port, "POST", "", raw=short)
    assert reply.status == 408 and reply.json["error"] == "request_timeout"
    assert server.rooms["alpha"].paused is None


async def test_a_refused_field_is_told_by_its_true_rule(make_console: ConsoleFactory) -> None:
    """Each message says what the server takes (ADMIN_API.md's words), and a body sent
    without its `Content-Length` is refused as such, not read as an empty object."""
    server = await make_console()
    op = await Operator.sign_in(server)
    port, path = op.port, "/api/tables/alpha/pause"
    rule = "action_id: 8-64 of A-Z a-z 0-9 _ -"
    for action_id in (12345678, None, "", "short", "x" * 65, "no spaces here"):
        reply = await http(port, "POST", path, {"action_id": action_id, "reason": "r"}, op.token)
        assert (reply.status, reply.json["field"]) == (400, "action_id"), (action_id, reply.json)
        assert reply.json["message"] == rule, (action_id, reply.json)
    no_password = await http(port, "POST", "/api/session", {"name": "olga"})
    assert (no_password.status, no_password.json["field"]) == (400, "password")
    assert no_password.json["message"] == "password: missing", no_password.json
    numeric = await http(port, "POST", "/api/session", {"name": "olga", "password": 1234})
    assert numeric.json["message"] == "password: a string of at most 128 characters"
    body = json.dumps({"action_id": new_id(), "reason": "no length"})
    for target, auth in ((path, f"Authorization: Bearer {op.token}\r\n"), ("/api/session", "")):
        unsized = (
            f"POST {target} HTTP/1.1\r\n{auth}Content-Type: application/json\r\n\r\n{body}"
        ).encode()
        reply = await http(port, "POST", "", raw=unsized)
        assert reply.status == 400 and reply.json == {
            "error": "bad_request",
            "message": "a request body needs a Content-Length",
            "field": None,
        }, (target, reply.json)
    assert server.rooms["alpha"].paused is None and await audit(op) == []


# ----- the acts -------------------------------------------------------------------------


async def test_a_paused_table_finishes_its_round_and_takes_no_ante_until_resumed(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console(shuffle=shuffles([PAIR, DEALER_AK]))
    op = await Operator.sign_in(server)
    ann = await connect(server, "ann")
    bob = await connect(server, "bob")
    await ann.request("sit", table="alpha")
    await bob.request("sit", table="alpha")
    await ann.request("ante", table="alpha", seat=0, amount=100)
    body = {"action_id": new_id(), "reason": "dealer change"}
    row = await replayed(op, "/api/tables/alpha/pause", body)
    assert row["outcome"] == "applied" and row["operator"] == "olga"
    assert row["target"] == "table:alpha" and row["reason"] == "dealer change"
    snap = await bob.wait_table("alpha", lambda s: s["paused"] is not None)
    assert snap["paused"]["reason"] == "dealer change" and "by" not in snap["paused"]
    with pytest.raises(ServerError) as refused:
        await bob.request("ante", table="alpha", seat=1, amount=100)
    assert refused.value.code == "table_paused"
    assert refused.value.frame["reason"] == "dealer change"
    # the round in play goes on to its end
    await ann.request("deal", table="alpha")
    await bob.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
    await ann.request("raise", table="alpha", seat=0)
    await ann.wait_table("alpha", lambda s: s["phase"] == "waiting" and s["paused"])
    with pytest.raises(ServerError) as again:
        await ann.request("ante", table="alpha", seat=0, amount=100)
    assert again.value.code == "table_paused"
    assert server.rooms["alpha"].describe()["paused"] is True
    pausing = await op.act("/api/tables/alpha/pause", "twice")
    assert pausing["outcome"] == "unchanged"
    table = await op.get("/api/tables/alpha")
    assert table["paused"]["by"] == "olga" and table["view"]["paused"] is not None
    resumed = await op.act("/api/tables/alpha/resume", "back")
    assert resumed["outcome"] == "applied"
    await bob.wait_table("alpha", lambda s: s["paused"] is None)
    await bob.request("ante", table="alpha", seat=1, amount=100)
    assert [r["action"] for r in await audit(op)] == ["resume", "pause", "pause"]
    await books(server)


async def test_a_voided_round_refunds_every_bet_once(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console(shuffle=shuffles([PAIR, HIGH, DEALER_AK]))
    op = await Operator.sign_in(server)
    ann = await connect(server, "ann")
    bob = await connect(server, "bob")
    await ann.request("sit", table="alpha")
    await bob.request("sit", table="alpha")
    await ann.request("ante", table="alpha", seat=0, amount=500, progressive=True)
    reply = await bob.request("ante", table="alpha", seat=1, amount=300)
    round_id = reply["round_id"]
    await ann.request("deal", table="alpha")
    await bob.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
    await ann.request("raise", table="alpha", seat=0)  # the raise is refunded too
    assert (await server.store.wallet(ann.player_id)).balance == START - 500 - 100 - 1_000
    body = {"action_id": new_id(), "reason": "a misdeal", "round_id": round_id}
    row = await replayed(op, "/api/tables/alpha/void", body)
    assert row["outcome"] == "applied" and row["details"]["result"]["round_id"] == round_id
    snap = await bob.wait_table("alpha", lambda s: s["round_id"] is None)
    assert snap["phase"] == "waiting"
    for player in (ann, bob):
        wallet = await server.store.wallet(player.player_id)
        assert (wallet.balance, wallet.held) == (START, 0)
        await player.wait_for(lambda c: c.balance.get("balance") == START)
    totals = await books(server)
    assert totals["meter:main"] == SEED
    journal = await op.get(f"/api/rounds/{round_id}")
    assert journal["journal"]["state"] == "voided"
    late = await op.act("/api/tables/alpha/void", "again", round_id=round_id)
    assert late["outcome"] == "unchanged" and late["details"]["result"]["code"] == "voided_already"
    unknown = await op.act("/api/tables/alpha/void", "who", round_id="alpha-nothing")
    assert unknown["outcome"] == "refused"
    assert unknown["details"]["result"]["code"] == "unknown_round"
    assert (await server.store.wallet(ann.player_id)).balance == START


async def test_a_removed_player_plays_the_hand_out_and_loses_the_seat_after(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console(shuffle=shuffles([PAIR, HIGH, DEALER_AK]))
    op = await Operator.sign_in(server)
    ann = await connect(server, "ann")
    bob = await connect(server, "bob")
    await ann.request("sit", table="alpha")
    await bob.request("sit", table="alpha")
    await ann.request("ante", table="alpha", seat=0, amount=100)
    await bob.request("ante", table="alpha", seat=1, amount=100)
    await ann.request("deal", table="alpha")
    await bob.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
    body = {"action_id": new_id(), "reason": "abuse in chat", "player_id": bob.player_id}
    row = await replayed(op, "/api/tables/alpha/remove", body)
    assert row["outcome"] == "applied" and row["details"]["result"]["at_round_end"] is True
    # asked again before the round is over (a new act): nothing more to do, and said so
    again = await op.act("/api/tables/alpha/remove", "twice", player_id=bob.player_id)
    assert again["outcome"] == "unchanged", again
    result = again["details"]["result"]
    assert (result["code"], result["at_round_end"]) == ("leaving", True), result
    await bob.request("fold", table="alpha", seat=1)  # the hand is still bob's to play
    await ann.request("raise", table="alpha", seat=0)
    snap = await ann.wait_table("alpha", lambda s: s["phase"] == "waiting")
    assert snap["seats"][1] is None and snap["seats"][0] is not None
    gone = await op.act("/api/tables/alpha/remove", "again", player_id=bob.player_id)
    assert gone["outcome"] == "unchanged"
    typo = await op.act("/api/tables/alpha/remove", "a typo", player_id=bob.player_id + "x")
    assert (typo["outcome"], typo["details"]["result"]["code"]) == ("refused", "unknown_player")
    # the player's page lists the acts that named them (it showed none of a table's)
    listed = (await op.get(f"/api/players/{bob.player_id}"))["audit"]
    assert [r["id"] for r in listed] == [gone["id"], again["id"], row["id"]]
    assert {r["target"] for r in listed} == {"table:alpha"}
    await books(server)


async def test_two_removals_at_once_apply_once(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    """Two operators remove the same player at the same moment: one removal is applied,
    the other is told the player sits no more (both were recorded as applied: each
    looked at the seats before either had its turn at the table)."""
    server = await make_console()
    op = await Operator.sign_in(server)
    bob = await connect(server, "bob")
    await bob.request("sit", table="alpha")
    await bob.request("ante", table="alpha", seat=0, amount=100)
    room = server.rooms["alpha"]
    async with room.turns.turn(exclusive=True):  # the table busy with a command meanwhile
        acts = [
            asyncio.create_task(
                op.act("/api/tables/alpha/remove", f"r{i}", player_id=bob.player_id)
            )
            for i in range(2)
        ]
        while len(server.admin.agent.running) < 2:
            await asyncio.sleep(0.01)
    rows = await asyncio.gather(*acts)
    outcomes = sorted((r["outcome"], r["details"]["result"].get("code")) for r in rows)
    assert outcomes == [("applied", None), ("unchanged", "not_seated")], rows
    await bob.wait_for(lambda c: c.balance.get("balance") == START)
    await books(server)


async def test_a_suspended_player_cannot_sit_bet_or_buy_and_loses_the_seats(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console()
    op = await Operator.sign_in(server)
    sam = await connect(server, "sam")
    await sam.request("sit", table="alpha")
    body = {"action_id": new_id(), "reason": "chip dumping"}
    row = await replayed(op, f"/api/players/{sam.player_id}/suspend", body)
    assert row["outcome"] == "applied" and row["target"] == f"player:{sam.player_id}"
    await sam.wait_table("alpha", lambda s: s["seats"][0] is None)
    for t, fields in (
        ("ante", {"table": "alpha", "seat": 0, "amount": 100}),
        ("sit", {"table": "beta"}),
        ("buy_chips", {"amount": 100}),
    ):
        with pytest.raises(ServerError) as refused:
            await sam.request(t, **fields)
        assert refused.value.code == "account_suspended", t
        assert refused.value.frame["reason"] == "chip dumping"
    await sam.request("history")  # watching and reading are still allowed
    player = await op.get(f"/api/players/{sam.player_id}")
    assert player["suspended"]["by"] == "olga"
    lifted = await op.act(f"/api/players/{sam.player_id}/unsuspend", "cleared")
    assert lifted["outcome"] == "applied"
    for _ in range(100):  # the process follows it at its next step
        if server.admin.barred(sam.player_id) is None:
            break
        await asyncio.sleep(0.05)
    await sam.request("sit", table="alpha")
    await books(server)


async def test_credits_and_debits_move_money_with_the_house_once(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console()
    op = await Operator.sign_in(server)
    pat = await connect(server, "pat")
    house = (await books(server)).get("house", 0)
    body = {"action_id": new_id(), "reason": "a lost payout", "amount": 2_500}
    row = await replayed(op, f"/api/players/{pat.player_id}/credit", body)
    assert row["outcome"] == "applied" and row["details"]["result"]["balance"] == START + 2_500
    await pat.wait_for(lambda c: c.balance.get("balance") == START + 2_500)
    debit = await op.act(f"/api/players/{pat.player_id}/debit", "paid twice", amount=500)
    assert debit["outcome"] == "applied"
    totals = await books(server)
    assert totals[f"player:{pat.player_id}"] == START + 2_000
    assert totals["house"] == house - 2_000
    # the credit asked again applies nothing, and any balance it pushes is the one now,
    # not the first answer's (which is old by now)
    await pat.wait_for(lambda c: c.balance.get("balance") == START + 2_000)
    seen = len(pat.frames)
    assert (await op.post(f"/api/players/{pat.player_id}/credit", body))["replayed"] is True
    await pat.request("ping")  # after any push the repeat made
    pushed = [f["balance"] for f in pat.frames[seen:] if f["t"] == "balance"]
    assert set(pushed) <= {START + 2_000}, pushed
    too_much = await op.act(f"/api/players/{pat.player_id}/debit", "all", amount=START * 10)
    assert too_much["outcome"] == "refused"
    assert too_much["details"]["result"]["code"] == "insufficient_funds"
    # a credit is bounded as a top-up is, by the wallet's max_balance
    fortune = await op.act(f"/api/players/{pat.player_id}/credit", "typo", amount=10**13)
    assert fortune["outcome"] == "refused"
    limit = server.config.wallet.max_balance
    assert fortune["details"]["result"] == {
        "code": "over_limit",
        "balance": START + 2_000,
        "limit": limit,
    }
    other = {**body, "amount": 9_999}  # the same id for another request
    conflict = await http(op.port, "POST", f"/api/players/{pat.player_id}/credit", other, op.token)
    assert conflict.status == 409 and conflict.json["error"] == "conflict"
    assert (await server.store.wallet(pat.player_id)).balance == START + 2_000
    moves = server.admin.admin.adjustments  # type: ignore[attr-defined]
    assert [(t.reason, t.amount) for _, t in moves] == [("adjustment", 2_500), ("adjustment", 500)]


async def test_a_credit_whose_first_answer_was_lost_is_pushed_to_the_player(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    """The credit landed but its answer did not: the retry under the act's id answers as
    a repeat, and the player is still shown the credit (it was pushed only when new)."""
    server = await make_console()
    op = await Operator.sign_in(server)
    pat = await connect(server, "pat")
    admin = server.admin.admin
    adjust = admin.adjust
    tries: list[str] = []

    async def lost_answer(*args: Any, **kwargs: Any) -> Any:
        acted = await adjust(*args, **kwargs)
        tries.append("replayed" if acted.replayed else "applied")
        if len(tries) == 1:
            raise OutcomeUnknown("the answer was lost")
        return acted

    admin.adjust = lost_answer  # type: ignore[method-assign]
    row = await op.act(f"/api/players/{pat.player_id}/credit", "a lost payout", amount=2_500)
    assert row["outcome"] == "applied" and tries == ["applied", "replayed"]
    await pat.wait_for(lambda c: c.balance.get("balance") == START + 2_500)
    await books(server)


async def test_meters_are_reseeded_and_corrected(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console()
    op = await Operator.sign_in(server)
    pat = await connect(server, "pat")
    await pat.request("sit", table="alpha")
    await pat.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    assert await server.store.meter("main") == SEED + 50
    body = {"action_id": new_id(), "reason": "new promotion"}
    row = await replayed(op, "/api/jackpots/main/reseed", body)
    result = {"name": "main", "before": SEED + 50, "after": SEED, "seed": SEED}
    assert row["details"]["result"] == result
    await pat.wait_for(lambda c: c.jackpots.get("main") == SEED)
    fix = await op.act("/api/jackpots/main/correct", "restore", amount=SEED + 50)
    assert fix["outcome"] == "applied" and await server.store.meter("main") == SEED + 50
    jackpots = (await op.get("/api/jackpots"))["jackpots"]
    assert jackpots[0]["name"] == "main" and jackpots[0]["amount"] == SEED + 50
    # the reseed asked again applies nothing and shows nothing: its figure is old now
    assert (await op.post("/api/jackpots/main/reseed", body))["replayed"] is True
    assert server.meters["main"] == SEED + 50
    await books(server)


async def test_the_audit_log_pages_and_exports_json_lines(make_console: ConsoleFactory) -> None:
    server = await make_console()
    op = await Operator.sign_in(server)
    ids = []
    for reason in ("one", "two", "three"):
        ids.append((await op.act("/api/tables/beta/pause", reason))["id"])
        await op.act("/api/tables/beta/resume", f"{reason} done")
    page = await op.get("/api/audit?limit=2&offset=1")
    assert page["total"] == 6 and [r["reason"] for r in page["rows"]] == ["three", "two done"]
    by_table = await op.get("/api/audit?target=table:beta&limit=1")
    assert by_table["total"] == 6 and by_table["rows"][0]["reason"] == "three done"
    export = await http(op.port, "GET", "/api/audit.jsonl", token=op.token)
    assert export.status == 200 and export.headers["content-type"] == "application/x-ndjson"
    rows = [json.loads(line) for line in export.body.decode().splitlines()]
    assert [r["id"] for r in rows[::2]] == ids
    fields = {"id", "operator", "ts", "action", "target", "reason", "outcome", "details"}
    assert all(set(r) == fields for r in rows)
    action = await op.get(f"/api/actions/{ids[0]}")
    assert action["state"] == "done" and action["row"]["reason"] == "one"


# ----- what it shows -------------------------------------------------------------------------


async def test_tables_players_rounds_and_books_are_shown(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console(shuffle=shuffles([PAIR, DEALER_AK]))
    op = await Operator.sign_in(server)
    ann = await connect(server, "Ann Example")
    await ann.request("sit", table="alpha")
    reply = await ann.request("ante", table="alpha", seat=0, amount=200)
    await ann.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
    await ann.request("raise", table="alpha", seat=0)  # a pair of kings beats ace-king: 1:1
    await ann.wait_table("alpha", lambda s: s["phase"] == "waiting")
    tables = {t["id"]: t for t in (await op.get("/api/tables"))["tables"]}
    assert set(tables) == {"alpha", "beta"}
    alpha = tables["alpha"]
    assert alpha["here"] and alpha["process_id"] == server.process_id
    assert alpha["players"] == [
        {"seat": 0, "player_id": ann.player_id, "name": "Ann Example", "connected": True, "ante": 0}
    ]
    hour = alpha["last_hour"]
    assert (hour["rounds"], hour["antes"], hour["wagered"], hour["returned"]) == (1, 200, 600, 1200)
    assert hour["hold"] == -1.0 and hour["hold_per_ante"] == -3.0
    found = (await op.get("/api/players?q=example"))["players"]
    assert [p["player_id"] for p in found] == [ann.player_id]
    player = await op.get(f"/api/players/{ann.player_id}")
    assert player["wallet"]["balance"] == START + 600 and player["seats"] == [
        {"table": "alpha", "seat": 0, "ante": 0}
    ]
    assert player["history"][0]["round_id"] == reply["round_id"] and player["connected_here"]
    record = await op.get(f"/api/rounds/{reply['round_id']}")
    assert record["journal"]["state"] == "settled" and record["record"]["seats"][0]["cards"] == PAIR
    assert record["fairness_check"] is None  # a stacked deck has no proof
    book = await op.get("/api/books")
    assert book["sum"] == 0 and book["players"]["total"] == START + 600
    overview = await op.get("/api/overview")
    assert overview["books_sum"] == 0 and overview["tables"] == 2
    pending = await op.get("/api/pending")
    assert pending["writes"] == 0 and pending["processes"][0]["process_id"] == server.process_id
    missing = await http(op.port, "GET", "/api/players/nobody", token=op.token)
    assert missing.status == 404


async def test_a_fair_round_is_shown_with_its_proof_checked(
    make_console: ConsoleFactory, connect: ClientFactory
) -> None:
    server = await make_console()  # no stacked deck: the provably fair shuffler deals
    op = await Operator.sign_in(server)
    ann = await connect(server, "ann")
    await ann.request("sit", table="beta")
    reply = await ann.request("ante", table="beta", seat=0, amount=100)
    await ann.request("deal", table="beta")
    await ann.wait_table("beta", lambda s: s["phase"] == "deciding")
    await ann.request("fold", table="beta", seat=0)
    await ann.wait_table("beta", lambda s: s["phase"] == "waiting")
    record = await op.get(f"/api/rounds/{reply['round_id']}")
    assert record["record"]["fairness"]["server_seed"]
    assert record["fairness_check"] == {"ok": True, "problems": []}


async def test_the_house_edge_is_the_exact_one(make_console: ConsoleFactory) -> None:
    from server.analysis.odds import analyze
    from server.game.variants import VARIANTS

    server = await make_console(admin={"house_edge": "thread"})
    op = await Operator.sign_in(server)
    edge: dict[str, Any] = {}
    for _ in range(600):  # computed once, in a thread: a few seconds the first time
        tables = {t["id"]: t for t in (await op.get("/api/tables"))["tables"]}
        edge = tables["beta"]["house_edge"]
        if edge["status"] == "ready":
            break
        assert edge["status"] == "computing"
        await asyncio.sleep(0.1)
    report = analyze(VARIANTS["stud-poker"])
    assert edge["house_edge_ante_exact"] == str(report.house_edge_ante)
    assert edge["element_of_risk_exact"] == str(report.element_of_risk)


async def test_the_page_and_the_player_modules_are_served(make_console: ConsoleFactory) -> None:
    server = await make_console()
    op = await Operator.sign_in(server)
    page = await http(op.port, "GET", "/")
    assert page.status == 200 and b"console" in page.body.lower()
    assert "default-src 'self'" in page.headers["content-security-policy"]
    module = await http(op.port, "GET", "/web/js/table.js")
    assert module.status == 200 and module.headers["content-type"].startswith("text/javascript")
    head = await http(op.port, "HEAD", "/admin/js/console.js")
    assert head.status == 200 and head.body == b""


async def test_a_refused_act_is_logged_with_its_operator(
    make_console: ConsoleFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """The console's request log names who asked, refusals too (a reused action_id is
    exactly the request whose author one looks for)."""
    server = await make_console()
    op = await Operator.sign_in(server)
    caplog.set_level(logging.INFO, logger="stud.admin")
    bad = {"action_id": new_id(), "reason": "x", "amount": 0}
    assert (await http(op.port, "POST", "/api/players/p/credit", bad, op.token)).status == 400
    lines = [r for r in caplog.records if r.getMessage() == "console request"]
    assert [(r.operator, r.status) for r in lines] == [("olga", 400)]  # type: ignore[attr-defined]


async def test_a_throttled_request_is_logged_with_its_operator(
    make_console: ConsoleFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """The address's bucket is checked before the token (it spares the store), so a
    request it throttled was logged with no operator: the one this process last
    confirmed for the token is named (no store call made for it)."""
    server = await make_console(admin={"rate_per_second": 0.01, "rate_burst": 3})
    op = await Operator.sign_in(server)  # the first of the address's three
    caplog.set_level(logging.INFO, logger="stud.admin")
    statuses = [(await http(op.port, "GET", "/api/overview", None, op.token)).status]
    statuses += [(await http(op.port, "GET", "/api/overview", None, op.token)).status]
    statuses += [(await http(op.port, "GET", "/api/overview", None, op.token)).status]
    assert statuses == [200, 200, 429]
    lines = [r for r in caplog.records if r.getMessage() == "console request"]
    assert [(r.operator, r.status) for r in lines][-1] == ("olga", 429)  # type: ignore[attr-defined]
    # a token this process never confirmed names nobody
    assert (await http(op.port, "GET", "/api/overview", None, "forged")).status == 429
    last = [r for r in caplog.records if r.getMessage() == "console request"][-1]
    assert last.operator is None  # type: ignore[attr-defined]
