// Private hands (js/hands.js) drawn by the real table view (js/table.js) into a
// small fake DOM: a private-mode snapshot shows every hand face down; the
// player's `hand` frame turns their own seats face up, and only while the
// snapshot is of the same round; others' hands and a spectator's view stay face
// down until the showdown, whose snapshot shows every hand.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fakedom.mjs";

installFakeDom();
const { absorbHand, faceDown, forgetStaleHands, withOwnHands } = await import("../js/hands.js");
const { renderTable } = await import("../js/table.js");

const DOWN = [null, null, null, null, null];
const ANN = ["Kh", "Kd", "7s", "7c", "2d"];
const ANN_2 = ["Ah", "Kc", "9h", "7d", "2c"];
const BOB = ["9c", "8d", "4h", "3s", "2h"];
const DEALER = ["Ac", "Ah", "Qd", "Jc", "5s"];

function seat(player, name, cards, hand = null) {
  return { player_id: player, name, connected: true, ante: 500, progressive: false, ready: true,
    decision: null, auto: false, cards, hand, result: null };
}

function snapshot({ phase = "deciding", round = "alpha-1", hands = "private", seq = 10 } = {}) {
  const open = phase === "showdown" || hands !== "private";
  return {
    t: "table", table: "alpha", title: "Alpha", seq, phase, round_id: round, ends_in_ms: 20000,
    min_ante: 100, max_ante: 10000, progressive_stake: 100, variant: "casino-stud", hands,
    jackpot: { name: "main", amount: 100000 },
    dealer: { cards: phase === "showdown" ? DEALER : [null, null, null, null, "5s"], hand: null, qualifies: null },
    seats: [
      seat("p-ann", "Ann", open ? ANN : DOWN, open ? { category: "TWO_PAIR", label: "Two Pair" } : null),
      seat("p-bob", "Bob", open ? BOB : DOWN, open ? { category: "HIGH_CARD", label: "High Card" } : null),
      seat("p-ann", "Ann", open ? ANN_2 : DOWN, open ? { category: "ACE_KING", label: "Ace-King" } : null),
      null,
    ],
    spectators: 1, fairness: null, last: null,
  };
}

const HAND_FRAME = {
  t: "hand", table: "alpha", round_id: "alpha-1",
  seats: [
    { seat: 0, cards: ANN, hand: { category: "TWO_PAIR", label: "Two Pair" } },
    { seat: 2, cards: ANN_2, hand: { category: "ACE_KING", label: "Ace-King" } },
  ],
};

/** What the table view draws for `viewer`: each seat's cards ("back" when face down) and hand label. */
function drawn(snap, store, viewer) {
  const seen = withOwnHands(snap, store, viewer);
  const root = renderTable({
    snap: seen, me: { player_id: viewer }, row: null, build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    layout: { mode: "flow", positions: [], vars: {} }, selected: null, deal: null, rebet: null, fair: {},
  });
  const out = {};
  for (const i of [0, 1, 2]) {
    const row = root.byTestId(`seat-${i}-cards`);
    out[i] = {
      cards: row.withClass("card").map((c) => c.getAttribute("data-card")),
      hand: root.byTestId(`seat-${i}-hand`).textContent,
    };
  }
  out.dealer = root.byTestId("dealer-cards").withClass("card").map((c) => c.getAttribute("data-card"));
  return out;
}

const BACKS = ["back", "back", "back", "back", "back"];

test("private deal: the player's own hands face up from the hand frame, the others' face down", () => {
  const store = {};
  const snap = snapshot();
  assert.deepEqual(drawn(snap, store, "p-ann")[0].cards, BACKS); // before the hand frame comes
  absorbHand(store, HAND_FRAME);
  const ann = drawn(snap, store, "p-ann");
  assert.deepEqual(ann[0], { cards: ANN, hand: "Two Pair" });
  assert.deepEqual(ann[2], { cards: ANN_2, hand: "Ace-King" });
  assert.deepEqual(ann[1], { cards: BACKS, hand: "" });
  assert.deepEqual(ann.dealer, ["back", "back", "back", "back", "5s"]);
  // another player and a spectator see every hand face down
  for (const viewer of ["p-bob", "p-wendy"]) {
    const view = drawn(snap, {}, viewer);
    for (const i of [0, 1, 2]) assert.deepEqual(view[i].cards, BACKS, `${viewer} seat ${i}`);
  }
  assert.equal(snap.seats[0].cards, DOWN); // the snapshot itself is left as it came
});

