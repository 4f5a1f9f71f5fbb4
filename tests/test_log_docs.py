"""Every warning and error the server can log is in OPERATIONS.md's Logs table.

An operator paged by a WARNING line looks it up there; a line the guide does not
name (an outside check found several) leaves them reading the source. The server's
own calls are found in its syntax tree: a logger's `warning`, `error`, `critical`
or `exception`, a `log(level, ...)` or a room's `_log(message, level)` at WARNING
or above, and a retry loop's `failed(cause, message)` where its log is a warning's.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "OPERATIONS.md"

#: %-placeholders of a logging call's message.
PLACEHOLDER = re.compile(r"%(?:\.\d+)?[sdrf]")

#: Messages that open with a value, with the guide's words for what they carry.
OPENING_WITH_A_VALUE = {
    "%s": "server.host '0.0.0.0' and no public_url",  # check-config's setting warnings
    "%s failed: %s": "lease renewal failed: ...",  # a fleet heartbeat's named step
    "%s (see stud-server check-config)": "TABLE: variant V gives the player an edge",
}

#: Words enough to find a message's row by (shorter openings take the next words).
ENOUGH = 8

WARNING_CALLS = {"warning", "error", "critical", "exception"}
LOUD_LEVELS = {"WARNING", "ERROR", "CRITICAL"}


def logs_section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text.split("\n## Logs\n", 1)[1].split("\n## ", 1)[0]


def _text(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _loud(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in LOUD_LEVELS


def _retry_logs_loud(tree: ast.Module) -> bool:
    """Whether the module's RetryLogs log at WARNING or above (one level each here)."""
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "RetryLog"
        and len(n.args) > 1
        and _loud(n.args[1])
        for n in ast.walk(tree)
    )


def loud_messages() -> Iterator[tuple[str, str]]:
    """(where, message) of every warning or error the server's code logs."""
    for path in sorted((ROOT / "server").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        loud_retries = _retry_logs_loud(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            name, args, message = node.func.attr, node.args, None
            if name in WARNING_CALLS and args:
                message = _text(args[0])
            elif name == "log" and len(args) > 1 and _loud(args[0]):
                message = _text(args[1])
            elif name == "_log" and len(args) > 1 and _loud(args[1]):
                message = _text(args[0])
            elif name == "failed" and loud_retries and len(args) > 1:
                message = _text(args[1])
            if message is not None:
                yield f"{path.relative_to(ROOT)}:{node.lineno}", message


def key_words(message: str) -> str:
    """What the guide must quote of a message: its opening words, up to a value or
    to what follows a colon or a bracket (the guide's rows say those in short)."""
    if message in OPENING_WITH_A_VALUE:
        return OPENING_WITH_A_VALUE[message]
    for part in PLACEHOLDER.split(message):
        words = re.split(r": | \(|; ", part.strip(": "), maxsplit=1)[0].strip()
        if len(words) >= ENOUGH:
            return words
    raise AssertionError(f"no words to find {message!r} by: add it to OPENING_WITH_A_VALUE")


def test_the_calls_are_found() -> None:
    """The walk sees each kind of call (else the test below would pass on nothing)."""
    found = {message for _, message in loud_messages()}
    assert "store write in doubt; repeating it with the same operation id" in found  # warning
    assert "a background task failed" in found  # error
    assert "table suspended" in found  # a room's _log at WARNING
    assert "meter not read: %s" in found  # a RetryLog's failed
    assert "round settled" not in found  # info


def test_every_warning_and_error_is_in_the_guide() -> None:
    section = logs_section()
    missing = [
        f"{where}: {message!r}"
        for where, message in loud_messages()
        if key_words(message) not in section
    ]
    assert not missing, "not in OPERATIONS.md's Logs table:\n" + "\n".join(missing)
