"""The operator console: built from its parts and run by `StudServer` (server/app.py).

Every process runs the `Agent` (it carries out table acts for the tables it
hosts, and follows paused tables and suspended players); a process with
`admin.port` set also serves the console's page and API on that port, bound to
`admin.host` (127.0.0.1 by default). A peer that is not loopback is refused
(403) unless it is in one of `admin.allow_from`'s networks.
"""

from __future__ import annotations

import ipaddress
import logging
from pathlib import Path
from typing import Any

from server.admin.actions import Acts
from server.admin.agent import Agent
from server.admin.api import Api
from server.admin.edges import HouseEdges
from server.admin.host import ConsoleHost
from server.admin.httpd import HttpServer
from server.admin.operators import Limiter, Operators
from server.admin.store_watch import StoreWatch
from server.admin.views import Views
from server.config import ConfigError
from server.http import WEB_ROOT
from server.stores.admin import AdminStore
from server.stores.admin_memory import MemoryAdmin
from server.stores.admin_redis import RedisAdmin
from server.stores.base import Store
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore

log = logging.getLogger("stud.admin")

#: The console's page, beside the player client (static files only).
PAGE_ROOT = WEB_ROOT.parent / "admin"


def admin_store(store: Store) -> AdminStore:
    """The console's part of the store the server runs on."""
    if isinstance(store, MemoryStore):
        return MemoryAdmin(store)
    if isinstance(store, RedisStore):
        return RedisAdmin(store)
    raise TypeError(f"the operator console knows no {type(store).__name__}")


def peer_check(allow_from: list[str]) -> Any:
    """Whether a client address may use the console: loopback, or one of `allow_from`."""
    networks = [ipaddress.ip_network(n, strict=False) for n in allow_from]

    def allowed(peer: str) -> bool:
        try:
            ip = ipaddress.ip_address(peer.split("%")[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return ip.is_loopback or any(ip in n for n in networks)

    return allowed


class AdminConsole:
    def __init__(self, host: ConsoleHost) -> None:
        config = host.config.admin
        self.host = host
        self.config = config
        self.admin = admin_store(host.store)
        self.agent = Agent(host, self.admin, config.poll_interval)
        if host.fleet is not None:
            host.fleet.on_acts = self.agent.heard  # another process's console acted
        self.edges = HouseEdges(config.house_edge)
        # With Redis the store is the only source of operators (docs/OPERATIONS.md)
        on_file = isinstance(self.admin, MemoryAdmin)
        self.watch = StoreWatch(host.store, host.spawn)
        self.operators = Operators(
            self.admin,
            host.store,
            host.passwords,
            config,
            host.config.accounts,
            config.operators_file if on_file else "",
            self.watch,
        )
        self.views = Views(host, self.admin, self.agent, self.edges)
        self.acts = Acts(host, self.admin, self.agent, self.views.known, config.action_timeout)
        web = Path(host.config.static_dir) if host.config.static_dir else WEB_ROOT
        page = Path(config.static_dir) if config.static_dir else PAGE_ROOT
        limiter = Limiter(config.rate_per_second, config.rate_burst)
        self.api = Api(
            self.operators, self.views, self.acts, self.admin, self.watch, limiter, page, web
        )
        self.http: HttpServer | None = None

    def barred(self, player_id: str) -> dict[str, Any] | None:
        return self.agent.barred(player_id)

    @property
    def port(self) -> int | None:
        return self.http.port if self.http is not None else None

    async def start(self) -> None:
        """Before the tables are hosted: the operators file, then the acts and flags."""
        await self.admin.prepare()
        on_file = isinstance(self.admin, MemoryAdmin)
        if self.config.operators_file and not self.operators.file:
            log.warning(
                "operators file not read: with Redis the operators are in the store only;"
                " add them with `stud-server operator add NAME --redis URL`",
                extra={"file": self.config.operators_file},
            )
        if self.config.port >= 0 and on_file and not self.config.operators_file:
            # the memory store keeps operators from a file only: without one every
            # sign-in answers bad_credentials, and nothing said why
            log.warning(
                "console has no operators: on the memory store they are read from an"
                " operators file; write one with `stud-server operator add NAME --file"
                " operators.json` and name it in [admin] operators_file (STUD_OPERATORS_FILE)"
            )
        try:
            await self.operators.load_file(at_start=True)
        except ValueError as e:  # refused like any bad setting: one line, exit 2
            raise ConfigError(f"admin.operators_file: {e}") from e
        await self.agent.start()
        if self.config.port < 0:
            return
        self.http = HttpServer(
            self.api.handle, self.config.host, self.config.port, peer_check(self.config.allow_from)
        )
        await self.http.start()
        log.info(
            "operator console on %s:%s",
            self.config.host,
            self.http.port,
            extra={"admin_port": self.http.port},
        )

    async def stop(self) -> None:
        if self.http is not None:
            await self.http.close()
        await self.agent.stop()
        await self.edges.close()
