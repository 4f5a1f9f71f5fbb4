"""Helpers for the operator console's tests: HTTP over real sockets, a signed-in operator."""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

from server.app import StudServer
from server.config import Config

PASSWORD = "console-password-1"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


async def http(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    *,
    host: str = "127.0.0.1",
    local: str | None = None,
    raw: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    """One request on a connection of its own (the console closes it after the answer)."""
    local_addr = (local, 0) if local else None
    reader, writer = await asyncio.open_connection(host, port, local_addr=local_addr)
    try:
        if raw is None:
            data = b"" if body is None else json.dumps(body).encode()
            head = {"Host": f"{host}:{port}", "Content-Length": str(len(data))}
            if data:
                head["Content-Type"] = "application/json"
            if token is not None:
                head["Authorization"] = f"Bearer {token}"
            head.update(headers or {})
            lines = "".join(f"{k}: {v}\r\n" for k, v in head.items())
            raw = f"{method} {path} HTTP/1.1\r\n{lines}\r\n".encode() + data
        writer.write(raw)
        await writer.drain()
        answer = await reader.read()
    finally:
        writer.close()
    top, _, payload = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = top.decode("latin-1").split("\r\n")
    parsed = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        parsed[name.strip().lower()] = value.strip()
    return Reply(int(status_line.split(" ")[1]), parsed, payload)


def with_console(config: Config, **admin: Any) -> Config:
    """The config with a console on a free loopback port (edges off unless asked)."""
    settings = {"port": 0, "house_edge": "off", "poll_interval": 0.2, **admin}
    return replace(config, admin=replace(config.admin, **settings))


def new_id() -> str:
    return f"act-{uuid.uuid4().hex[:16]}"


@dataclass
class Operator:
    """A signed-in operator of one server's console."""

    server: StudServer
    token: str = ""
    name: str = "olga"
    replies: list[Reply] = field(default_factory=list)

    @property
    def port(self) -> int:
        port = self.server.admin.port
        assert port is not None
        return port

    @classmethod
    async def sign_in(cls, server: StudServer, name: str = "olga") -> Operator:
        hashed = await server.passwords.hash(PASSWORD)
        await server.admin.admin.put_operator(name, hashed, replace=True, now_ms=1)
        op = cls(server, name=name)
        reply = await http(op.port, "POST", "/api/session", {"name": name, "password": PASSWORD})
        assert reply.status == 200, reply
        op.token = reply.json["token"]
        return op

    async def get(self, path: str) -> Any:
        reply = await http(self.port, "GET", path, token=self.token)
        assert reply.status == 200, (path, reply)
        return reply.json

    async def post(self, path: str, body: dict[str, Any], status: int = 200) -> Any:
        reply = await http(self.port, "POST", path, body, token=self.token)
        self.replies.append(reply)
        assert reply.status == status, (path, reply)
        return reply.json

    async def act(self, path: str, reason: str = "a test", **fields: Any) -> dict[str, Any]:
        """One act with a fresh action id; its audit row."""
        answer = await self.post(path, {"action_id": new_id(), "reason": reason, **fields})
        assert answer["state"] == "done", answer
        row: dict[str, Any] = answer["row"]
        return row
