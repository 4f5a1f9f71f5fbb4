"""The Lua scripts a Redis store loads: each with the shared helpers, and `batch`."""

from __future__ import annotations

from importlib import resources

SCRIPTS = (
    "create_player",
    "wallets",
    "buy_chips",
    "bet",
    "apply",
    "abandon",
    "claim",
    "release",
    "ensure_meter",
    "meters",
    "settle",
    "void",
    "recover",
    "register",
    "token",
    "set_password",
    "fail",
)

#: Scripts whose calls of one event-loop turn go to Redis together, in `batch.lua`:
#: the per-seat writes (antes, raises, folds) that many players send at once, and the
#: settlements of the rounds those writes end.
BATCHED = ("bet", "apply", "settle")


def script_sources() -> dict[str, str]:
    """Each script with the shared helpers prepended (read next to this module); and
    `batch`, which holds the BATCHED scripts as functions of their request and text."""
    root = resources.files("server.stores") / "scripts"
    lib = (root / "_lib.lua").read_text(encoding="utf-8")
    body = {name: (root / f"{name}.lua").read_text(encoding="utf-8") for name in SCRIPTS}
    sources = {name: with_age(lib, name, body[name]) for name in SCRIPTS}
    wrapped = "".join(
        f"\n-- {name}.lua\nBATCHED['{name}'] = function(REQ, TEXT)\n{body[name]}\nend\n"
        for name in BATCHED
    )
    batch = (root / "batch.lua").read_text(encoding="utf-8")
    sources["batch"] = with_age(f"{lib}\nlocal BATCHED = {{}}\n{wrapped}", "batch", batch)
    return sources


def with_age(head: str, name: str, body: str) -> str:
    """The script's body, after `head` (the helpers), as a function whose reply goes out
    through `aged` (_lib.lua): a write that succeeds bumps the store's age (KEYS[1])
    and says it."""
    return f"{head}\n-- {name}.lua\nlocal function main()\n{body}\nend\nreturn aged(main())\n"
