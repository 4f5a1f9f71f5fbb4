"""Server settings: defaults, a TOML file, then environment variables, in that order.

Every setting is validated here, at start, with an error naming the setting, so
a table server never comes up half-configured.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from server.game.table import HANDS_MODES, MAX_SEATS, TableConfig, Timers
from server.game.variants import VARIANTS, Variant, VariantError, parse_variants
from server.stores.base import MAX_CENTS, NAMESPACE


class ConfigError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class JackpotConfig:
    name: str
    seed: int = 1_000_000  # $10,000.00: where the meter starts and resets to
    contribution_bp: int = 7_000  # 70% of each progressive stake feeds the meter


@dataclass(frozen=True, slots=True)
class Limits:
    max_frame_bytes: int = 8192  # PROTOCOL.md section 11: client frames are small maps
    rate_per_second: float = 20.0
    rate_burst: int = 40
    max_tables_per_connection: int = 8
    hello_timeout: float = 10.0  # seconds a new connection has to say hello
    max_unsent_bytes: int = 1 << 20  # per connection; a peer that lets more pile up is cut off


@dataclass(frozen=True, slots=True)
class WalletConfig:
    starting_credits: int = 1_000_000  # 10,000 chips of $1, in cents
    starting_bonus: int = 250_000  # bonus credits: shown, never wagered at this game
    max_buy_chips: int = 1_000_000  # cents per top-up
    max_balance: int = 10_000_000  # a top-up may not bring the balance past this


@dataclass(frozen=True, slots=True)
class AccountsConfig:
    # argon2id, as OWASP's minimum for it: 19 MiB, 2 passes, 1 lane
    time_cost: int = 2
    memory_cost: int = 19_456  # KiB
    parallelism: int = 1
    hash_threads: int = 1  # threads hashing; the event loop keeps the rest of the CPU
    max_waiting_hashes: int = 32  # past this many queued or running: `busy`
    window: float = 600.0  # seconds failed password checks are counted over
    max_failures_per_account: int = 10
    max_failures_per_address: int = 30
    # new players (guests) one client address may make in a window; 0: no limit. Every
    # guest is kept for good, so a flood of hellos would grow the store without end.
    max_new_players_per_address: int = 200
    address_header: str = ""  # e.g. "X-Forwarded-For" behind a proxy: its last address
    # days a session token may go unused before a hello can no longer resume with it (a
    # token taken from a device does not work for good); 0: tokens never expire
    token_idle_days: float = 30.0


@dataclass(frozen=True, slots=True)
class AdminConfig:
    """The operator console (server/admin/): its own port, loopback by default."""

    port: int = -1  # -1: no console on this process (it still carries out table acts)
    host: str = "127.0.0.1"
    allow_from: list[str] = field(default_factory=list)  # networks besides loopback
    token_ttl: float = 900.0  # seconds a sign-in's bearer token lives
    rate_per_second: float = 10.0  # requests per operator, and per address
    rate_burst: int = 40
    poll_interval: float = 1.0  # seconds between a process's looks for acts and flags
    action_timeout: float = 10.0  # seconds a table act is waited for before 202
    operators_file: str = ""  # operators for the memory store (`stud-server operator`)
    house_edge: str = "process"  # "process" | "thread" | "off": how edges are computed
    static_dir: str = ""  # the console's page; default clients/admin
    # cents one credit or debit may move at most; 0: no limit of its own (the wallet's
    # max_balance still bounds a credit)
    max_adjustment: int = 0


@dataclass(frozen=True, slots=True)
class Config:
    host: str = "127.0.0.1"
    port: int = 8765
    public_url: str = ""  # how clients reach this process (lobby of a fleet)
    redis_url: str = ""
    redis_namespace: str = "stud"  # key prefix: processes sharing it share tables and wallets
    fleet_ttl: float = 6.0  # seconds a table stays owned by a process that stopped renewing
    store_timeout: float = 5.0  # seconds Redis may take to answer before an outcome is unknown
    store_patience: float = 10.0  # seconds a player's write may stay in doubt, then abandoned
    limits: Limits = field(default_factory=Limits)
    wallet: WalletConfig = field(default_factory=WalletConfig)
    accounts: AccountsConfig = field(default_factory=AccountsConfig)
    admin: AdminConfig = field(default_factory=AdminConfig)
    timers: Timers = field(default_factory=Timers)
    reconnect_grace: float = 60.0  # seconds a gone player keeps their seats
    shutdown_grace: float = 30.0  # seconds running rounds get to finish on SIGTERM
    jackpot_push_interval: float = 1.0  # throttle of meter updates to clients
    jackpot_push_budget: int = 2000  # meter frames a second at most; the rest told in turn
    max_seats_per_player: int = 3
    variants: Mapping[str, Variant] = field(default_factory=lambda: dict(VARIANTS))
    jackpots: Mapping[str, JackpotConfig] = field(
        default_factory=lambda: {"main": JackpotConfig("main")}
    )
    tables: tuple[TableConfig, ...] = ()
    static_dir: str = ""
    event_loop: str = "auto"  # uvloop when installed, else asyncio's own; or either by name


#: `event_loop`'s choices.
EVENT_LOOPS = ("auto", "uvloop", "asyncio")


def default_tables(
    variants: Mapping[str, Variant], timers: Timers, max_seats_per_player: int = 3
) -> tuple[TableConfig, ...]:
    """The lobby `make run` opens: one table per preset, plus a high-limit one."""
    rows = [
        ("stud-1", "Stud Poker", "stud-poker", 7, 100, 10_000),
        ("casino-1", "Casino Stud", "casino-stud", 7, 100, 10_000),
        ("bermuda-1", "Bermuda", "bermuda", 7, 100, 10_000),
        ("casino-high", "Casino Stud High Limit", "casino-stud", 5, 2_500, 100_000),
    ]
    return tuple(
        TableConfig(
            table_id=tid,
            title=title,
            variant=variants[name],
            seats=seats,
            min_ante=lo,
            max_ante=hi,
            timers=timers,
            max_seats_per_player=min(max_seats_per_player, seats),
        )
        for tid, title, name, seats, lo, hi in rows
    )


_ENV: dict[str, tuple[str, type]] = {
    "STUD_HOST": ("host", str),
    "STUD_PORT": ("port", int),
    "STUD_PUBLIC_URL": ("public_url", str),
    "REDIS_URL": ("redis_url", str),
    "STUD_REDIS_NAMESPACE": ("redis_namespace", str),
    "STUD_RECONNECT_GRACE": ("reconnect_grace", float),
    "STUD_SHUTDOWN_GRACE": ("shutdown_grace", float),
    "STUD_EVENT_LOOP": ("event_loop", str),
    "STUD_BETTING_SECONDS": ("timers.betting", float),
    "STUD_DECISION_SECONDS": ("timers.decision", float),
    "STUD_RESULTS_SECONDS": ("timers.results", float),
    "STUD_STARTING_CREDITS": ("wallet.starting_credits", int),
    "STUD_STARTING_BONUS": ("wallet.starting_bonus", int),
    "STUD_MAX_FRAME_BYTES": ("limits.max_frame_bytes", int),
    "STUD_RATE_PER_SECOND": ("limits.rate_per_second", float),
    "STUD_RATE_BURST": ("limits.rate_burst", int),
    "STUD_ADMIN_PORT": ("admin.port", int),
    "STUD_ADMIN_HOST": ("admin.host", str),
    "STUD_OPERATORS_FILE": ("admin.operators_file", str),
    "STUD_ADMIN_MAX_ADJUSTMENT": ("admin.max_adjustment", int),
}

#: The environment variables read, with the setting each overrides (for the README).
ENVIRONMENT = {name: path for name, (path, _) in _ENV.items()}


def load_config(path: str | Path | None = None, env: Mapping[str, str] | None = None) -> Config:
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        source = str(path)
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as e:
            raise ConfigError(f"cannot read config {path}: {e.strerror}") from e
        except UnicodeDecodeError as e:  # TOML is UTF-8: a file saved as UTF-16, Latin-1...
            raise ConfigError(
                f"cannot read config {path}: not UTF-8 text (byte {e.object[e.start]:#04x}"
                f" at offset {e.start})"
            ) from e
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: not valid TOML: {e}") from e
    env = os.environ if env is None else env
    given: dict[str, str] = {}  # a setting's dotted name -> the variable that set it
    for name, (dotted, kind) in _ENV.items():
        if name in env and env[name] != "":
            try:
                value = kind(env[name])
            except ValueError as e:
                raise ConfigError(f"{name}: expected {kind.__name__}, got {env[name]!r}") from e
            section, _, key = dotted.rpartition(".")
            target = data.setdefault("server", {}) if not section else data.setdefault(section, {})
            target[key] = value
            given[dotted if section else f"server.{dotted}"] = name
    try:
        return build_config(data, source)
    except ConfigError as e:
        # a setting the environment gave is named by its variable, as the operator wrote it
        text = str(e)
        for dotted, name in given.items():
            if text.startswith((f"{dotted}:", f"{dotted} ")):
                raise ConfigError(f"{name}={env[name]}: {text}") from e
        raise


def build_config(data: Mapping[str, Any], source: str = "config") -> Config:
    known = {"server", "limits", "wallet", "accounts", "admin", "timers", "jackpots", "variants"}
    known |= {"tables"}
    _no_extra(data, known, "")
    server = _section(data, "server")
    _no_extra(
        server,
        {
            "host",
            "port",
            "public_url",
            "redis_url",
            "redis_namespace",
            "fleet_ttl",
            "store_timeout",
            "store_patience",
            "reconnect_grace",
            "shutdown_grace",
            "jackpot_push_interval",
            "jackpot_push_budget",
            "max_seats_per_player",
            "static_dir",
            "event_loop",
        },
        "server",
    )
    timer_values = _typed(_section(data, "timers"), Timers(), "timers")
    for name, value in timer_values.items():
        _rule(f"timers.{name}", value, "> 0", "must be > 0 seconds")
    timers = Timers(**timer_values)
    limits = Limits(**_typed(_section(data, "limits"), Limits(), "limits"))
    wallet = WalletConfig(**_typed(_section(data, "wallet"), WalletConfig(), "wallet"))
    for name in ("starting_credits", "starting_bonus", "max_buy_chips", "max_balance"):
        _rule(f"wallet.{name}", getattr(wallet, name), ">= 0", "must be >= 0 cents")
        if getattr(wallet, name) > MAX_CENTS:
            raise ConfigError(
                f"wallet.{name}: at most {MAX_CENTS} cents, got {getattr(wallet, name)}"
            )
    if wallet.max_buy_chips == 0:  # every purchase refused as "at most 0 cents"
        raise ConfigError("wallet.max_buy_chips: at least 1 cent (the most one purchase buys)")
    if wallet.starting_credits > wallet.max_balance:
        # a new player would start past the ceiling no top-up or credit may pass
        raise ConfigError(
            f"wallet.starting_credits: at most wallet.max_balance ({wallet.max_balance} cents)"
        )
    _rule("limits.max_frame_bytes", limits.max_frame_bytes, ">= 256", "at least 256 bytes")
    _rule("limits.rate_per_second", limits.rate_per_second, "> 0", "more than 0")
    if limits.rate_per_second != int(limits.rate_per_second):
        # the welcome tells clients the rate, and a frame never carries a float (PROTOCOL.md)
        raise ConfigError(
            "limits.rate_per_second: a whole number of messages per second, "
            f"got {_shown(limits.rate_per_second)}"
        )
    _rule("limits.rate_burst", limits.rate_burst, ">= 1", "at least 1")
    # 0 refused every join; a hello_timeout <= 0 dropped every connection before its hello
    per_connection = limits.max_tables_per_connection
    _rule("limits.max_tables_per_connection", per_connection, ">= 1", "at least 1")
    _rule("limits.hello_timeout", limits.hello_timeout, "> 0", "more than 0 seconds")
    _rule("limits.max_unsent_bytes", limits.max_unsent_bytes, ">= 65536", "at least 65536")
    accounts = AccountsConfig(**_typed(_section(data, "accounts"), AccountsConfig(), "accounts"))
    _check_accounts(accounts)
    admin = AdminConfig(**_typed(_section(data, "admin"), AdminConfig(), "admin"))
    _check_admin(admin)

    variants: dict[str, Variant] = dict(VARIANTS)
    if "variants" in data:
        try:
            variants.update(parse_variants({"variants": data["variants"]}, source=source))
        except VariantError as e:
            raise ConfigError(str(e)) from e

    jackpots: dict[str, JackpotConfig] = {}
    for name, entry in (data.get("jackpots") or {"main": {}}).items():
        where = f"jackpots.{name}"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: must be a table")
        _no_extra(entry, {"seed", "contribution_bp"}, where)
        jp = JackpotConfig(name, **_typed(entry, JackpotConfig(name), where, skip={"name"}))
        _rule(f"{where}.seed", jp.seed, ">= 0", "must be >= 0 cents")
        if jp.seed > MAX_CENTS:
            raise ConfigError(f"{where}.seed: at most {MAX_CENTS} cents, got {jp.seed}")
        if not 0 <= jp.contribution_bp <= 10_000:
            raise ConfigError(
                f"{where}.contribution_bp: must be 0..10000 basis points, got {jp.contribution_bp}"
            )
        jackpots[name] = jp

    nested = {"limits", "wallet", "timers", "accounts", "admin"}
    scalars = _typed(server, Config(), "server", skip=nested)
    base = replace(
        Config(),
        **scalars,
        limits=limits,
        wallet=wallet,
        accounts=accounts,
        admin=admin,
        timers=timers,
    )
    if not 1 <= base.max_seats_per_player <= MAX_SEATS:
        raise ConfigError(
            f"server.max_seats_per_player: must be 1..{MAX_SEATS}, got {base.max_seats_per_player}"
        )
    _rule("server.store_timeout", base.store_timeout, "> 0", "must be > 0 seconds")
    _rule("server.fleet_ttl", base.fleet_ttl, "> 0", "must be > 0 seconds")
    _rule("server.store_patience", base.store_patience, ">= 0", "must be >= 0 seconds")
    # a negative grace acted as 0: a gone player lost their seats at once
    _rule("server.reconnect_grace", base.reconnect_grace, ">= 0", "must be >= 0 seconds")
    _rule("server.shutdown_grace", base.shutdown_grace, ">= 0", "must be >= 0 seconds")
    _rule("server.jackpot_push_interval", base.jackpot_push_interval, "> 0", "must be > 0 seconds")
    _rule("server.jackpot_push_budget", base.jackpot_push_budget, ">= 1", "at least 1")
    if base.event_loop not in EVENT_LOOPS:
        raise ConfigError(f"server.event_loop: one of {', '.join(EVENT_LOOPS)}")
    check_ports(base)
    _check_redis_url(base.redis_url)
    if not NAMESPACE.fullmatch(base.redis_namespace):
        raise ConfigError("server.redis_namespace: 1-64 of A-Z a-z 0-9 _ . -")
    _check_public_url(base.public_url)
    for name, folder in (("server", base.static_dir), ("admin", base.admin.static_dir)):
        if folder and not Path(folder).is_dir():
            raise ConfigError(f"{name}.static_dir: no such directory: {folder!r}")

    if "tables" in data:
        tables = tuple(
            _table(i, entry, variants, jackpots, timers, base.max_seats_per_player)
            for i, entry in enumerate(_list(data["tables"], "tables"))
        )
    else:
        tables = default_tables(variants, timers, base.max_seats_per_player)
    for i, t in enumerate(tables):
        _check_bettable(f"tables[{i}] ({t.table_id})", t, wallet)
    ids = [t.table_id for t in tables]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"tables: duplicate table id in {ids}")
    if not tables:
        raise ConfigError("tables: at least one table is needed")
    return replace(base, variants=variants, jackpots=jackpots, tables=tables)


def _table(
    i: int,
    entry: Any,
    variants: Mapping[str, Variant],
    jackpots: Mapping[str, JackpotConfig],
    timers: Timers,
    max_per_player: int,
) -> TableConfig:
    where = f"tables[{i}]"
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: must be a table")
    allowed = {"id", "title", "variant", "seats", "min_ante", "max_ante", "progressive_stake"}
    allowed |= {"hands"}
    _no_extra(entry, allowed | {"jackpot", "max_seats_per_player"}, where)
    tid = entry.get("id")
    if not isinstance(tid, str) or not tid or len(tid) > 32 or not _is_slug(tid):
        raise ConfigError(f"{where}.id: 1-32 characters of a-z, 0-9, _ or -")
    where = f"{where} ({tid})"
    vname = entry.get("variant", "casino-stud")
    if vname not in variants:
        raise ConfigError(f"{where}.variant: unknown variant {vname!r} (have {sorted(variants)})")
    jackpot = entry.get("jackpot", "main")
    if jackpot not in jackpots:
        default = "" if "jackpot" in entry else " (a table without `jackpot =` feeds 'main')"
        raise ConfigError(
            f"{where}.jackpot: unknown jackpot {jackpot!r}{default} (have {sorted(jackpots)})"
        )
    ints = {}
    for key in ("seats", "min_ante", "max_ante", "progressive_stake", "max_seats_per_player"):
        if key in entry:
            if type(entry[key]) is not int:
                raise ConfigError(f"{where}.{key}: must be an integer")
            ints[key] = entry[key]
    seats = ints.get("seats", 7)
    hands = entry.get("hands", "private")
    if hands not in HANDS_MODES:
        raise ConfigError(f"{where}.hands: one of {', '.join(HANDS_MODES)}, got {hands!r}")
    try:
        return TableConfig(
            table_id=tid,
            title=str(entry.get("title", tid)),
            variant=variants[vname],
            seats=seats,
            min_ante=ints.get("min_ante", 100),
            max_ante=ints.get("max_ante", 10_000),
            progressive_stake=ints.get("progressive_stake"),
            max_seats_per_player=ints.get("max_seats_per_player", min(max_per_player, seats)),
            jackpot=jackpot,
            contribution_bp=jackpots[jackpot].contribution_bp,
            timers=timers,
            hands=hands,
        )
    except ValueError as e:
        raise ConfigError(f"{where}: {e}") from e


def shared_settings(config: Config) -> dict[str, int]:
    """The settings every process on one Redis must share, by dotted name: the wallet's
    (what a new player gets, what a top-up may do) and each jackpot's seed and share."""
    found = {f"wallet.{f.name}": getattr(config.wallet, f.name) for f in fields(config.wallet)}
    for name, jackpot in sorted(config.jackpots.items()):
        found[f"jackpots.{name}.seed"] = jackpot.seed
        found[f"jackpots.{name}.contribution_bp"] = jackpot.contribution_bp
    return found


