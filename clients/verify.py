"""Checking provably fair deals (PROTOCOL.md §13) from what the server revealed.

The deck is recomputed with `protocol.fairness` (the same code the server deals
with), so a client trusts nothing but the commitment it saw before the deal.
Three inputs hold a revealed round: a `history` record, a whole `history`
message, and a `table` snapshot at showdown; all become a `Round`, and `check`
names every problem it finds in words (the deck, the commitment, the client
seeds), so `stud-client verify` and the terminal client report the same things.
`stud-client history` and `verify --url` fetch the rounds over the wire.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TextIO

from websockets.exceptions import InvalidURI, WebSocketException

from clients.bots import money, progressive_part
from clients.connection import ServerError, StudClient
from protocol.fairness import SEED_BYTES, commitment, dealt_hands, fair_order
from protocol.messages import HISTORY_LIMIT, TOKEN

PROOF_KEYS: Final = ("commitment", "server_seed", "client_seeds", "nonce")
HEX64: Final = re.compile(r"[0-9a-fA-F]{64}")
OWN_COMMITMENT_NOTE: Final = "checked against the proof's own commitment"
LATE_COMMITMENT_NOTE: Final = "the commitment was first seen after the cards were dealt"
OUTCOMES: Final = {
    "win": "Win",
    "lose": "Lose",
    "push": "Push",
    "fold": "Folded",
    "no_qualify": "Dealer did not qualify",
}
#: a decision, as the table and every history say it (clients/web/js/format.js)
DECISIONS: Final = {"raise": "Raised", "fold": "Folded"}
NO_PROOF: Final = "no fairness proof: this deal was not made by the provably fair shuffler"


class Unreadable(ValueError):
    """The input holds no round that can be checked (exit status 2, not 1: nothing was
    shown to be unfair)."""


@dataclass(frozen=True)
class Hand:
    seat: int  # 0-based, as on the wire
    name: str
    cards: tuple[str, ...]


@dataclass(frozen=True)
class Round:
    """What a check needs: the proof and every hand dealt, seats in seat order."""

    round_id: str
    proof: Mapping[str, Any] | None
    hands: tuple[Hand, ...]
    dealer: tuple[str, ...]


@dataclass(frozen=True)
class Verdict:
    """A round's check: fair when no problem was found; notes are caveats, not problems."""

    round_id: str
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def fair(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        """One line: "fair ✓" (with any caveat) or "NOT FAIR: <problems>"."""
        if self.fair:
            return "fair ✓" + (f" ({'; '.join(self.notes)})" if self.notes else "")
        return "NOT FAIR: " + "; ".join(self.problems)


def short(hex_text: str) -> str:
    """A hash short enough to read aloud, long enough to tell two apart by eye."""
    return f"{hex_text[:8]}…{hex_text[-6:]}" if len(hex_text) > 16 else hex_text


def _cards(value: Any, what: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise Unreadable(f'{what} must be a list of cards like ["As", "Td", ...]')
    return tuple(value)


def _round_id(doc: Mapping[str, Any], what: str) -> str:
    rid = doc.get("round_id")
    if not isinstance(rid, str) or not rid:
        raise Unreadable(f"{what} has no round_id")
    return rid


def _proof(doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    proof = doc.get("fairness")
    if proof is not None and not isinstance(proof, dict):
        raise Unreadable("fairness must be a map {commitment, server_seed, client_seeds, nonce}")
    return proof


def round_from_record(record: Mapping[str, Any]) -> Round:
    """A `history` record: its seats list only the hands dealt, each naming its seat."""
    rid = _round_id(record, "the round record")
    seats = record.get("seats")
    if not isinstance(seats, list) or not seats:
        raise Unreadable(f"round {rid}: seats must be a non-empty list of hands")
    hands = []
    for s in seats:
        if not isinstance(s, dict) or type(s.get("seat")) is not int:
            raise Unreadable(f"round {rid}: every seat needs a seat number")
        what = f"round {rid}: the cards of seat {s['seat'] + 1}"
        hands.append(Hand(s["seat"], str(s.get("name") or ""), _cards(s.get("cards"), what)))
    if len({h.seat for h in hands}) != len(hands):
        raise Unreadable(f"round {rid}: a seat appears twice")
    dealer = _cards(record.get("dealer"), f"round {rid}: the dealer's cards")
    return Round(rid, _proof(record), tuple(sorted(hands, key=lambda h: h.seat)), dealer)


def round_from_snapshot(snap: Mapping[str, Any]) -> Round:
    """A `table` snapshot at showdown: the seats that hold cards are the ones dealt."""
    phase = snap.get("phase")
    if phase != "showdown":
        fair = snap.get("fairness") or {}
        hint = (
            f" (save its commitment {fair['commitment']} and pass it as --commitment later)"
            if isinstance(fair, dict) and fair.get("commitment")
            else ""
        )
        raise Unreadable(
            f"the table snapshot is in phase {phase}: the proof is revealed at showdown{hint}"
        )
    rid = _round_id(snap, "the table snapshot")
    hands = []
    for i, s in enumerate(snap.get("seats") or []):
        if isinstance(s, dict) and s.get("cards") is not None:
            what = f"round {rid}: the cards of seat {i + 1}"
            hands.append(Hand(i, str(s.get("name") or ""), _cards(s["cards"], what)))
    if not hands:
        raise Unreadable(f"round {rid}: no seat holds cards")
    dealer = (snap.get("dealer") or {}).get("cards")
    return Round(rid, _proof(snap), tuple(hands), _cards(dealer, f"round {rid}: the dealer"))


def rounds_from(doc: Any) -> list[Round]:
    """Every round a document holds: a history message, a record, a snapshot, or a list."""
    if isinstance(doc, list):
        return [r for item in doc for r in rounds_from(item)]
    if not isinstance(doc, dict):
        raise Unreadable("expected a round record, a table snapshot or a history message")
    if doc.get("t") == "history" or ("rounds" in doc and "t" not in doc):
        rounds = doc.get("rounds")
        if not isinstance(rounds, list):
            raise Unreadable("the history message has no list of rounds")
        if not rounds:
            raise Unreadable("the history holds no rounds")
        if not all(isinstance(r, dict) for r in rounds):
            raise Unreadable("every round in the history must be a map")
        return [round_from_record(r) for r in rounds]
    if doc.get("t") == "table" or ("phase" in doc and "round_id" in doc):
        return [round_from_snapshot(doc)]
    if "round_id" in doc and "dealer" in doc:
        return [round_from_record(doc)]
    raise Unreadable("expected a round record, a table snapshot or a history message")


def check(
    rnd: Round,
    *,
    promised: str | None = None,
    before_deal: bool = True,
    my_seeds: Mapping[int, Collection[str]] | None = None,
) -> Verdict:
    """Every way the revealed proof fails to account for the deal.

    `promised` is the commitment seen before the deal (None: use the one in the
    proof, and say so). `my_seeds` maps seats of ours to the client seeds we may
    have had in effect; the proof must have used one of them, or the server
    could have ignored our seed and picked the deck alone.
    """
    proof = rnd.proof
    if proof is None:
        return Verdict(rnd.round_id, (NO_PROOF,))
    missing = [k for k in PROOF_KEYS if not isinstance(proof.get(k), str)]
    if missing:
        return Verdict(rnd.round_id, tuple(f"the proof has no {k}" for k in missing))
    problems: list[str] = []
    notes: list[str] = []
    try:
        seed = bytes.fromhex(proof["server_seed"])
    except ValueError:
        return Verdict(rnd.round_id, ("the server seed is not hex",))
    if len(seed) != SEED_BYTES:
        problems.append(f"the server seed is {len(seed)} bytes, not {SEED_BYTES}")
    if proof["nonce"] != rnd.round_id:
        problems.append(f"the nonce {proof['nonce']!r} is not the round id {rnd.round_id!r}")
    published = proof["commitment"].lower()
    actual = commitment(seed)
    if promised is None:
        notes.append(OWN_COMMITMENT_NOTE)
        if actual != published:
            problems.append(
                f"sha256(server_seed) is {short(actual)}, not the proof's commitment "
                f"({short(published)})"
            )
    else:
        promised = promised.lower()
        if not before_deal:
            notes.append(LATE_COMMITMENT_NOTE)
        if published != promised:
            problems.append(
                f"the proof's commitment {short(published)} is not the one saved before "
                f"the deal ({short(promised)})"
            )
        if actual != promised:
            problems.append(
                f"sha256(server_seed) is {short(actual)}, not the commitment saved before "
                f"the deal ({short(promised)})"
            )
    fields = proof["client_seeds"].split(",")
    if len(fields) != len(rnd.hands):
        problems.append(
            f"the client seeds {proof['client_seeds']!r} name {_count(len(fields), 'seat')}, "
            f"but {_count(len(rnd.hands), 'hand')} dealt"
        )
    else:
        for hand, used in zip(rnd.hands, fields, strict=True):
            allowed = (my_seeds or {}).get(hand.seat)
            if allowed is not None and used not in allowed:
                mine = " or ".join(repr(s) for s in sorted(allowed))
                problems.append(
                    f"seat {hand.seat + 1} was to be dealt with your client seed {mine}, "
                    f"but the proof used {used!r}"
                )
    expected = dealt_hands(
        fair_order(seed, proof["client_seeds"], proof["nonce"]), len(rnd.hands) + 1
    )
    for hand, want in zip(rnd.hands, expected, strict=False):
        if list(hand.cards) != want:
            who = f"seat {hand.seat + 1}" + (f" ({hand.name})" if hand.name else "")
            problems.append(f"{who} should hold {' '.join(want)}, not {_show(hand.cards)}")
    if list(rnd.dealer) != expected[-1]:
        problems.append(f"the dealer should hold {' '.join(expected[-1])}, not {_show(rnd.dealer)}")
    return Verdict(rnd.round_id, tuple(problems), tuple(notes))


def _count(n: int, noun: str) -> str:
    if noun == "hand":
        return f"{n} hand was" if n == 1 else f"{n} hands were"
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _show(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "no cards"


# ----- `stud-client verify` and `stud-client history` ----------------------------------


def read_document(path: str, stdin: TextIO | None = None) -> Any:
    """The JSON in `path` (`-`: standard input)."""
    try:
        if path == "-":
            text = (stdin or sys.stdin).read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        raise Unreadable(f"cannot read {path}: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise Unreadable(f"{path} is not UTF-8 text") from e
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        where = "standard input" if path == "-" else path
        raise Unreadable(f"{where} is not JSON ({e.msg} at line {e.lineno})") from e


def parse_commitments(values: Sequence[str], rounds: Sequence[Round]) -> dict[str, str]:
    """`--commitment HEX` (one round) or `--commitment ROUND_ID=HEX` (any of several)."""
    out: dict[str, str] = {}
    ids = [r.round_id for r in rounds]
    for value in values:
        rid, sep, hex_text = value.rpartition("=")
        if not HEX64.fullmatch(hex_text):
            raise Unreadable(f"--commitment {value!r}: a commitment is 64 hex digits (SHA-256)")
        if not sep:
            if len(ids) != 1:
                raise Unreadable(
                    f"the input holds {len(ids)} rounds: give --commitment ROUND_ID=HEX"
                )
            rid = ids[0]
        elif rid not in ids:
            raise Unreadable(f"--commitment names round {rid!r}, which the input does not hold")
        out[rid] = hex_text.lower()
    return out


def verify_rounds(rounds: Sequence[Round], commitments: Mapping[str, str], out: TextIO) -> int:
    """Print one verdict per round; 0 when every round is fair, 1 otherwise."""
    notes: list[str] = []
    verdicts = [check(r, promised=commitments.get(r.round_id)) for r in rounds]
    for rnd, verdict in zip(rounds, verdicts, strict=True):
        if verdict.fair:
            print(f"round {rnd.round_id}: fair", file=out)
        else:
            print(f"round {rnd.round_id}: NOT FAIR", file=out)
            for problem in verdict.problems:
                print(f"  - {problem}", file=out)
        notes.extend(n for n in verdict.notes if n not in notes)
    for note in notes:
        hint = (
            " (pass --commitment HEX to check the one you saved before the deal)"
            if note == OWN_COMMITMENT_NOTE
            else ""
        )
        print(f"note: {note}{hint}", file=out)
    return 0 if all(v.fair for v in verdicts) else 1


async def fetch_history(url: str, token: str, limit: int, timeout: float = 10.0) -> dict[str, Any]:
    """The player's `history` message, read over a fresh connection resumed with `token`.

    Resuming closes the player's other connection (one connection per player);
    the terminal client reconnects by itself.
    """
    if TOKEN.problem(token) is not None:
        raise Unreadable("the token must be 1 to 128 printable ASCII characters without spaces")
    if HISTORY_LIMIT.problem(limit) is not None:
        raise Unreadable(f"the limit must be {HISTORY_LIMIT.low} to {HISTORY_LIMIT.high}")
    try:
        client = await asyncio.wait_for(StudClient.open(url, history=False), timeout)
    except (OSError, InvalidURI, WebSocketException, TimeoutError) as e:
        raise Unreadable(f"cannot reach {url}: {e or type(e).__name__}") from e
    got: list[dict[str, Any]] = []
    client.listeners.append(lambda f: got.append(f) if f.get("t") == "history" else None)
    try:
        await asyncio.wait_for(client.hello(token=token), timeout)
        await asyncio.wait_for(client.request("history", limit=limit), timeout)
    except ServerError as e:
        if e.code == "invalid_token":
            raise Unreadable(
                "the server does not know this token (expired, or a new server)"
            ) from e
        raise Unreadable(f"the server refused: {e}") from e
    except (ConnectionError, TimeoutError) as e:
        raise Unreadable(f"the server did not answer: {e or type(e).__name__}") from e
    finally:
        await client.close()
    if not got:  # the server sends the history before its ok
        raise Unreadable("the server answered without a history")
    history = dict(got[-1])
    history["player_id"] = client.player_id  # whose history it is, for printing
    return history


def settled_at(record: Mapping[str, Any]) -> str:
    """When the round settled, local time (`time_ms`; some stores call it `settled_at`)."""
    ms = record.get("time_ms", record.get("settled_at"))
    if not isinstance(ms, int):
        return "?"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ms / 1000))


def own_hands(record: Mapping[str, Any], me: str | None) -> list[dict[str, Any]]:
    """The record's hands played by `me` (every hand when we do not know who we are)."""
    seats = [s for s in record.get("seats") or [] if isinstance(s, dict)]
    return [s for s in seats if me is None or s.get("player_id") == me]


def round_net(record: Mapping[str, Any]) -> int | None:
    """What the round did to the wallet, jackpot prizes included (balance after − before)."""
    before, after = record.get("balance_before"), record.get("balance_after")
    return after - before if isinstance(before, int) and isinstance(after, int) else None


def how_decided(seat: Mapping[str, Any]) -> str:
    """ " (left)": folded for a player who left with it undecided; " (timer)": by the
    clock; "" by the player."""
    if seat.get("left"):
        return " (left)"
    return " (timer)" if seat.get("auto") else ""


def decision_words(seat: Mapping[str, Any]) -> str:
    """A hand's decision: "Raised", "Folded", "Folded (timer)", "Folded (left)"; "-"
    for none (the history said "raised" and "folded" where the table says "Folded")."""
    words = DECISIONS.get(str(seat.get("decision")))
    return words + how_decided(seat) if words else "-"


def history_lines(record: Mapping[str, Any], me: str | None, verdict: Verdict) -> list[str]:
    """A history round in plain words, for `stud-client history`."""
    net = round_net(record)
    head = (
        f"{settled_at(record)}  {record.get('table', '?')}  {record.get('variant', '?')}  "
        f"round {record.get('round_id', '?')}  {verdict.summary()}"
    )
    lines = [head]
    for s in own_hands(record, me):
        result = s.get("result") or {}
        ante = int(s.get("ante") or 0)
        bet = f"ante {money(ante)}"
        if s.get("decision") == "raise":
            bet += f" + raise {money(2 * ante)}"
        bet += " + progressive" if s.get("progressive") else ""
        decision = decision_words(s)
        outcome = OUTCOMES.get(str(result.get("outcome")), str(result.get("outcome", "")))
        if result.get("outcome") == "fold" and s.get("decision") == "fold":
            outcome = ""  # the decision said it: "Folded (timer)  Folded -$101.00" read twice
        seat_net, side = result.get("net"), progressive_part(s)
        # the progressive's part of the net, as both clients say it: "(incl. P -$1)"
        part = f" (incl. P {money(side, sign=True).removesuffix('.00')})" if side else ""
        amount = money(seat_net, sign=True) if isinstance(seat_net, int) else ""
        lines.append(
            f"  seat {int(s.get('seat', 0)) + 1}  {_show(s.get('cards') or [])}  "
            f"{(s.get('hand') or {}).get('label', '')}  {bet}  {decision}  "
            f"{f'{outcome} ' if outcome else ''}{amount}{part}"
        )
    hand = record.get("dealer_hand") or {}
    qualifies = (
        ""
        if not hand
        else " (qualifies)"
        if hand.get("category", "HIGH_CARD") != "HIGH_CARD"
        else " (does not qualify)"
    )
    dealer = f"  dealer  {_show(record.get('dealer') or [])}  {hand.get('label', '')}{qualifies}"
    lines.append(dealer.rstrip())
    for seat, amount in sorted((record.get("jackpots") or {}).items()):
        lines.append(f"  jackpot: seat {int(seat) + 1} won {money(int(amount))} from the meter")
    if net is not None:
        lines.append(
            f"  net {money(net, sign=True)}  balance {money(record['balance_before'])} → "
            f"{money(record['balance_after'])}"
        )
    return lines


def print_history(history: Mapping[str, Any], out: TextIO) -> None:
    me = history.get("player_id")
    rounds = [r for r in history.get("rounds") or [] if isinstance(r, dict)]
    if not rounds:
        print("no rounds yet", file=out)
    for record in rounds:
        try:
            verdict = check(round_from_record(record))
        except Unreadable as e:
            verdict = Verdict(str(record.get("round_id", "?")), (str(e),))
        print(
            "\n".join(history_lines(record, me if isinstance(me, str) else None, verdict)), file=out
        )


async def history_command(url: str, token: str, limit: int, as_json: bool) -> int:
    """`stud-client history`: 0 on success, 2 when the history cannot be fetched."""
    try:
        history = await fetch_history(url, token, limit)
    except Unreadable as e:
        print(f"stud-client history: {e}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(history, indent=2, ensure_ascii=False))
    else:
        print_history(history, sys.stdout)
    return 0


def verify_command(
    path: str | None,
    commitments: Sequence[str],
    *,
    url: str | None = None,
    token: str | None = None,
    last: int = 1,
) -> int:
    """`stud-client verify`: 0 when every round is fair, 1 when any is not, 2 on bad input.
    Only fetching (`url`) needs an event loop, so a file is checked from anywhere."""
    try:
        if path is not None:
            doc = read_document(path)
        elif url is not None and token is not None:
            doc = asyncio.run(fetch_history(url, token, last))
        else:
            raise Unreadable("give a ROUND_RECORD file, or --url and --token")
        rounds = rounds_from(doc)
        promised = parse_commitments(commitments, rounds)
    except Unreadable as e:
        print(f"stud-client verify: {e}", file=sys.stderr)
        return 2
    return verify_rounds(rounds, promised, sys.stdout)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser], default_url: str) -> None:
    """The `verify` and `history` subcommands of `stud-client`."""
    verify = sub.add_parser(
        "verify",
        help="check provably fair deals from a round record, a showdown snapshot or a history",
        description="Recompute each round's deck from its revealed proof (PROTOCOL.md §13) and "
        "check it against the commitment and the cards dealt. Exit 0: every round is fair; "
        "1: some round is not; 2: the input could not be read.",
    )
    verify.add_argument(
        "record",
        nargs="?",
        metavar="ROUND_RECORD",
        help="JSON file: a history round record, a table snapshot at showdown, or a whole "
        "history message (- reads standard input)",
    )
    verify.add_argument(
        "--commitment",
        action="append",
        default=[],
        metavar="[ROUND_ID=]HEX",
        help="the commitment you saved before the deal (default: the one in the record)",
    )
    verify.add_argument("--url", help="fetch the rounds from this server instead of a file")
    verify.add_argument("--token", help="your session token (with --url)")
    verify.add_argument(
        "--last", type=int, default=1, help="with --url: verify your last N rounds (default 1)"
    )
    verify.set_defaults(verify_parser=verify)
    history = sub.add_parser(
        "history",
        help="print your last rounds (resumes your session: your other connection is closed)",
    )
    history.add_argument("--url", default=default_url, help=f"server WebSocket URL ({default_url})")
    history.add_argument("--token", required=True, help="your session token")
    history.add_argument("--limit", type=int, default=HISTORY_LIMIT.high, help="rounds, 1..50")
    history.add_argument(
        "--json",
        action="store_true",
        help="print the history message as JSON (with your player_id), to save for verify",
    )


def run_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run `verify` or `history` from parsed arguments; usage errors exit 2 via argparse."""
    if args.command == "history":
        return asyncio.run(history_command(args.url, args.token, args.limit, args.json))
    usage: argparse.ArgumentParser = getattr(args, "verify_parser", parser)
    if (args.record is None) == (args.url is None):
        usage.error("give either ROUND_RECORD or --url (with --token)")
    if args.url is not None and args.token is None:
        usage.error("--url needs --token")
    if args.url is None and args.last != 1:
        usage.error("--last goes with --url")
    return verify_command(
        args.record, args.commitment, url=args.url, token=args.token, last=args.last
    )
