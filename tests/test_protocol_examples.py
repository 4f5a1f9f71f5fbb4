"""PROTOCOL.md's server examples against what a real server sends.

A client written from the document alone copies its examples: an example that
lacks a field the server sends (or shows one it no longer does) misleads it. Each
example of a frame the session below receives must have the real frame's fields,
at the top and in the nested maps a client reads (seats, the dealer, lobby rows,
the wallet, history records).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from clients.connection import StudClient
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles

DOC = (Path(__file__).parent.parent / "protocol" / "PROTOCOL.md").read_text(encoding="utf-8")
DEALER_AK = ["Ah", "Kd", "2c", "3d", "9s"]


def _examples() -> list[dict[str, Any]]:
    blocks = re.findall(r"^```json server\n(.*?)^```$", DOC, flags=re.M | re.S)
    return [json.loads(block) for block in blocks]


def _shape(frame: dict[str, Any]) -> dict[str, set[str]]:
    """The field names of a frame and of the nested maps a client reads."""
    shape = {"": set(frame)}

    def add(where: str, value: Any) -> None:
        if isinstance(value, dict):
            shape.setdefault(where, set()).update(value)

    t = frame["t"]
    if t == "table":
        for seat in frame["seats"]:
            add("seats[]", seat)
        add("dealer", frame["dealer"])
    elif t == "lobby":
        for row in frame["tables"]:
            add("tables[]", row)
    elif t == "welcome":
        add("balance", frame["balance"])
        add("limits", frame["limits"])
    elif t == "history":
        for record in frame["rounds"]:
            add("rounds[]", record)
    elif t == "hand":
        for seat in frame["seats"]:
            add("seats[]", seat)
    return shape


async def _session(make_server: ServerFactory, connect: ClientFactory) -> list[dict[str, Any]]:
    server = await make_server(
        jackpot_push_interval=0.05,
        shuffle=shuffles([["Kh", "Qd", "7s", "7c", "2d"], DEALER_AK]),
    )
    ann: StudClient = await connect(server, "Ann")
    watcher: StudClient = await connect(server, "Watcher")
    await watcher.request("join", table="alpha")
    lobby: StudClient = await connect(server, "Lobby")  # watches no table: meters are pushed
    await lobby.request("lobby")
    await ann.request("sit", table="alpha")
    await ann.request("ante", table="alpha", seat=0, amount=500, progressive=True)
    await ann.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
    await ann.request("raise", table="alpha", seat=0)
    await ann.wait_table("alpha", lambda s: s["phase"] == "showdown")
    await ann.request("history", limit=1)
    await ann.request("ping")
    await lobby.wait_for(lambda c: [f for f in c.frames if f["t"] == "jackpot"] or None)
    return ann.frames + watcher.frames + lobby.frames


async def test_server_examples_have_the_fields_the_server_sends(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    real: dict[str, dict[str, set[str]]] = {}
    for frame in await _session(make_server, connect):
        if frame["t"] in ("ok", "error"):
            continue  # their fields depend on the request: §5 lists them per request
        for where, fields in _shape(frame).items():
            real.setdefault(frame["t"], {}).setdefault(where, set()).update(fields)
    assert {"welcome", "table", "hand", "lobby", "balance", "jackpot", "history", "pong"} <= set(
        real
    )
    checked, wrong = 0, []
    for example in _examples():
        if example["t"] not in real:
            continue
        for where, fields in _shape(example).items():
            sent = real[example["t"]][where]
            if fields != sent:
                wrong.append((example["t"], where, "lacks", sent - fields, "has", fields - sent))
        checked += 1
    assert not wrong
    assert checked >= 8


async def test_a_request_without_an_id_gets_a_reply_without_one(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A nil `id` counts as absent (section 1): the reply has no `id` either, not nil."""
    server = await make_server()
    c: StudClient = await connect(server, None)
    await c.send({"t": "hello", "v": 1, "name": "Ann", "id": None})
    welcome = await c.wait_for(lambda cl: next((f for f in cl.frames if f["t"] == "welcome"), None))
    assert "id" not in welcome
    await c.send({"t": "ping", "id": None})
    await c.send({"t": "ping"})
    pongs = await c.wait_for(
        lambda cl: (found := [f for f in cl.frames if f["t"] == "pong"])[1:] and found
    )
    assert len(pongs) == 2 and all("id" not in f for f in pongs)
    reply = await c.request("ping")  # with an id: echoed, so the request is matched
    assert reply["t"] == "pong" and isinstance(reply["id"], int)
