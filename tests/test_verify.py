"""`stud-client verify` and `stud-client history`: live rounds, tampered proofs, bad input.

The live tests play a round on a server with its default provably fair shuffler
and read the proof back over the wire, as a player would. The CLI runs in a
thread (it starts its own event loop) while the server runs in the test's loop.
"""

from __future__ import annotations

import asyncio
import copy
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text

from clients.cli import main
from clients.connection import StudClient
from clients.tui.render import OUTCOMES, history_hand
from clients.verify import NO_PROOF, check, history_lines, round_from_record
from tests.conftest import ClientFactory, ServerFactory

SEED_HEX = bytes(range(32)).hex()
COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
NONCE = "casino-1-00112233aabbccdd"
OTHER_COMMITMENT = "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"  # of 32 zeros


def worked_example() -> dict[str, Any]:
    """PROTOCOL.md §13's worked example as a history record: two seats, then the dealer."""
    return {
        "round_id": NONCE,
        "table": "casino-1",
        "variant": "stud-poker",
        "seats": [
            {"seat": 0, "name": "ann", "cards": ["Th", "Tc", "2s", "3s", "Kd"]},
            {"seat": 1, "name": "bob", "cards": ["8d", "As", "5c", "3h", "Jh"]},
        ],
        "dealer": ["Ad", "7c", "4c", "9c", "7s"],
        "fairness": {
            "commitment": COMMITMENT,
            "server_seed": SEED_HEX,
            "client_seeds": "lucky-7,",
            "nonce": NONCE,
        },
    }