test("a hand frame sent again (after a join or a reconnect) adds to the round's", () => {
  const store = {};
  absorbHand(store, { ...HAND_FRAME, seats: [HAND_FRAME.seats[0]] });
  absorbHand(store, { ...HAND_FRAME, seats: [HAND_FRAME.seats[1]] });
  const ann = drawn(snapshot(), store, "p-ann");
  assert.deepEqual([ann[0].cards, ann[2].cards], [ANN, ANN_2]);
});

test("a new round drops the cards of the last one", () => {
  const store = {};
  absorbHand(store, HAND_FRAME);
  const next = snapshot({ round: "alpha-2", seq: 20 });
  assert.deepEqual(drawn(next, store, "p-ann")[0].cards, BACKS); // not drawn for another round
  forgetStaleHands(store, next);
  assert.equal(store.alpha, undefined);
  absorbHand(store, { ...HAND_FRAME, round_id: "alpha-2", seats: [{ seat: 0, cards: ANN_2, hand: null }] });
  assert.deepEqual(Object.keys(store.alpha.seats), ["0"]);
});

test("showdown: every hand face up for everyone, from the snapshot", () => {
  const store = {};
  absorbHand(store, HAND_FRAME);
  const snap = snapshot({ phase: "showdown" });
  forgetStaleHands(store, snap);
  for (const viewer of ["p-ann", "p-bob", "p-wendy"]) {
    const view = drawn(snap, store, viewer);
    assert.deepEqual([view[0].cards, view[1].cards, view[2].cards], [ANN, BOB, ANN_2], viewer);
    assert.deepEqual(view.dealer, DEALER);
  }
});

test("open hands (and a server that sends no `hands`) are drawn as the snapshot has them", () => {
  for (const hands of ["open", "absent"]) {
    const snap = snapshot({ hands });
    if (hands === "absent") delete snap.hands;
    const view = drawn(snap, {}, "p-bob");
    assert.deepEqual([view[0].cards, view[1].cards], [ANN, BOB]);
    assert.equal(view[1].hand, "High Card");
  }
  assert.ok(faceDown(DOWN) && !faceDown(ANN) && !faceDown(null));
});

