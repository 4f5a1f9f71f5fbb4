"""`stud-server`: run the table server, check a config file, manage console operators."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from server.config import (
    EVENT_LOOPS,
    Config,
    ConfigError,
    check_options,
    load_config,
    setting_warnings,
)
from server.game.variants import VARIANTS

if TYPE_CHECKING:
    from server.stores.base import StoreError

_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None)))


class JsonFormatter(logging.Formatter):
    """One JSON object a line, with the record's extras (round_id, table...)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        out.update({k: v for k, v in vars(record).items() if k not in _STANDARD})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


class TextFormatter(logging.Formatter):
    """A line for a person, with the record's extras as `key=value` after the message:
    without them "round voided" does not say which round, nor why."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        extras = [
            f"{k}={_text_value(v)}"
            for k, v in vars(record).items()
            if k not in _STANDARD and k not in ("message", "asctime")
        ]
        return " ".join([line, *extras])


def _text_value(value: Any) -> str:
    """A bare word as it is; anything else (spaces, quotes, numbers in lists) as JSON."""
    if isinstance(value, str) and value and not any(c.isspace() or c in '"=' for c in value):
        return value
    return json.dumps(value, default=str)


def _setup_logging(fmt: str, level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter())
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    for noisy in ("asyncio_redis", "websockets.server"):  # one line per connection: too much
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLogger().level))


#: The command that serves until stopped: it prints no result a reader could cut short.
LONG_RUNNING = "serve"


def main(argv: list[str] | None = None) -> int:
    if (argv if argv is not None else sys.argv[1:])[:1] == [LONG_RUNNING]:
        return _main(argv)  # a broken pipe there is a fault to show, not a reader gone
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()  # output to a pipe is buffered: a reader gone shows here
    except BrokenPipeError:
        # the reader went away (`| head`): stop quietly, as other command-line tools do,
        # and keep Python from failing again on flushing stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="stud-server", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the WebSocket table server")
    serve.add_argument("--host", help="address to bind (default 127.0.0.1, env STUD_HOST)")
    serve.add_argument("--port", type=int, help="port (default 8765, env STUD_PORT)")
    serve.add_argument("--config", help="TOML config file (tables, timers, limits, wallet)")
    serve.add_argument(
        "--redis", help="redis://HOST:PORT/DB: share wallets, jackpot and tables (env REDIS_URL)"
    )
    serve.add_argument("--public-url", help="ws:// address clients use to reach this process")
    serve.add_argument(
        "--admin-port", type=int, help="the operator console's port (env STUD_ADMIN_PORT)"
    )
    serve.add_argument("--admin-host", help="the console's address (default 127.0.0.1)")
    serve.add_argument(
        "--event-loop",
        choices=EVENT_LOOPS,
        help="uvloop or asyncio's own (default auto: uvloop when installed, env STUD_EVENT_LOOP)",
    )
    serve.add_argument("--log-format", choices=["text", "json"], default="text")
    serve.add_argument(
        "--log-level",
        type=str.lower,
        choices=["debug", "info", "warning", "error", "critical"],
        default="info",
    )
    check = sub.add_parser("check-config", help="validate a config file and list its tables")
    check.add_argument("file")
    check.add_argument(
        "--strict",
        action="store_true",
        help="exit non-zero when a table's paytable gives the player the edge",
    )
    odds = sub.add_parser("odds", help="exact house edge and optimal strategy of a variant")
    odds.add_argument("--variant", required=True, help="a preset or a variant of --config")
    odds.add_argument("--config", help="TOML config file whose [variants] are searched too")
    odds.add_argument("--json", action="store_true", help="print one JSON object")
    rng = sub.add_parser("rng-stats", help="chi-square tests of the deck over many shuffles")
    rng.add_argument("--shuffles", type=int, default=1_000_000, help="decks to deal (1000000)")
    rng.add_argument("--source", choices=["fair", "secrets"], default="fair")
    rng.add_argument("--workers", type=int, default=2, help="processes to deal in (2)")
    rng.add_argument("--json", action="store_true", help="print one JSON object")
    accept = sub.add_parser(
        "accept-empty-store",
        help="take a Redis that came back without its data as a new, empty store",
    )
    accept.add_argument("--config", help="TOML config file (redis_url, redis_namespace)")
    accept.add_argument("--redis", help="redis://HOST:PORT/DB (env REDIS_URL)")
    from server.admin import cli as operator_cli

    operator_cli.add_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "rng-stats":
        return _rng_stats(args.shuffles, args.source, args.workers, args.json)

    try:
        checked = args.file if args.command == "check-config" else None
        config = load_config(getattr(args, "config", None) or checked)
    except ConfigError as e:
        print(f"stud-server: {e}", file=sys.stderr)
        return 2

    if args.command == "odds":
        return _odds(config, args.variant, args.json)

    if args.command == "operator":
        return operator_cli.run(args, config)

    if args.command == "accept-empty-store":
        return asyncio.run(_accept_empty_store(args.redis or config.redis_url, config))

    if args.command == "check-config":
        from server.analysis.odds import OddsReport, analyze
        from server.analysis.warnings import percent, table_warnings

        reports: dict[str, OddsReport] = {}
        warnings = 0
        for t in config.tables:
            print(
                f"{t.table_id}: {t.variant.name}, {t.seats} seats, ante {t.min_ante}-{t.max_ante}"
                f" cents, progressive {t.stake} cents -> jackpot {t.jackpot}"
            )
            report = reports.get(t.variant.name) or analyze(t.variant)
            reports[t.variant.name] = report
            print(
                f"  house edge {percent(report.house_edge_ante)} of the ante, "
                f"{percent(report.element_of_risk)} of the total bet (optimal play)"
            )
            for warning in table_warnings(config, t, report):
                warnings += 1
                print(f"stud-server: warning: {warning}", file=sys.stderr)
        for warning in setting_warnings(config):  # not --strict's: the paytables' only
            print(f"stud-server: warning: {warning}", file=sys.stderr)
        used = len({t.variant.name for t in config.tables})
        counted = f"{len(config.tables)} tables, {used} of {len(config.variants)} variants in use"
        if warnings and args.strict:  # not "ok" on the way to an exit status of 1
            print(f"refused (--strict): {counted}, {warnings} warning(s)")
            return 1
        print(f"ok: {counted}")
        return 0

    if args.host:
        config = replace(config, host=args.host)
    if args.port is not None:
        config = replace(config, port=args.port)
    if args.redis:
        config = replace(config, redis_url=args.redis)
    if args.public_url:
        config = replace(config, public_url=args.public_url)
    if args.event_loop:
        config = replace(config, event_loop=args.event_loop)
    if args.admin_port is not None or args.admin_host:
        admin = replace(
            config.admin,
            port=config.admin.port if args.admin_port is None else args.admin_port,
            host=args.admin_host or config.admin.host,
        )
        config = replace(config, admin=admin)
    try:  # the options as the file and the environment: checked, in the same words
        check_options(config)
    except ConfigError as e:
        print(f"stud-server: {e}", file=sys.stderr)
        return 2
    _setup_logging(args.log_format, args.log_level)
    for warning in setting_warnings(config):
        logging.getLogger("stud.config").warning("%s", warning)
    if any(VARIANTS.get(t.variant.name) != t.variant for t in config.tables):
        threading.Thread(
            target=_warn_of_paytables, args=(config,), name="paytable check", daemon=True
        ).start()

    from server.app import StudServer
    from server.stores.base import StoreError

    async def run() -> None:
        server = StudServer(config, **await _stores(config))
        await server.serve_until_signalled()

    loop_factory = _loop_factory(config.event_loop)
    if loop_factory is None:
        print("stud-server: event_loop uvloop: uvloop is not installed", file=sys.stderr)
        return 1
    try:
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(run())
    except StoreError as e:
        return _store_failed(e)
    except ConfigError as e:  # the config disagrees with the fleet it would join
        print(f"stud-server: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # e names the address it could not bind: the players' or the console's
        console = config.admin
        where = f"players on {config.host}:{config.port}" + (
            f", console on {console.host}:{console.port}" if console.port >= 0 else ""
        )
        print(f"stud-server: cannot listen ({where}): {e}", file=sys.stderr)
        return 1
    return 0


def _loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop, where it is installed, unless asyncio's own loop is asked for: the same
    server on it spends a few per cent less CPU a hand (BENCHMARKS.md). None: uvloop
    asked for by name and not installed."""
    if choice == "asyncio":
        return asyncio.new_event_loop
    try:
        import uvloop
    except ImportError:
        return None if choice == "uvloop" else asyncio.new_event_loop
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