def setting_warnings(config: Config) -> list[str]:
    """What a config allows but an operator likely did not mean: said by `check-config`
    and logged by `serve` at start."""
    out = []
    if not config.public_url and config.host in ("0.0.0.0", "::", ""):
        out.append(
            f"server.host {config.host!r} and no public_url: the welcome and the lobby give"
            f" ws://{config.host}:{config.port}/ws as this process's address, which the"
            " clients of other processes cannot reach; set server.public_url"
            " (STUD_PUBLIC_URL)"
        )
    operators = config.admin.operators_file
    # with Redis the file is not read at all: the console's start says so
    if operators and not config.redis_url and not Path(operators).exists():
        out.append(
            f"admin.operators_file {operators!r} does not exist: no operator is loaded from"
            f" it until `stud-server operator add NAME --file {operators}` writes it"
        )
    return out


def _check_bettable(where: str, t: TableConfig, wallet: WalletConfig) -> None:
    """Refuse a table no wallet could bet at: an ante is taken with its raise held
    (3 x the ante), and no balance may pass `max_balance`."""
    if 3 * t.min_ante > wallet.max_balance:
        raise ConfigError(
            f"{where}.min_ante: {t.min_ante} cents with its raise (3 x {t.min_ante}) is more "
            f"than wallet.max_balance ({wallet.max_balance} cents): nobody could bet"
        )
    if 3 * t.max_ante > wallet.max_balance:
        raise ConfigError(
            f"{where}.max_ante: at most a third of wallet.max_balance "
            f"({wallet.max_balance // 3} cents): the ante is held with its raise"
        )
    if t.stake > wallet.max_balance:
        raise ConfigError(
            f"{where}.progressive_stake: at most wallet.max_balance ({wallet.max_balance} cents)"
        )


