"""A table's paytables in the terminal, from its lobby row (PROTOCOL.md `lobby`): what
a winning raise pays, what the progressive bet pays, and whether a folded hand still
collects it; shown before the player sits, as the browser's lobby shows them."""

from __future__ import annotations

from typing import Final

from rich.cells import cell_len
from rich.markup import escape
from rich.text import Text

from clients.bots import money
from clients.tui.render import Frame, plain_name, short_money

#: the gap between the two paytables side by side
GAP: Final = 4


def prize_words(row: Frame, meter: int | None) -> str:
    """A progressive prize: "10% of jackpot ($100.00)" (what it is worth now), "$500"."""
    if row.get("percent_bp") is not None:
        bp = int(row["percent_bp"])
        words = f"{bp / 100:g}% of jackpot"
        return words if meter is None else f"{words} ({money(meter * bp // 10_000)})"
    if row.get("fixed_cents") is not None:
        return short_money(int(row["fixed_cents"]))
    return str(row.get("text", ""))


def stake_of(row: Frame) -> int:
    """The table's progressive stake (cents), else its variant's."""
    variant = row.get("variant") or {}
    return int(row.get("progressive_stake") or variant.get("progressive_stake_cents") or 0)


def limits_words(row: Frame) -> str:
    """ "ante $1 – $100 · progressive $1 a hand": a table's limits, the stake among them."""
    ante = f"ante {short_money(int(row['min_ante']))} – {short_money(int(row['max_ante']))}"
    return f"{ante} · progressive {short_money(stake_of(row))} a hand"


def paytable_text(row: Frame, meter: int | None, width: int | None = None) -> Text:
    """The table's limits and paytables: side by side where `width` has room for both,
    else one under the other."""
    variant = row.get("variant") or {}
    title = plain_name(str(row.get("title") or row.get("id", "")))
    game = str(variant.get("title") or variant.get("name", ""))
    raises = [
        (str(r.get("label", "")), str(r.get("odds", "")))
        for r in variant.get("raise_paytable") or []
        if r.get("category") != "HIGH_CARD"  # never beats a qualifying dealer: pays nothing
    ]
    prizes = [
        (str(r.get("label", "")), prize_words(r, meter)) for r in variant.get("progressive") or []
    ]
    left = ["Raise pays", *(f"{label:<16} {odds}" for label, odds in raises)]
    right = ["Progressive pays", *(f"{label:<16} {words}" for label, words in prizes)]
    cells = max((cell_len(line) for line in left), default=0)
    together = max((cell_len(line) for line in right), default=0) + cells + GAP
    if width is None or together <= width:
        rows = [
            f"{a:<{cells}}{' ' * GAP}{b}".rstrip()
            for a, b in zip(
                left + [""] * (len(right) - len(left)),
                right + [""] * (len(left) - len(right)),
                strict=True,
            )
        ]
    else:
        rows = [*left, "", *right]
    collects = variant.get("folded_collects_progressive")
    fold = (
        "A folded hand still collects its progressive prize."
        if collects
        else "A folded hand collects no progressive prize."
        if collects is not None
        else ""
    )
    lines = [
        f"[b]{escape(title)}[/] · {escape(game)}",
        escape(limits_words(row)) + " · a raise is twice the ante",
        "The dealer needs Ace-King or better; if not, the ante pays 1:1 and the raise comes back.",
        "",
        *(escape(r) for r in rows),
        "",
        fold,
    ]
    return Text.from_markup("\n".join(lines).rstrip())
