"""The terminal client's link when the network dies without a close: through a
proxy that stops passing bytes (both ways) but keeps the sockets open, as a lost
Wi-Fi or a frozen server does, the link calls the connection lost, then
reconnects and resumes the same player once bytes flow again."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from clients.tui.link import Link, NotConnected
from tests.conftest import ClientFactory, ServerFactory


class SilentProxy:
    """A TCP proxy to `port` that can go silent: while `silent`, nothing is passed on."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.silent = False
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        for src, dst in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.create_task(self._pipe(src, dst))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _pipe(self, src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await src.read(65536):
                if not self.silent:  # dropped, as a dead network drops them
                    dst.write(data)
                    await dst.drain()
        dst.close()

    async def stop(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        if self.server is not None:
            self.server.close()


async def test_a_link_gone_silent_is_called_lost_and_resumed(make_server: ServerFactory) -> None:
    server = await make_server()
    proxy = SilentProxy(server.port)
    port = await proxy.start()
    statuses: list[str] = []

    async def welcomed(welcome: dict[str, Any], session_lost: bool) -> None:
        assert not session_lost

    link = Link(
        f"ws://127.0.0.1:{port}/ws",
        "Ann",
        on_frame=lambda frame: None,
        on_welcome=welcomed,
        on_status=statuses.append,
        liveness=(0.5, 1.0),
    )
    link.start()
    try:

        async def until(check: Any) -> None:
            for _ in range(600):  # bounded: 60 s at most
                if check():
                    return
                await asyncio.sleep(0.1)
            raise AssertionError(statuses)

        await until(lambda: link.connected)
        player = link.welcome["player_id"]
        proxy.silent = True  # nothing closes: only the pings can tell
        await until(lambda: not link.connected)
        assert any("lost" in s or "failed" in s for s in statuses), statuses
        proxy.silent = False
        await until(lambda: link.connected and link.connects == 2)
        assert link.welcome["player_id"] == player  # resumed by the token
    finally:
        await link.stop()
        await proxy.stop()


async def test_a_password_changed_elsewhere_signs_the_link_out_once(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The link's token revoked by a password change on another device: the old password
    is tried once, refused, and never again (each try counted towards the lockout);
    the link goes on as a new guest and says which account it left."""
    server = await make_server()
    owner = await connect(server, "Ann")
    await owner.register("ann_tui", "correct horse battery")
    device = await connect(server, "Ann's laptop")
    await device.login("ann_tui", "correct horse battery")  # the token the link holds
    token = device.token
    phone = await connect(server, "Ann's phone")  # (one connection per player here)
    await phone.login("ann_tui", "correct horse battery")
    await phone.request("change_password", old="correct horse battery", new="a new secret 42")
    told: list[bool] = []

    async def welcomed(welcome: dict[str, Any], session_lost: bool) -> None:
        told.append(session_lost)

    link = Link(
        f"ws://127.0.0.1:{server.port}/ws",
        "Ann",
        on_frame=lambda frame: None,
        on_welcome=welcomed,
        on_status=lambda status: None,
    )
    link.token, link.account = token, ("ann_tui", "correct horse battery")
    link.start()
    try:
        for _ in range(100):
            if link.connected:
                break
            await asyncio.sleep(0.1)
        assert link.connected and told == [True]
        assert link.signed_out == "ann_tui" and link.account is None
        assert link.welcome["username"] is None and link.token != token  # a new guest
    finally:
        await link.stop()


async def test_a_request_the_dying_link_could_not_send_is_told_not_sent(
    make_server: ServerFactory,
) -> None:
    """A raise pressed as the link died: websockets refused to send it and the terminal
    crashed with ConnectionClosedError. It is `NotConnected` now: nothing was sent."""
    server = await make_server()

    async def welcomed(welcome: dict[str, Any], session_lost: bool) -> None:
        pass

    link = Link(
        f"ws://127.0.0.1:{server.port}/ws",
        "Ann",
        on_frame=lambda frame: None,
        on_welcome=welcomed,
        on_status=lambda status: None,
    )
    link.start()
    try:
        for _ in range(600):  # bounded: 60 s at most
            if link.connected:
                break
            await asyncio.sleep(0.1)
        assert link.client is not None

        async def refused(frame: dict[str, Any]) -> None:
            raise ConnectionClosed(None, None)

        link.client.send = refused  # type: ignore[method-assign,assignment]
        with pytest.raises(NotConnected, match="nothing was sent"):
            await link.request("raise", table="alpha", seat=0)
    finally:
        await link.stop()


def test_the_processes_are_tried_in_turn_the_named_ones_too() -> None:
    """A standby hosting no table is in no lobby row: `--fallback-url` names it."""

    async def welcomed(welcome: dict[str, Any], session_lost: bool) -> None:
        pass

    link = Link("ws://a/ws", "Ann", on_frame=lambda f: None, on_welcome=welcomed, on_status=print)
    assert link._next_url() == "ws://a/ws"  # alone: this one again
    link.known, link.fleet = ["ws://standby/ws"], ["ws://b/ws", "ws://a/ws"]
    seen = []
    for _ in range(4):
        link.url = link._next_url()
        seen.append(link.url)
    assert seen == ["ws://standby/ws", "ws://b/ws", "ws://a/ws", "ws://standby/ws"]


async def test_a_process_that_hangs_once_is_left_for_the_next(
    make_server: ServerFactory,
) -> None:
    """A frozen process's kernel still takes the connection and nothing answers: the
    link waited out two such hangs before trying the standby, and a long freeze kept
    the player offline though the table was live there."""
    standby = await make_server()

    async def take_and_ignore(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # the handshake is never answered

    frozen = await asyncio.start_server(take_and_ignore, "127.0.0.1", 0)
    port = int(frozen.sockets[0].getsockname()[1])
    statuses: list[str] = []

    async def welcomed(welcome: dict[str, Any], session_lost: bool) -> None:
        pass

    link = Link(
        f"ws://127.0.0.1:{port}/ws",
        "Ann",
        on_frame=lambda frame: None,
        on_welcome=welcomed,
        on_status=statuses.append,
        backoff=(0.05, 0.1),
        liveness=(0.5, 0.5),
    )
    link.known = [f"ws://127.0.0.1:{standby.port}/ws"]
    link.start()
    try:
        for _ in range(600):  # bounded: 60 s at most
            if link.connected:
                break
            await asyncio.sleep(0.1)
        assert link.connected and link.url == link.known[0], statuses
        hangs = [s for s in statuses if s.startswith(f"server 127.0.0.1:{port} does not answer")]
        assert len(hangs) == 1, statuses
        # a lobby row naming the frozen one is its own, left behind: not followed there
        assert link.failed_lately(f"ws://127.0.0.1:{port}/ws")
        assert not link.failed_lately(link.url)
    finally:
        await link.stop()
        frozen.close()


async def test_a_hello_the_server_refuses_for_its_name_is_said_and_not_tried_again(
    make_server: ServerFactory,
) -> None:
    """A name over the limit is refused whatever the try: the link says the server's
    words and stops, rather than 'connection lost; retrying' for ever."""
    server = await make_server()
    statuses: list[str] = []
    opened = 0
    from clients.connection import StudClient
    from clients.tui import link as link_module

    class Counted(StudClient):
        @classmethod
        async def open(cls, url: str, **kwargs: Any) -> Any:
            nonlocal opened
            opened += 1
            return await StudClient.open(url, **kwargs)

    link = Link(
        f"ws://127.0.0.1:{server.port}/ws",
        "x" * 25,
        on_frame=lambda frame: None,
        on_welcome=lambda welcome, lost: asyncio.sleep(0),
        on_status=statuses.append,
        backoff=(0.01, 0.02),
    )
    with pytest.MonkeyPatch.context() as m:
        m.setattr(link_module, "StudClient", Counted)
        link.start()
        try:
            assert link._task is not None
            await asyncio.wait_for(asyncio.shield(link._task), 10)  # it ends: no more tries
            assert opened == 1 and not link.connected and link.refused
            assert "name must be 1 to 24 characters, got 25" in statuses[-1], statuses
            assert "retrying" not in statuses[-1]
        finally:
            await link.stop()


async def test_the_pause_before_a_retry_is_counted_down() -> None:
    """ "retrying in 8s" stayed on the status line until the try."""
    with socket.socket() as taken:  # a port nothing listens on: each try is refused
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
    statuses: list[str] = []

    async def welcomed(welcome: dict[str, Any], session_lost: bool) -> None:
        raise AssertionError("nothing listens there")

    link = Link(
        f"ws://127.0.0.1:{port}/ws",
        "Ann",
        on_frame=lambda frame: None,
        on_welcome=welcomed,
        on_status=statuses.append,
        backoff=(3.0, 3.0),
    )
    link.start()
    try:
        for _ in range(100):  # bounded: 10 s at most
            said = {s.rsplit("retrying in ", 1)[-1] for s in statuses if "retrying in" in s}
            if {"2s", "1s"} <= said:
                break
            await asyncio.sleep(0.1)
        assert {"2s", "1s"} <= said, statuses
    finally:
        await link.stop()


async def test_a_session_taken_elsewhere_is_not_taken_back_until_asked(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Another connection of the same player (the browser's "Play here", a second
    terminal with the same --user) closes the terminal's with 1000: the terminal
    reconnected by itself and took the session back, and the two took it from each
    other for ever. It says it plays elsewhere now, waits, and g takes it back."""
    from clients.tui import StudApp
    from tests.test_tui import sees, shown, until

    server = await make_server()
    app = StudApp(f"ws://127.0.0.1:{server.port}/ws", "tina", backoff=(0.01, 0.02))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.link.connected, "the link")
        browser = await connect(server, token=app.link.token)  # "Play here" in the browser
        said = await sees(pilot, app, "#message", "Playing elsewhere")
        assert "g plays here" in said
        await browser.request("ping")  # the browser plays on: its connection was not taken
        assert not browser.closed.done() and app.link.connects == 1
        assert app.check_action("play_here", ())  # the footer offers g
        await pilot.press("g")  # take it back, on purpose
        await until(pilot, lambda: app.link.connected and app.link.connects == 2, "back here")
        await asyncio.wait_for(browser.closed, 10)  # the other one is the replaced one now
        assert "Playing elsewhere" not in shown(app, "#message")
        assert not app.check_action("play_here", ())
