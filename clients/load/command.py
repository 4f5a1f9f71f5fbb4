"""`stud-client load`: its arguments, and the command that runs the tables or the
fan-out measure and prints its JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from clients.load.fanout import FanoutOptions, run_fanout
from clients.load.machine import raise_nofile
from clients.load.servers import FSYNC_CHOICES
from clients.load.tables import LoadOptions, run_load


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", type=int, default=10, help="tables to open (10)")
    p.add_argument("--seats", type=int, default=5, help="bot seats per table, 1-9 (5)")
    p.add_argument("--spectators", type=int, default=0, help="spectators, spread over the tables")
    p.add_argument("--seconds", type=float, default=10.0, help="measured play time (10)")
    p.add_argument(
        "--redis", help="redis://HOST:PORT/DB for the server's store, or 'spawn' for a private one"
    )
    p.add_argument("--url", help="target this running server (loopback) instead of starting one")
    p.add_argument(
        "--fanout", type=int, metavar="N", help="fan-out mode: one table, N spectators (<= 10000)"
    )
    p.add_argument("--triggers", type=int, default=30, help="fan-out: broadcasts timed (30)")
    p.add_argument("--workers", type=int, default=1, help="generator processes (1)")
    p.add_argument("--no-pin", action="store_true", help="do not pin server/generator to CPUs")
    p.add_argument("--results", type=float, default=0.3, help="showdown pause, seconds (0.3)")
    p.add_argument(
        "--stagger",
        type=float,
        help="tables start at random moments within this many seconds (default: the "
        "showdown pause, so the rounds of a paced run spread over its cycle)",
    )
    p.add_argument("--progressive", type=float, default=0.25, help="chance of a progressive bet")
    p.add_argument("--seed", type=int, default=1, help="seed of the bots' choices")
    p.add_argument(
        "--server-loop",
        choices=["default", "uvloop", "asyncio"],
        default="default",
        help="the server's event loop (default: what stud-server picks)",
    )
    p.add_argument("--no-uvloop", action="store_true", help="generator on the asyncio loop")
    p.add_argument(
        "--jackpot-push-interval",
        type=float,
        help="the server's [server] jackpot_push_interval (default: the server's default)",
    )
    p.add_argument(
        "--server-setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another [server] setting for the run, TOML value (e.g. fleet_ttl=30); repeatable",
    )
    p.add_argument("--server-log-level", default="warning", help="server log level (warning)")
    p.add_argument("--keep-server-log", default="", metavar="PATH", help="copy the server's log")
    p.add_argument(
        "--redis-fsync",
        choices=FSYNC_CHOICES,
        default="none",
        help="--redis spawn: no append-only file (none), or its appendfsync policy",
    )


def load_command(args: argparse.Namespace) -> int:
    """Run the load or the fan-out measure and print its JSON; 1 on errors or books off,
    2 on bad arguments."""
    try:
        return _load_command(args)
    except ValueError as e:
        print(f"stud-client load: {e}", file=sys.stderr)
        return 2


def _setting(text: str) -> str:
    key, eq, value = text.partition("=")
    if not eq or not key.strip().replace("_", "").isalnum() or not value.strip():
        raise ValueError(f"--server-setting wants KEY=VALUE, not {text!r}")
    return f"{key.strip()} = {value.strip()}"


def _load_command(args: argparse.Namespace) -> int:
    raise_nofile()
    if not 0 <= args.progressive <= 1:
        raise ValueError("--progressive must be in 0..1")
    if args.fanout is not None:
        fopts = FanoutOptions(
            spectators=args.fanout,
            triggers=args.triggers,
            workers=args.workers,
            pin=not args.no_pin,
            server_loop=args.server_loop,
            generator_uvloop=not args.no_uvloop,
        )
        doc = asyncio.run(run_fanout(fopts))
        print(json.dumps(doc, indent=2))
        return 1 if doc["errors"] else 0
    opts = LoadOptions(
        tables=args.tables,
        seats=args.seats,
        spectators=args.spectators,
        seconds=args.seconds,
        redis=args.redis,
        url=args.url,
        workers=args.workers,
        pin=not args.no_pin,
        results=args.results,
        stagger=args.stagger,
        progressive=args.progressive,
        seed=args.seed,
        server_loop=args.server_loop,
        generator_uvloop=not args.no_uvloop,
        log_level=args.server_log_level,
        keep_server_log=args.keep_server_log,
        redis_fsync=args.redis_fsync,
        jackpot_push_interval=args.jackpot_push_interval,
        server_settings=tuple(_setting(x) for x in args.server_setting),
    )
    doc = asyncio.run(run_load(opts))
    print(json.dumps(doc, indent=2))
    return 0 if doc["reconciled"] and not doc["errors"] else 1
