"""`stud-client`: the terminal table (play, watch) and bot players (bots).

The browser client is served by `stud-server serve` at /.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys
from collections.abc import Callable
from typing import Final, TextIO

from clients.connection import DEFAULT_URL
from clients.optimal import STRATEGIES
from protocol.messages import NAME


def _name(text: str) -> str:
    """--name as the server's rule has it (PROTOCOL.md `hello`), checked before connecting."""
    problem = NAME.problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _default_name() -> str:
    try:
        name = getpass.getuser().strip()
    except Exception:  # no user database entry (containers)
        name = ""
    return (name or "player")[:24]


async def bots_command(
    url: str,
    tables: str,
    per_table: int,
    spectators: int,
    *,
    rounds: int | None,
    seconds: float | None,
    json_out: bool = False,
    ante: int | None = None,
    progressive: float = 0.25,
    seed: int | None = None,
    seats_per_bot: int = 1,
    step_timeout: float = 60.0,
    strategy: str = "optimal",
) -> int:
    """Run the bots and print their results; exit status 1 if any bot saw an error."""
    from clients.bots import run_bots

    names = [t.strip() for t in tables.split(",") if t.strip()]
    report = await run_bots(
        url,
        names,
        per_table,
        spectators,
        rounds=rounds,
        seconds=seconds if rounds is None else None,
        ante=ante,
        progressive_probability=progressive,
        seed=seed,
        seats_per_bot=seats_per_bot,
        step_timeout=step_timeout,
        strategy=STRATEGIES[strategy],
    )
    print(report.to_json() if json_out else report.to_text())
    failed = any(b.errors for b in report.bots) or any(s.errors for s in report.spectators)
    return 1 if failed else 0


FALLBACK_HELP = (
    "another process of the same casino, tried when --url cannot be reached (may be given "
    "again; once connected, the lobby names every process that answers, standbys too)"
)