test("a suspended table is drawn as it stood, paused, with every control off", () => {
  const store = {};
  absorbHand(store, HAND_FRAME);
  const snap = { ...snapshot(), phase: "suspended", ends_in_ms: null,
    suspended: { phase: "deciding", reason: "store", since_ms: 1767225600000 } };
  const root = renderTable({
    snap: withOwnHands(snap, store, "p-ann"), me: { player_id: "p-ann" }, row: null,
    build: () => ({ chips: [], progressive: false }), chip: 500, busy: false, maxSeats: 3,
    receivedAt: 0, now: 0, online: true, jackpot: 100000,
    layout: { mode: "flow", positions: [], vars: {} }, selected: null, deal: null, rebet: null, fair: {},
  });
  const view = root.byTestId("table-view") ?? root;
  assert.equal(view.getAttribute("data-phase"), "suspended");
  assert.match(root.byTestId("table-message").textContent, /Paused: the game's data store/);
  assert.equal(root.byTestId("phase").textContent.startsWith("Paused"), true);
  assert.deepEqual(root.byTestId("seat-0-cards").withClass("card").map((c) => c.getAttribute("data-card")), ANN);
  const fold = root.byTestId("fold-0");
  assert.ok(fold === null || fold.getAttribute("disabled") !== null, "no decision while paused");
});

test("a showdown that comes while the deal is still shown ends the show: every hand as the snapshot has it", async () => {
  const { startDeal } = await import("../js/deal.js");
  const dealt = snapshot({ phase: "deciding" });
  const deal = startDeal(dealt, 0);
  const showdown = snapshot({ phase: "showdown", seq: 12 });
  showdown.dealer = { cards: DEALER, hand: { category: "ONE_PAIR", label: "One Pair" }, qualifies: false };
  showdown.seats = showdown.seats.map((s) => s && { ...s, decision: "fold", auto: true,
    result: { outcome: "fold", net: -500, returned: 0, progressive_prize: null } });
  const during = renderTable({
    snap: showdown, me: { player_id: "p-bob" }, row: null, build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: deal.step * 3, online: true, jackpot: 100000,
    layout: { mode: "flow", positions: [], vars: {} }, selected: null, deal, rebet: null, fair: {},
  });
  // the felt never contradicts the phase: a showdown is drawn whole, nothing flies in
  const view = during.byTestId("table-view") ?? during;
  assert.equal(view.getAttribute("data-dealing"), "false");
  assert.ok(during.byTestId("phase").textContent.startsWith("Showdown"), during.byTestId("phase").textContent);
  assert.notEqual(during.byTestId("table-message").textContent, "Dealing…");
  assert.equal(during.byTestId("dealer-hand").textContent, "One Pair — does not qualify");
  assert.equal(during.byTestId("seat-0-result").getAttribute("data-outcome"), "fold");
  const cards = (testid) => during.byTestId(testid).withClass("card").map((c) => c.getAttribute("data-card"));
  assert.deepEqual(cards("seat-0-cards"), ANN); // public at the showdown, face up to Bob
  assert.deepEqual(cards("dealer-cards"), DEALER);
  assert.equal(during.byTestId("seat-0-cards").withClass("dealt").length, 0);
});

test("an own hand's Fold and Raise come with its cards, not after the whole table's deal", async () => {
  const { DEALER: TO_DEALER, FLY_MS, dealLanded, hasLanded, startDeal } = await import("../js/deal.js");
  const store = {};
  absorbHand(store, HAND_FRAME);
  const dealt = snapshot({ phase: "deciding" });
  const deal = startDeal(dealt, 0);
  // Ann's first hand (seat 0) is whole once its fifth card landed; the dealer's fifth comes later
  const now = deal.index.get("0:4") * deal.step + FLY_MS;
  assert.ok(hasLanded(deal, now, 0, 4) && !hasLanded(deal, now, TO_DEALER, 4) && !dealLanded(deal, now));
  const root = renderTable({
    snap: withOwnHands(dealt, store, "p-ann"), me: { player_id: "p-ann" }, row: null,
    build: () => ({ chips: [], progressive: false }), chip: 500, busy: false, maxSeats: 3,
    receivedAt: 0, now, online: true, jackpot: 100000,
    layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal, rebet: null, fair: {},
  });
  for (const id of ["fold-0", "raise-0"]) {
    const button = root.byTestId(id);
    assert.ok(button, `${id} shown once seat 0's cards are`);
    assert.equal(button.getAttribute("disabled"), null, `${id} usable`);
  }
  // seat 2's fifth is still on its way: no buttons for a hand not shown whole
  assert.ok(!hasLanded(deal, now, 2, 4));
  assert.equal(root.byTestId("fold-2"), null);
});

test("a verdict shown while a new round is on the table says it is the last deal's", () => {
  const proof = { commitment: "ab".repeat(32), server_seed: "cd".repeat(32), client_seeds: "", nonce: "alpha-1" };
  const last = { ...snapshot({ phase: "showdown", round: "alpha-1" }), fairness: proof };
  const verdict = { ok: true, problems: [], notes: [] };
  const text = (snap) => renderTable({
    snap, me: { player_id: "p-bob" }, row: null, build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    layout: { mode: "flow", positions: [], vars: {} }, selected: null, deal: null, rebet: null,
    fair: { lastDeal: last, verdict },
  }).byTestId("fair-verdict-text").textContent;
  assert.equal(text(last), "Fair: verified");
  assert.equal(text(snapshot({ phase: "deciding", round: "alpha-2" })), "Last deal — Fair: verified");
});

test("a seat dealt without (it sat the round out) says so while others decide", async () => {
  const { seatStatus } = await import("../js/format.js");
  const out = { player_id: "p", connected: true, ante: 0, ready: true, decision: null, auto: false, cards: null };
  assert.equal(seatStatus("deciding", out), "Sitting out");
  assert.equal(seatStatus("showdown", out), "Sitting out");
  assert.equal(seatStatus("waiting", out), "");
});

test("a seat taken after the deal is not said to sit out a round it never had", async () => {
  const { seatStatus } = await import("../js/format.js");
  const late = { player_id: "p", connected: true, ante: 0, ready: false, decision: null, auto: false,
    cards: null, next_round: true };
  assert.equal(seatStatus("deciding", late), "Next round");
  assert.equal(seatStatus("showdown", late), "Next round");
  assert.equal(seatStatus("waiting", { ...late, next_round: false }), "");
});