async def _stores(config: Config) -> dict[str, Any]:
    """The memory store by default; Redis and the fleet when a URL is given."""
    if not config.redis_url:
        return {}
    import secrets

    from server.fleet import Fleet
    from server.stores.redis import RedisStore
    from server.stores.redis_origin import eviction_risk, persistence_gap

    store = await RedisStore.connect(
        config.redis_url, namespace=config.redis_namespace, timeout=config.store_timeout
    )
    # the fleet's leases and lobby on a connection of their own: a lobby write or a
    # lease renewal never waits behind a table's money, nor the other way round
    side = await RedisStore.connect(
        config.redis_url,
        namespace=config.redis_namespace,
        timeout=config.store_timeout,
        role="fleet",
    )
    fleet = Fleet(side, secrets.token_hex(6), config.public_url, ttl=config.fleet_ttl)
    gap = await store.run("a persistence check", persistence_gap)
    if gap:
        logging.getLogger("stud.store").warning(
            "%s: a restart of it loses every wallet, token and meter (OPERATIONS.md)", gap
        )
    evicts = await store.run("an eviction check", eviction_risk)
    if evicts:
        logging.getLogger("stud.store").warning(
            "%s: it may drop wallets and rounds; set maxmemory-policy noeviction (OPERATIONS.md)",
            evicts,
        )
    return {"store": store, "fleet": fleet}


