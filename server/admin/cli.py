"""`stud-server operator add|list|remove`: the console's operators.

Where they go: with `--redis URL` (or `REDIS_URL`, or the config's
`redis_url`) into Redis, which every process of the fleet reads; else into the
operators file (`--file`, or the config's `[admin] operators_file`), which a
server on the memory store loads at start and whenever it changes. The
password is asked twice (never echoed), or read from the first line of stdin
with `--password-stdin`; it is hashed with argon2id with the `[accounts]`
parameters, as players' passwords are.

`--role` gives the operator's role: `admin` (every act; the default for a new
operator) or `viewer` (reads only). `--replace` without `--role` keeps the role
the operator had, so a new password never makes a viewer an admin.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sys
import time
import warnings
from dataclasses import replace
from typing import Any

from server.accounts import password_problem
from server.admin.operators import read_file, valid_name, write_file
from server.config import Config
from server.passwords import Passwords
from server.stores.admin import ADMIN, ROLES, Operator, fold_operator
from server.stores.base import StoreError


def add_parser(sub: Any) -> None:
    op = sub.add_parser("operator", help="operator console accounts: add, list, remove")
    verbs = op.add_subparsers(dest="verb", required=True)
    for verb, text in (
        ("add", "add an operator (or with --replace, set a new password and/or role)"),
        ("list", "list the operators"),
        ("remove", "remove an operator and revoke its tokens"),
    ):
        p = verbs.add_parser(verb, help=text)
        if verb != "list":
            p.add_argument("name", help="1-32 of A-Z a-z 0-9 _ . -")
        p.add_argument("--config", help="TOML config file ([admin] operators_file, redis_url)")
        p.add_argument("--redis", help="redis://HOST:PORT/DB: the fleet's store (env REDIS_URL)")
        p.add_argument("--file", help="the operators file (for the memory store)")
        if verb == "add":
            p.add_argument(
                "--password-stdin", action="store_true", help="read the password from stdin"
            )
            p.add_argument("--replace", action="store_true", help="replace an existing one")
            p.add_argument(
                "--role",
                choices=ROLES,
                help="admin: every act (a new operator's default); viewer: reads only, no act"
                " (--replace without it keeps the role)",
            )


def run(args: argparse.Namespace, config: Config) -> int:
    if args.redis and args.file:
        return _fail(
            "give --redis (the fleet's store) or --file (the memory store's file), not both:"
            " a process on Redis never reads the file"
        )
    if args.file and config.redis_url and args.verb != "list":
        print(
            "stud-server: warning: REDIS_URL is set, and a process on Redis never reads this"
            " file: give --redis to change the fleet's operators",
            file=sys.stderr,
        )
    if args.redis:
        config = replace(config, redis_url=args.redis)
    path = args.file or ("" if config.redis_url else config.admin.operators_file)
    if not path and not config.redis_url:
        return _fail(
            "no store for operators: give --redis (or REDIS_URL) for a fleet, or --file "
            "(or [admin] operators_file) for the memory store"
        )
    if args.verb != "list" and not valid_name(args.name):
        return _fail(f"an operator name is 1-32 of A-Z a-z 0-9 _ . -, not {args.name!r}")
    password = ""
    if args.verb == "add":
        password = _password(args.name, args.password_stdin)
        if not password:
            return 2
    try:
        return asyncio.run(_run(args, config, path, password))
    except (StoreError, ValueError, OSError) as e:
        return _fail(getattr(e, "message", None) or str(e))


async def _run(args: argparse.Namespace, config: Config, path: str, password: str) -> int:
    hashed = ""
    if args.verb == "add":
        a = config.accounts
        passwords = Passwords(
            time_cost=a.time_cost, memory_cost=a.memory_cost, parallelism=a.parallelism
        )
        try:
            hashed = await passwords.hash(password)
        finally:
            passwords.close()
    now = int(time.time() * 1000)
    if path:
        return _on_file(args, path, hashed, now)
    from server.stores.admin_redis import RedisAdmin
    from server.stores.redis import RedisStore

    store = await RedisStore.connect(config.redis_url, namespace=config.redis_namespace)
    try:
        admin = RedisAdmin(store)
        if args.verb == "list":
            return _list(await admin.list_operators(), f"in {config.redis_namespace!r}")
        if args.verb == "remove":
            if not await admin.remove_operator(args.name):
                return _fail(f"no operator {args.name!r}")
            print(f"removed operator {args.name}")
            return 0
        held = await admin.get_operator(args.name) if args.replace else None
        since = held.created_ms if held is not None else now  # a new password: still added then
        role = _role(args, held)
        if not await admin.put_operator(
            args.name, hashed, replace=args.replace, now_ms=since, role=role
        ):
            return _fail(f"operator {args.name!r} exists: --replace to set a new password")
        done = "operator {}: password replaced{}" if held else "operator {} added{}"
        print(done.format(args.name, _role_said(role, held)))
        return 0
    finally:
        await store.close()


def _on_file(args: argparse.Namespace, path: str, hashed: str, now: int) -> int:
    operators = {fold_operator(o.name): o for o in read_file(path)}
    if args.verb == "list":
        return _list(list(operators.values()), f"in {path}")
    folded = fold_operator(args.name)
    if args.verb == "remove":
        if operators.pop(folded, None) is None:
            return _fail(f"no operator {args.name!r} in {path}")
        write_file(path, list(operators.values()))
        print(f"removed operator {args.name} from {path}")
        return 0
    if folded in operators and not args.replace:
        return _fail(f"operator {args.name!r} exists: --replace to set a new password")
    held = operators.get(folded)  # a new password: the operator was still added then
    role = _role(args, held)
    operators[folded] = Operator(args.name, hashed, held.created_ms if held else now, role)
    write_file(path, list(operators.values()))
    done = "operator {}: password replaced in {}{}" if held else "operator {} added to {}{}"
    print(done.format(args.name, path, _role_said(role, held)))
    return 0


def _role(args: argparse.Namespace, held: Operator | None) -> str:
    """The role asked, else the one held (a new password keeps it), else admin."""
    role: str = args.role or (held.role if held is not None else ADMIN)
    return role


def _role_said(role: str, held: Operator | None) -> str:
    """Nothing for an admin as before; a viewer, or a role changed, is said."""
    if held is not None and held.role != role:
        return f", role {role} (was {held.role})"
    if role == ADMIN:
        return ""
    return f" ({role})" if held is not None else f" as {role}"


def _password(name: str, from_stdin: bool) -> str:
    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        try:
            with warnings.catch_warnings():  # getpass would read stdin, echoing, instead
                warnings.simplefilter("error", getpass.GetPassWarning)
                password = getpass.getpass(f"password for operator {name}: ")
                again = getpass.getpass("again: ")
        except getpass.GetPassWarning:
            _fail(
                "a password is needed and there is no terminal to ask it on:"
                " give it on stdin with --password-stdin"
            )
            return ""
        except EOFError:
            print(file=sys.stderr)
            _fail("no password given (end of input); or give it with --password-stdin")
            return ""
        if again != password:
            _fail("the passwords differ")
            return ""
    problem = password_problem(password, name)
    if problem is not None:
        _fail(problem)
        return ""
    return password


def _list(operators: list[Operator], where: str) -> int:
    """One line an operator on stdout; none said on stderr (stdout stays a list)."""
    for o in operators:
        print(_line(o))
    if not operators:
        print(f"no operators {where}: stud-server operator add NAME", file=sys.stderr)
    return 0


def _line(o: Operator) -> str:
    since = time.strftime("%Y-%m-%d %H:%M", time.gmtime(o.created_ms / 1000))
    return f"{o.name}\t{o.role}\tadded {since} UTC"


def _fail(message: str) -> int:
    print(f"stud-server: {message}", file=sys.stderr)
    return 2