def _check_redis_url(url: str) -> None:
    """What the Redis store would refuse at start, refused by check-config already."""
    if not url:
        return
    parts = urlsplit(url)
    db = parts.path.strip("/")
    if parts.scheme == "unix" and parts.path:
        return
    if parts.scheme != "redis" or (db and not db.isdigit()):
        raise ConfigError(
            f"server.redis_url: {url!r} is neither redis://[:password@]host[:port][/db] "
            "nor unix:///path"
        )
    if parts.username and parts.username != "default":
        raise ConfigError("server.redis_url: a password only (redis://:password@host), no user")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port when it is read
    except ValueError as e:
        raise ConfigError(f"server.redis_url: {e}") from e


def _check_accounts(a: AccountsConfig) -> None:
    _rule("accounts.time_cost", a.time_cost, ">= 1", "at least 1 pass")
    _rule("accounts.parallelism", a.parallelism, ">= 1", "at least 1 lane")
    if a.memory_cost < 8 * a.parallelism:
        raise ConfigError(
            f"accounts.memory_cost: at least 8 KiB per lane ({8 * a.parallelism} KiB for "
            f"accounts.parallelism = {a.parallelism}), got {a.memory_cost}"
        )
    _rule("accounts.hash_threads", a.hash_threads, ">= 1", "at least 1")
    _rule("accounts.max_waiting_hashes", a.max_waiting_hashes, ">= 1", "at least 1")
    _rule("accounts.window", a.window, "> 0", "must be > 0 seconds")
    _rule("accounts.max_failures_per_account", a.max_failures_per_account, ">= 1", "at least 1")
    _rule("accounts.max_failures_per_address", a.max_failures_per_address, ">= 1", "at least 1")
    _rule(
        "accounts.max_new_players_per_address",
        a.max_new_players_per_address,
        ">= 0",
        "must be >= 0 (0: no limit)",
    )
    if a.address_header and not _HEADER_NAME.fullmatch(a.address_header):
        # a name no request could carry: every client would share the proxy's address
        raise ConfigError(
            "accounts.address_header: a header name (letters, digits, - and the like, no "
            f'spaces or colon), or "" for none, got {a.address_header!r}'
        )
    days = a.token_idle_days
    if not (days == 0 or 1 / 24 <= days <= 36_500):  # an hour at least: else no one resumes
        raise ConfigError(
            f"accounts.token_idle_days: 0 (tokens never expire) or 0.042 (an hour) to 36500 "
            f"days, got {_shown(days)}"
        )