def _store_failed(e: StoreError) -> int:
    """Say why the store cannot be used; exit 2 for credentials Redis refuses (a setting
    to fix, as any bad setting), 1 for a Redis away (it may come back)."""
    print(f"stud-server: {e.message}", file=sys.stderr)
    return 2 if e.details.get("credentials") else 1


async def _accept_empty_store(url: str, config: Config) -> int:
    """`stud-server accept-empty-store`: the operator's word that a Redis found back
    empty is not to be restored; the processes that found it so are restarted after."""
    from server.stores.base import StoreError
    from server.stores.redis import RedisStore

    if not url:
        print(
            "stud-server: give --redis URL (or REDIS_URL, or the config's redis_url)",
            file=sys.stderr,
        )
        return 2
    from server.stores.redis_origin import DataLost

    try:  # a store that has lost nothing is left alone: there is no loss to accept
        healthy = await RedisStore.connect(url, config.redis_namespace)
    except StoreError as e:
        if not isinstance(e.__cause__, DataLost):
            return _store_failed(e)
    else:
        await healthy.close()
        print(
            f"stud-server: the store {config.redis_namespace!r} at {healthy.host}:{healthy.port}"
            f"/{healthy.db} has its data (mark {healthy.origin}): there is no loss to accept",
            file=sys.stderr,
        )
        return 1
    try:
        store = await RedisStore.connect(url, config.redis_namespace, accept_loss=True)
    except StoreError as e:
        return _store_failed(e)
    await store.close()
    print(
        f"the store {config.redis_namespace!r} at {store.host}:{store.port}/{store.db} is "
        f"taken as it is now (mark {store.origin}); restart every stud-server process on it.\n"
        "The console's operators were kept in the lost data: there are none now. Add them "
        f"again with: {_operator_add(url, config.redis_namespace)}"
    )
    return 0


def _operator_add(url: str, namespace: str) -> str:
    """The command that adds an operator to this store (its password left out)."""
    from urllib.parse import urlsplit

    given = "URL" if urlsplit(url).password else url
    env = f"STUD_REDIS_NAMESPACE={namespace} " if namespace != "stud" else ""
    return f"{env}stud-server operator add NAME --redis {given}"


def _warn_of_paytables(config: Config) -> None:
    """Log what `check-config` warns of, for the variants the config defines: it takes
    seconds of CPU and some 600 MB, so a child process works it out, beside the
    starting server (this thread waits for it), not before it."""
    from server.analysis.warnings import own_variant_warnings_in_child

    try:
        warnings = own_variant_warnings_in_child(config)
    except (OSError, subprocess.SubprocessError) as e:
        logging.getLogger("stud.config").warning("paytables not checked: %s", e)
        return
    for warning in warnings:
        logging.getLogger("stud.config").warning("%s (see stud-server check-config)", warning)


def _odds(config: Config, name: str, as_json: bool) -> int:
    """`stud-server odds`: one variant's exact figures, as text or JSON."""
    from server.analysis.odds import analyze, format_report, report_json

    variant = config.variants.get(name)
    if variant is None:
        print(
            f"stud-server: unknown variant {name!r} (have {', '.join(sorted(config.variants))})",
            file=sys.stderr,
        )
        return 2
    report = analyze(variant)
    print(json.dumps(report_json(report)) if as_json else format_report(report))
    return 0


def _rng_stats(shuffles: int, source: str, workers: int, as_json: bool) -> int:
    """`stud-server rng-stats`: 0 when both chi-square tests pass at 99%, 1 otherwise."""
    from server.analysis.rngstats import run, summary

    if shuffles < 2 or workers < 1:
        print("stud-server: rng-stats needs --shuffles >= 2 and --workers >= 1", file=sys.stderr)
        return 2
    result = run(shuffles, source, workers)
    print(json.dumps(result) if as_json else summary(result))
    return 0 if result["pass"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
