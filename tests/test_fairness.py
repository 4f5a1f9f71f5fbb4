"""The provably fair shuffle: pinned vectors, the verifier, and a live round checked end to end."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.fairness import (
    ORDERED_DECK,
    Stream,
    commitment,
    dealt_hands,
    fair_order,
    verify,
)
from server.fair import FairShuffler
from tests.conftest import ClientFactory, ServerFactory

SEED = bytes(range(32))
NONCE = "casino-1-00112233aabbccdd"
# PROTOCOL.md section 13, worked example: pinned so the algorithm never drifts.
EXAMPLE_DECK = [
    "Th",
    "8d",
    "Ad",
    "Tc",
    "As",
    "7c",
    "2s",
    "5c",
    "4c",
    "3s",
    "3h",
    "9c",
    "Kd",
    "Jh",
    "7s",
    "9h",
    "4h",
    "2d",
    "3c",
    "5d",
    "7h",
    "Qh",
    "Js",
    "Kh",
    "Td",
    "4d",
    "Jc",
    "Qd",
    "6c",
    "Jd",
    "Ts",
    "8c",
    "Ks",
    "6h",
    "3d",
    "2c",
    "Ah",
    "5s",
    "7d",
    "8s",
    "9d",
    "9s",
    "2h",
    "Qs",
    "4s",
    "5h",
    "6s",
    "6d",
    "Kc",
    "8h",
    "Ac",
    "Qc",
]


def test_worked_example_of_the_protocol_document() -> None:
    assert commitment(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    stream = Stream(SEED, "lucky-7,", NONCE)
    assert [stream.randbelow(2**32) for _ in range(3)] == [3662380996, 1130165709, 3880926426]
    assert fair_order(SEED, "lucky-7,", NONCE) == EXAMPLE_DECK
    seat1, _seat2, dealer = dealt_hands(EXAMPLE_DECK, 3)
    assert seat1 == ["Th", "Tc", "2s", "3s", "Kd"]
    assert dealer == ["Ad", "7c", "4c", "9c", "7s"]


def test_more_pinned_vectors() -> None:
    assert fair_order(b"\xff" * 32, "", "n")[:6] == ["4d", "9h", "7d", "Kc", "8d", "5s"]
    assert ORDERED_DECK[0] == "2c" and ORDERED_DECK[51] == "As" and len(set(ORDERED_DECK)) == 52


def test_every_input_changes_the_deck() -> None:
    base = fair_order(SEED, "a", "n")
    assert fair_order(SEED, "b", "n") != base
    assert fair_order(SEED, "a", "m") != base
    assert fair_order(bytes(32), "a", "n") != base


def test_words_at_or_above_the_limit_are_redrawn() -> None:
    stream = Stream(SEED, "", "x")
    stream._words = iter([2**32 - 1, 2**32 - 48, 2**32 - 49, 7])  # limit for 52 is 2^32 - 48
    assert stream.randbelow(52) == (2**32 - 49) % 52
    assert stream.randbelow(52) == 7


@given(st.binary(min_size=32, max_size=32), st.text("abc-", max_size=10), st.text(max_size=20))
def test_any_seeds_give_a_permutation(seed: bytes, client: str, nonce: str) -> None:
    assert sorted(fair_order(seed, client, nonce)) == sorted(ORDERED_DECK)


def test_verifier_accepts_the_truth_and_names_each_lie() -> None:
    hands = dealt_hands(fair_order(SEED, "x,", NONCE), 3)
    good = {
        "commitment_hex": commitment(SEED),
        "server_seed_hex": SEED.hex(),
        "client_seeds": "x,",
        "nonce": NONCE,
        "seats": hands[:2],
        "dealer": hands[2],
    }
    assert verify(**good) == []  # type: ignore[arg-type]
    assert "commitment" in verify(**{**good, "commitment_hex": "00" * 32})[0]  # type: ignore[arg-type]
    swapped = [hands[1], hands[0]]
    assert len(verify(**{**good, "seats": swapped})) == 2  # type: ignore[arg-type]
    assert "dealer" in verify(**{**good, "client_seeds": "y,"})[-1]  # type: ignore[arg-type]
    assert verify(**{**good, "server_seed_hex": "zz"}) == ["the server seed is not hex"]  # type: ignore[arg-type]


def test_the_shuffler_commits_before_it_deals() -> None:
    shuffler = FairShuffler(lambda n: SEED)
    assert shuffler.commit(NONCE) == hashlib.sha256(SEED).hexdigest()
    assert [c.text for c in shuffler.deck("lucky-7,")] == EXAMPLE_DECK
    assert shuffler.reveal() == {
        "commitment": commitment(SEED),
        "server_seed": SEED.hex(),
        "client_seeds": "lucky-7,",
        "nonce": NONCE,
    }


def test_two_shufflers_never_share_a_seed() -> None:
    a, b = FairShuffler(), FairShuffler()
    assert a.commit("r") != b.commit("r")


async def test_a_live_round_verifies_from_its_snapshots_alone(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(shuffle=None)
    ann, bob = await connect(server, "ann"), await connect(server, "bob")
    await ann.request("sit", table="alpha")
    await bob.request("sit", table="alpha")
    await ann.request("seed", table="alpha", client_seed="ann-picks-this")
    await ann.request("ante", table="alpha", seat=0, amount=100)
    await bob.request("ante", table="alpha", seat=1, amount=100)
    betting = await bob.wait_table("alpha", lambda s: s["phase"] == "betting")
    promised = betting["fairness"]
    assert set(promised) == {"commitment", "nonce"} and promised["nonce"] == betting["round_id"]
    await ann.request("deal", table="alpha")
    await bob.request("deal", table="alpha")
    await bob.wait_table("alpha", lambda s: s["phase"] == "deciding")
    await ann.request("fold", table="alpha", seat=0)
    await bob.request("raise", table="alpha", seat=1)
    snap = await bob.wait_table("alpha", lambda s: s["phase"] == "showdown")
    proof = snap["fairness"]
    assert proof["commitment"] == promised["commitment"]
    assert proof["client_seeds"] == "ann-picks-this,"
    problems = verify(
        commitment_hex=promised["commitment"],
        server_seed_hex=proof["server_seed"],
        client_seeds=proof["client_seeds"],
        nonce=proof["nonce"],
        seats=[s["cards"] for s in snap["seats"] if s and s["cards"]],
        dealer=snap["dealer"]["cards"],
    )
    assert problems == []
    await ann.request("history")
    record = next(f for f in ann.frames if f["t"] == "history")["rounds"][0]
    assert record["fairness"] == proof and record["round_id"] == snap["round_id"]


@pytest.mark.parametrize("bad", ["has,comma", "x" * 65, "sp ace"])
async def test_bad_client_seeds_are_refused(
    make_server: ServerFactory, connect: ClientFactory, bad: str
) -> None:
    from clients.connection import ServerError

    server = await make_server()
    c = await connect(server, "s")
    await c.request("join", table="alpha")
    with pytest.raises(ServerError) as e:
        await c.request("seed", table="alpha", client_seed=bad)
    assert e.value.code == "invalid_field"


async def test_a_client_seed_is_kept_while_its_player_sits_or_watches(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A table kept the seed of every spectator it ever had, and an empty seed ("removes
    it", PROTOCOL) as an entry of its own."""
    server = await make_server()
    seeds = server.rooms["alpha"].table.client_seeds
    ann, bob = await connect(server, "ann"), await connect(server, "bob")
    await ann.request("join", table="alpha")
    await ann.request("seed", table="alpha", client_seed="ann-picks")
    await ann.request("seed", table="alpha", client_seed="")
    assert seeds == {}  # removed, not kept as ""
    await ann.request("seed", table="alpha", client_seed="ann-picks")
    await bob.request("sit", table="alpha")
    await bob.request("seed", table="alpha", client_seed="bob-picks")
    await bob.close()  # disconnected, still seated: the seed stays for the next deal
    await ann.request("leave", table="alpha")  # watches no more, never sat: gone
    assert seeds == {bob.player_id: "bob-picks"}
    await server.rooms["alpha"].remove_player(bob.player_id)
    assert seeds == {}