def check_ports(config: Config) -> None:
    """The players' and the console's ports, from a file, the environment or `serve`'s
    options alike: a port past 65535 was bound modulo 65536 (70000 served on 4464)."""
    if not 0 <= config.port < 65536:
        raise ConfigError(f"server.port: must be 0..65535, got {config.port}")
    a = config.admin
    if not -1 <= a.port < 65536:
        raise ConfigError(
            f"admin.port: 0..65535 (0: any free port), or -1 for no console, got {a.port}"
        )
    if config.port and a.port == config.port and a.host == config.host:
        raise ConfigError("admin.port: the same address as server.port; give each its own")


def check_options(config: Config) -> None:
    """What `serve`'s options may set (over the file and the environment), checked in
    the same words: `--public-url http://x` was taken and advertised by the lobby."""
    check_ports(config)
    _check_redis_url(config.redis_url)
    _check_public_url(config.public_url)


def _check_public_url(url: str) -> None:
    if url and urlsplit(url).scheme not in ("ws", "wss"):
        raise ConfigError("server.public_url: a ws:// or wss:// address (or empty)")


def _check_admin(a: AdminConfig) -> None:
    for network in a.allow_from:
        try:
            ipaddress.ip_network(network, strict=False)
        except (TypeError, ValueError) as e:
            raise ConfigError(f"admin.allow_from: not a network: {network!r}") from e
    _rule("admin.token_ttl", a.token_ttl, "> 0", "must be > 0 seconds")
    _rule("admin.poll_interval", a.poll_interval, "> 0", "must be > 0 seconds")
    _rule("admin.action_timeout", a.action_timeout, "> 0", "must be > 0 seconds")
    _rule("admin.rate_per_second", a.rate_per_second, "> 0", "more than 0")
    _rule("admin.rate_burst", a.rate_burst, ">= 1", "at least 1")
    # a negative limit would refuse every credit and debit
    _rule("admin.max_adjustment", a.max_adjustment, ">= 0", "must be >= 0 cents (0: no limit)")
    if a.max_adjustment > MAX_CENTS:
        raise ConfigError(
            f"admin.max_adjustment: at most {MAX_CENTS} cents, got {a.max_adjustment}"
        )
    if a.house_edge not in ("process", "thread", "off"):
        raise ConfigError("admin.house_edge: one of process, thread, off")