def main(argv: list[str] | None = None) -> int:
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
    parser = argparse.ArgumentParser(prog="stud-client", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play at a table in the terminal")
    play.add_argument("--url", default=DEFAULT_URL, help=f"server WebSocket URL ({DEFAULT_URL})")
    play.add_argument("--name", type=_name, default=_default_name(), help="your name at the table")
    play.add_argument("--table", help="open this table straight away instead of the lobby")
    play.add_argument("--token", help="resume the player of an earlier session (printed on exit)")
    play.add_argument("--fallback-url", action="append", default=[], help=FALLBACK_HELP)
    play.add_argument("--user", help="sign in to this account (the password is asked for)")
    play.add_argument(
        "--register",
        action="store_true",
        help="with --user: create that account first, as a new player called --name",
    )

    watch = sub.add_parser("watch", help="watch a table as a spectator")
    watch.add_argument("--url", default=DEFAULT_URL)
    watch.add_argument("--table", help="the table to watch (default: choose in the lobby)")
    watch.add_argument(
        "--name", type=_name, default="spectator", help="name the server knows you by"
    )
    watch.add_argument("--fallback-url", action="append", default=[], help=FALLBACK_HELP)

    bots = sub.add_parser("bots", help="run bot players (and spectators) at tables")
    bots.add_argument("--url", default=DEFAULT_URL)
    bots.add_argument("--tables", default="stud-1", help="comma-separated table ids")
    bots.add_argument("--per-table", type=int, default=3, help="bots per table")
    bots.add_argument("--spectators", type=int, default=0, help="spectators per table")
    stop = bots.add_mutually_exclusive_group()
    stop.add_argument("--seconds", type=float, help="play for this long (default 30)")
    stop.add_argument("--rounds", type=int, help="play this many rounds each")
    bots.add_argument("--ante", type=int, help="ante in cents (default: the table minimum)")
    bots.add_argument(
        "--progressive", type=float, default=0.25, help="chance of a progressive bet per hand"
    )
    bots.add_argument("--seats-per-bot", type=int, default=1, help="hands each bot plays")
    bots.add_argument("--seed", type=int, help="seed the bots' choices")
    bots.add_argument(
        "--step-timeout", type=float, default=60.0, help="give up a bot stuck this long (s)"
    )
    bots.add_argument(
        "--strategy",
        choices=sorted(STRATEGIES),
        default="optimal",
        help="raise-or-fold rule: the exact optimal table or the published near-optimal one",
    )
    bots.add_argument("--json", action="store_true", help="print the results as JSON")

    from clients import verify  # `verify` and `history`: checking provably fair deals

    verify.add_parsers(sub, DEFAULT_URL)

    from clients import load  # `load`: the load generator and the fan-out measure

    load.add_arguments(
        sub.add_parser("load", help="load a server with bots and spectators; print JSON")
    )

    args = parser.parse_args(argv)
    if args.command in ("verify", "history"):
        return verify.run_command(args, parser)
    if args.command == "load":
        return load.load_command(args)
    if args.command == "bots":
        if args.per_table < 0 or args.spectators < 0 or not 0 <= args.progressive <= 1:
            parser.error("counts must be >= 0 and --progressive in 0..1")
        seconds = 30.0 if args.seconds is None and args.rounds is None else args.seconds
        try:
            return asyncio.run(
                bots_command(
                    args.url,
                    args.tables,
                    args.per_table,
                    args.spectators,
                    rounds=args.rounds,
                    seconds=seconds,
                    json_out=args.json,
                    ante=args.ante,
                    progressive=args.progressive,
                    seed=args.seed,
                    seats_per_bot=args.seats_per_bot,
                    step_timeout=args.step_timeout,
                    strategy=args.strategy,
                )
            )
        except KeyboardInterrupt:
            return 130

    from clients.tui import StudApp

    token = getattr(args, "token", None)
    account: tuple[str, str] | None = None
    if args.command == "play" and args.user:
        account, token = _sign_in(args)
        if token is None:
            return 1
    elif args.command == "play" and args.register:
        parser.error("--register needs --user NAME")
    app = StudApp(args.url, args.name, table=args.table, watch=args.command == "watch", token=token)
    app.link.account = account
    app.link.known = list(args.fallback_url)
    app.run()
    if account is not None:
        print(f"Signed in as {account[0]}: sign in again with stud-client play --user {account[0]}")
    elif app.link.token and args.command == "play":
        # The token is the player's key to their wallet, seats and history: shown
        # once, on the player's own terminal, when the table is closed.
        print(
            f"Your session token: {app.link.token}\n"
            f"  resume:  stud-client play --url {app.link.url} --token {app.link.token}\n"
            f"  verify:  stud-client verify --url {app.link.url} --token {app.link.token} --last 10"
        )
    return app.return_code or 0  # 1 when the app ended on an error, not the player's q


#: tries at a new password (each one refused is said at once) before giving up
PASSWORD_TRIES: Final = 3
#: a new password's length, as the server takes it (PROTOCOL.md section 3, Accounts)
PASSWORD_CHARS: Final = (10, 128)


def new_password_problem(password: str, username: str) -> str | None:
    """Why the server would refuse `password` for a new account (`weak_password`), in its
    words, or None; never quotes it."""
    low, high = PASSWORD_CHARS
    if not low <= len(password) <= high:
        return f"a password is {low} to {high} characters, got {len(password)}"
    if password.lower() == username.lower():
        return "the password may not be the username"
    return None


def ask_password(
    user: str,
    *,
    register: bool,
    ask: Callable[[str], str] = getpass.getpass,
    err: TextIO = sys.stderr,
) -> str | None:
    """The password (never echoed): to register, one the server takes, typed twice; a
    refused one is said at once and asked for again (it was asked twice, sent, and the
    refusal ended the program), up to PASSWORD_TRIES times. None: no try was good."""
    if not register:
        return ask(f"Password for {user}: ")
    for _ in range(PASSWORD_TRIES):
        password = ask(f"Password for {user}: ")
        problem = new_password_problem(password, user)
        if problem is not None:
            print(f"stud-client: {problem}; try again", file=err)
            continue
        if ask("The same password again: ") == password:
            return password
        print("stud-client: the two passwords differ; try again", file=err)
    print(f"stud-client: no password after {PASSWORD_TRIES} tries", file=err)
    return None


def _sign_in(args: argparse.Namespace) -> tuple[tuple[str, str], str | None]:
    """Ask for the password (never echoed, never stored) and check it with the server."""
    from clients.connection import ServerError
    from clients.tui.link import sign_in

    password = ask_password(args.user, register=args.register)
    if password is None:
        return (args.user, ""), None
    try:
        token = asyncio.run(
            sign_in(args.url, args.name, args.user, password, register=args.register)
        )
    except ServerError as e:
        print(f"stud-client: {e.frame.get('message') or e.code}", file=sys.stderr)
        return (args.user, ""), None
    except OSError as e:
        print(f"stud-client: cannot reach {args.url}: {e}", file=sys.stderr)
        return (args.user, ""), None
    return (args.user, password), token


if __name__ == "__main__":
    sys.exit(main())
