"""The client library's connection (clients/connection.py) at its edges."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.conftest import ClientFactory, ServerFactory


async def test_a_request_that_could_not_be_sent_leaves_nothing_pending(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Sent on a connection already closed, a request fails at once, and its reply's
    future is not left for the reader to fail later with nobody to hear it."""
    server = await make_server()
    client = await connect(server, "ann")
    await server.stop(grace=0)
    await asyncio.wait_for(asyncio.shield(client.closed), 5)
    unheard: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, ctx: unheard.append(ctx))
    with pytest.raises((ConnectionClosed, ConnectionError)):
        await client.request("ping")
    assert client._pending == {}
    gc.collect()
    assert unheard == []