#: An HTTP header's name (RFC 9110's token).
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def _shown(value: float) -> str:
    """A number as the operator wrote it: 30, not 30.0 (TOML's ints become floats here)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


def _rule(where: str, value: float, test: str, says: str) -> None:
    """Refuse `value` of the setting `where` unless `value test` holds (">= 1", "> 0"),
    naming that one setting, what it may be and what it was."""
    op, _, bound = test.partition(" ")
    ok = value > float(bound) if op == ">" else value >= float(bound)
    if not ok:
        raise ConfigError(f"{where}: {says}, got {_shown(value)}")


def _is_slug(text: str) -> bool:
    return all(c.isascii() and ((c.isalnum() and not c.isupper()) or c in "_-") for c in text)


def _section(data: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{name}: must be a table")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError(f"{where}: must be an array of tables")
    return value


def _no_extra(data: Mapping[str, Any], allowed: set[str], where: str) -> None:
    extra = set(data) - allowed
    if extra:
        prefix = f"{where}." if where else ""
        raise ConfigError(f"{prefix}{sorted(extra)[0]}: unknown setting")


def _typed(
    data: Mapping[str, Any], defaults: Any, where: str, skip: set[str] | None = None
) -> dict[str, Any]:
    """Check each given value against the type of its default; ints are accepted for floats."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        if skip and key in skip:
            continue
        if not hasattr(defaults, key):
            raise ConfigError(f"{where}.{key}: unknown setting")
        default = getattr(defaults, key)
        if isinstance(default, bool) or isinstance(value, bool):
            ok = isinstance(value, bool) and isinstance(default, bool)
        elif isinstance(default, float):
            ok = isinstance(value, int | float)
            value = float(value) if ok else value
            if ok and not math.isfinite(value):  # TOML's inf and nan: no timer or rate
                raise ConfigError(f"{where}.{key}: a finite number, got {value!r}")
        else:
            ok = isinstance(value, type(default))
        if not ok:
            raise ConfigError(f"{where}.{key}: expected {type(default).__name__}, got {value!r}")
        out[key] = value
    return out