def run(
    capsys: pytest.CaptureFixture[str], *argv: str, stdin: str | None = None
) -> tuple[int, str, str]:
    """`stud-client ARGV` in this thread: (exit status, stdout, stderr)."""
    if stdin is not None:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("sys.stdin", io.StringIO(stdin))
            code = main(list(argv))
    else:
        code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def run_async(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`stud-client ARGV` in a worker thread, so this loop keeps serving the server."""
    code = await asyncio.wait_for(asyncio.to_thread(main, list(argv)), 30)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, doc: Any, name: str = "round.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def problems_of(out: str) -> list[str]:
    return [line.removeprefix("  - ") for line in out.splitlines() if line.startswith("  - ")]


async def play_a_round(
    server: Any, connect: ClientFactory
) -> tuple[StudClient, dict[str, Any], str]:
    """Ann (with a client seed) and Bob play one round at alpha; (ann, the showdown
    snapshot, the commitment Ann saw while betting was open)."""
    ann, bob = await connect(server, "ann"), await connect(server, "bob")
    await ann.request("sit", table="alpha")
    await bob.request("sit", table="alpha")
    await ann.request("seed", table="alpha", client_seed="ann-picks")
    await ann.request("ante", table="alpha", seat=0, amount=100)
    await bob.request("ante", table="alpha", seat=1, amount=200)
    betting = await ann.wait_table("alpha", lambda s: s["phase"] == "betting")
    promised = str(betting["fairness"]["commitment"])
    await ann.request("deal", table="alpha")
    await bob.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
    await ann.request("raise", table="alpha", seat=0)
    await bob.request("fold", table="alpha", seat=1)
    snap = await ann.wait_table("alpha", lambda s: s["phase"] == "showdown")
    return ann, snap, promised


async def test_a_live_round_fetched_saved_and_verified(
    make_server: ServerFactory,
    connect: ClientFactory,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    server = await make_server()  # the default shuffler deals provably fair decks
    ann, snap, promised = await play_a_round(server, connect)
    rid, url = snap["round_id"], f"ws://127.0.0.1:{server.port}/ws"

    # history --json is the player's history message, ready to save and verify
    code, out, err = await run_async(
        capsys, "history", "--url", url, "--token", ann.token, "--json"
    )
    assert code == 0, err
    history = json.loads(out)
    assert history["t"] == "history" and len(history["rounds"]) == 1
    record = history["rounds"][0]
    assert record["round_id"] == rid and record["fairness"]["client_seeds"] == "ann-picks,"
    assert record["fairness"]["commitment"] == promised
    saved = write(tmp_path, history)

    code, out, _ = run(capsys, "verify", saved)
    assert (code, out.splitlines()) == (
        0,
        [
            f"round {rid}: fair",
            "note: checked against the proof's own commitment "
            "(pass --commitment HEX to check the one you saved before the deal)",
        ],
    )
    # with the commitment saved before the deal there is nothing to caveat
    code, out, _ = run(capsys, "verify", saved, "--commitment", promised)
    assert (code, out) == (0, f"round {rid}: fair\n")
    # one record, and the showdown snapshot itself, verify the same way
    assert run(capsys, "verify", write(tmp_path, record, "one.json"))[0] == 0
    code, out, _ = run(
        capsys, "verify", write(tmp_path, snap, "snap.json"), "--commitment", promised
    )
    assert (code, out) == (0, f"round {rid}: fair\n")

    # history in words: the player's hand, the dealer, the money, the check
    code, out, _ = await run_async(capsys, "history", "--url", url, "--token", ann.token)
    assert code == 0
    lines = out.splitlines()
    assert rid in lines[0] and "alpha" in lines[0] and "fair ✓" in lines[0]
    assert lines[1].startswith("  seat 1  " + " ".join(snap["seats"][0]["cards"]))
    dealer = snap["dealer"]
    assert lines[2].startswith(f"  dealer  {' '.join(dealer['cards'])}  {dealer['hand']['label']}")
    assert len([line for line in lines if line.startswith("  seat ")]) == 1  # Ann's own hand
    assert "balance $1,000.00 → " in out

    # fetch and verify in one go
    code, out, _ = await run_async(
        capsys, "verify", "--url", url, "--token", ann.token, "--last", "5"
    )
    assert code == 0 and out.startswith(f"round {rid}: fair\n")

    # a card swapped between the two hands of the live record is caught, by seat
    tampered = copy.deepcopy(record)
    a, b = tampered["seats"][0]["cards"], tampered["seats"][1]["cards"]
    a[0], b[0] = b[0], a[0]
    code, out, _ = run(capsys, "verify", write(tmp_path, tampered, "bad.json"))
    assert code == 1 and out.startswith(f"round {rid}: NOT FAIR\n")
    assert [p.split(" should hold")[0] for p in problems_of(out)] == [
        "seat 1 (ann)",
        "seat 2 (bob)",
    ]


async def test_fetching_with_an_unknown_token_or_no_server_exits_2(
    make_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = await make_server()
    url = f"ws://127.0.0.1:{server.port}/ws"
    code, _, err = await run_async(capsys, "verify", "--url", url, "--token", "no-such-token")
    assert code == 2 and "does not know this token" in err
    await server.stop(grace=0)
    code, _, err = await run_async(capsys, "history", "--url", url, "--token", "t")
    assert code == 2 and err.startswith(f"stud-client history: cannot reach {url}")


def test_the_worked_example_of_the_protocol_document_is_fair(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(
        capsys, "verify", write(tmp_path, worked_example()), "--commitment", COMMITMENT
    )
    assert (code, out) == (0, f"round {NONCE}: fair\n")
    # from standard input, as a one-round history message
    history = json.dumps({"t": "history", "rounds": [worked_example()]})
    code, out, _ = run(capsys, "verify", "-", stdin=history)
    assert code == 0 and out.startswith(f"round {NONCE}: fair\n")


Record = dict[str, Any]


def other_server_seed(r: Record) -> None:
    r["fairness"]["server_seed"] = bytes(range(1, 33)).hex()


def swap_a_card_with_the_dealer(r: Record) -> None:
    mine, dealer = r["seats"][0]["cards"], r["dealer"]
    mine[4], dealer[4] = dealer[4], mine[4]


def untouched(r: Record) -> None:
    pass


def drop_a_client_seed(r: Record) -> None:
    r["fairness"]["client_seeds"] = "lucky-7"


def no_proof(r: Record) -> None:
    r["fairness"] = None


@pytest.mark.parametrize(
    ("tamper", "extra", "problems"),
    [
        pytest.param(
            other_server_seed,
            [],
            [
                "sha256(server_seed) is ae216c2e…a612c9, not the proof's commitment "
                "(630dcd29…d710dd)",
                "seat 1 (ann) should hold Ks 5h 8c As Ac, not Th Tc 2s 3s Kd",
                "seat 2 (bob) should hold Kh Jh Js 8d 4h, not 8d As 5c 3h Jh",
                "the dealer should hold Ah Th 6h 8h 5s, not Ad 7c 4c 9c 7s",
            ],
            id="changed-server-seed",
        ),
        pytest.param(
            swap_a_card_with_the_dealer,
            [],
            [
                "seat 1 (ann) should hold Th Tc 2s 3s Kd, not Th Tc 2s 3s 7s",
                "the dealer should hold Ad 7c 4c 9c 7s, not Ad 7c 4c 9c Kd",
            ],
            id="swapped-card",
        ),
        pytest.param(
            untouched,
            ["--commitment", OTHER_COMMITMENT],
            [
                "the proof's commitment 630dcd29…d710dd is not the one saved before the deal "
                "(66687aad…5f2925)",
                "sha256(server_seed) is 630dcd29…d710dd, not the commitment saved before the "
                "deal (66687aad…5f2925)",
            ],
            id="different-commitment",
        ),
        pytest.param(
            drop_a_client_seed,
            [],
            [
                "the client seeds 'lucky-7' name 1 seat, but 2 hands were dealt",
                "seat 1 (ann) should hold 6c 8d 5d 9c 2d, not Th Tc 2s 3s Kd",
                "seat 2 (bob) should hold 7s 8h Ks 6s 4c, not 8d As 5c 3h Jh",
                "the dealer should hold 8c 5h 5s 7d 9s, not Ad 7c 4c 9c 7s",
            ],
            id="dropped-client-seed",
        ),
        pytest.param(no_proof, [], [NO_PROOF], id="no-proof-stacked-deck"),
    ],
)
def test_a_tampered_record_names_each_problem_and_exits_1(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    tamper: Callable[[Record], None],
    extra: list[str],
    problems: list[str],
) -> None:
    record = worked_example()
    tamper(record)
    code, out, _ = run(capsys, "verify", write(tmp_path, record), *extra)
    assert code == 1
    assert out.splitlines()[0] == f"round {NONCE}: NOT FAIR"
    assert problems_of(out) == problems


def test_a_history_is_verified_round_by_round(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good, bad = worked_example(), worked_example()
    bad["round_id"] = bad["fairness"]["nonce"] = "casino-1-ffff"
    path = write(tmp_path, {"t": "history", "rounds": [bad, good]})
    code, out, _ = run(capsys, "verify", path, "--commitment", f"{NONCE}={COMMITMENT}")
    assert code == 1
    assert out.splitlines()[0] == "round casino-1-ffff: NOT FAIR"
    assert f"round {NONCE}: fair" in out.splitlines()
    # one bare commitment cannot say which of two rounds it is for
    code, _, err = run(capsys, "verify", path, "--commitment", COMMITMENT)
    assert code == 2 and "give --commitment ROUND_ID=HEX" in err


def test_the_terminal_check_insists_on_the_players_own_client_seed() -> None:
    rnd = round_from_record(worked_example())
    assert check(rnd, my_seeds={0: {"lucky-7"}}).fair
    verdict = check(rnd, promised=COMMITMENT, my_seeds={1: {"mine"}})
    assert verdict.problems == (
        "seat 2 was to be dealt with your client seed 'mine', but the proof used ''",
    )
    assert verdict.summary().startswith("NOT FAIR: seat 2 was to be dealt")
    assert check(rnd, promised=COMMITMENT, before_deal=False).summary() == (
        "fair ✓ (the commitment was first seen after the cards were dealt)"
    )


@pytest.mark.parametrize(
    ("content", "argv", "message"),
    [
        (
            "{not json",
            [],
            "is not JSON (Expecting property name enclosed in double quotes at line 1)",
        ),
        ("[1, 2]", [], "expected a round record, a table snapshot or a history message"),
        ('{"t": "history", "rounds": []}', [], "the history holds no rounds"),
        (
            json.dumps({**worked_example(), "dealer": "Ad 7c 4c 9c 7s"}),
            [],
            f"round {NONCE}: the dealer's cards must be a list of cards",
        ),
        (
            json.dumps(
                {
                    "t": "table",
                    "phase": "betting",
                    "round_id": "alpha-1",
                    "fairness": {"commitment": COMMITMENT, "nonce": "alpha-1"},
                }
            ),
            [],
            f"the proof is revealed at showdown (save its commitment {COMMITMENT}",
        ),
        (json.dumps(worked_example()), ["--commitment", "abc"], "a commitment is 64 hex digits"),
        (
            json.dumps(worked_example()),
            ["--commitment", f"other-round={COMMITMENT}"],
            "--commitment names round 'other-round', which the input does not hold",
        ),
    ],
)
def test_unreadable_input_exits_2_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, argv: list[str], message: str
) -> None:
    path = tmp_path / "in.json"
    path.write_text(content)
    code, out, err = run(capsys, "verify", str(path), *argv)
    assert (code, out) == (2, "")
    assert err.startswith("stud-client verify: ") and message in err


def test_missing_files_and_missing_arguments_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "verify", str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in err and "No such file" in err
    code, _, err = run(capsys, "verify", "-", stdin="")
    assert code == 2 and "standard input is not JSON" in err
    for argv in (["verify"], ["verify", "x.json", "--url", "ws://h/ws"], ["verify", "--url", "u"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2


def test_the_history_says_a_dealer_not_qualifying_in_the_terminal_s_words() -> None:
    """`stud-client history` said "Dealer doesn't qualify" where the terminal table
    says "Dealer did not qualify": one wording for one outcome."""
    record = worked_example()
    record["seats"][0].update(
        player_id="p1", ante=100, decision="raise", result={"outcome": "no_qualify", "net": 100}
    )
    lines = history_lines(record, "p1", check(round_from_record(record)))
    seat = next(line for line in lines if line.lstrip().startswith("seat 1"))
    assert OUTCOMES["no_qualify"] in seat and "doesn't" not in seat, seat


def test_the_history_says_a_raised_hand_s_whole_stake() -> None:
    """`stud-client history` said "ante $1.00" for a hand that raised $2 more, where the
    table and the terminal's History say "$1+$2"."""
    record = worked_example()
    record["seats"][0].update(
        player_id="p1", ante=100, decision="raise", result={"outcome": "win", "net": 300}
    )
    lines = history_lines(record, "p1", check(round_from_record(record)))
    seat = next(line for line in lines if line.lstrip().startswith("seat 1"))
    assert "ante $1.00 + raise $2.00" in seat, seat


@pytest.mark.parametrize(
    ("decided", "outcome", "words"),
    [
        ({"decision": "raise"}, "win", "Raised"),
        ({"decision": "fold"}, "fold", "Folded"),
        ({"decision": "fold", "auto": True}, "fold", "Folded (timer)"),
        ({"decision": "fold", "auto": True, "left": True}, "fold", "Folded (left)"),
    ],
)
def test_a_decision_reads_the_same_in_every_history_and_at_the_table(
    decided: dict[str, Any], outcome: str, words: str
) -> None:
    """`stud-client history` said "raised", "folded" and a fold's outcome "Fold" where the
    table and the clients' History say "Raised" and "Folded"; the terminal's History said
    "folded" beside its own "Folded", and the operator console the wire's "fold". One
    wording for one decision."""
    record = worked_example()
    seat = record["seats"][0]
    seat.update(player_id="p1", ante=100, result={"outcome": outcome, "net": -100}, **decided)
    lines = history_lines(record, "p1", check(round_from_record(record)))
    cli = next(line for line in lines if line.lstrip().startswith("seat 1"))
    terminal = Text.from_markup(history_hand(seat)).plain
    for line in (cli, terminal):
        assert f" {words} " in f"{line} ", line
        assert not re.search(r"\b(raised|folded|Fold)\b", line), line
    web = Path(__file__).resolve().parent.parent / "clients"
    assert f'"{words}"' in (web / "web" / "js" / "format.js").read_text(encoding="utf-8")
    console = (web / "admin" / "js" / "views.js").read_text(encoding="utf-8")
    assert "decisionLabel(s)" in console and "s.decision ??" not in console
    assert "OUTCOMES[res.outcome]" in console  # the result as the player's History reads it


@pytest.mark.parametrize(
    "decided", [{}, {"auto": True}, {"auto": True, "left": True}], ids=["own", "timer", "left"]
)
def test_a_folded_hand_says_folded_once_in_every_history(decided: dict[str, Any]) -> None:
    """The terminal's History read "Folded (timer)  Folded -$101.00" (the decision's
    column, then the outcome again before the net), and `stud-client history` the same:
    a fold is said once, its net after it."""
    record = worked_example()
    seat = record["seats"][0]
    result = {"outcome": "fold", "net": -101, "returned": 0, "progressive_prize": 0}
    seat.update(player_id="p1", ante=100, progressive=True, decision="fold", result=result)
    seat.update(decided)
    lines = history_lines(record, "p1", check(round_from_record(record)))
    cli = next(line for line in lines if line.lstrip().startswith("seat 1"))
    for two_lines in (False, True):
        terminal = Text.from_markup(history_hand(seat, two_lines=two_lines)).plain
        for line in (cli, terminal.replace("\n", " ")):
            assert line.count("Folded") == 1, line
            assert "-$1.01" in line, line


def test_the_history_says_the_progressive_s_part_and_a_dealer_not_qualifying() -> None:
    """`stud-client history` said "No qualify +$0.00" for an ante won and a progressive
    stake lost, where both clients say "(incl. P -$1)"; and a dealer's high card without
    "(does not qualify)", which the terminal's History says."""
    record = worked_example()
    record["dealer_hand"] = {"category": "HIGH_CARD", "label": "High Card"}
    record["seats"][0].update(
        player_id="p1",
        ante=100,
        progressive=True,
        decision="raise",
        result={"outcome": "no_qualify", "returned": 400, "net": 0, "progressive_prize": 0},
    )
    lines = history_lines(record, "p1", check(round_from_record(record)))
    seat = next(line for line in lines if line.lstrip().startswith("seat 1"))
    assert seat.endswith(f"{OUTCOMES['no_qualify']} $0.00 (incl. P -$1)"), seat
    dealer = next(line for line in lines if line.lstrip().startswith("dealer"))
    assert dealer.endswith("High Card (does not qualify)"), dealer
    record["seats"][0]["result"] = {
        "outcome": "win",
        "returned": 5_500,
        "net": 5_100,
        "progressive_prize": 5_000,
    }
    lines = history_lines(record, "p1", check(round_from_record(record)))
    seat = next(line for line in lines if line.lstrip().startswith("seat 1"))
    assert seat.endswith("+$51.00 (incl. P +$50)"), seat
