// The deal shown card by card (js/deal.js): the order of PROTOCOL.md section 6.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DEALER, asDealt, dealDone, dealLanded, dealOrder, dealtCount, isDealt, justDealt, nextCardIn, startDeal } from "../js/deal.js";

const seat = (cards) => ({ player_id: "p", cards });
const hand = [null, null, null, null, null];
const snap = {
  table: "t", round_id: "t-1", phase: "deciding",
  seats: [seat(hand), null, seat(null), seat(hand)], dealer: { cards: [null, null, null, null, "As"] },
};

test("one card to each betting seat in seat order, then the dealer, five times", () => {
  const order = dealOrder(snap).map((o) => `${o.to}:${o.card}`);
  assert.deepEqual(order.slice(0, 6), ["0:0", "3:0", "dealer:0", "0:1", "3:1", "dealer:1"]);
  assert.equal(order.length, 15);
  assert.equal(order.at(-1), "dealer:4");
});

test("cards come out one step apart; the dealer's fifth is the last", () => {
  const deal = startDeal(snap, 1000);
  assert.equal(dealtCount(deal, 1000), 1);
  assert.ok(isDealt(deal, 1000, 0, 0) && !isDealt(deal, 1000, 3, 0));
  assert.ok(isDealt(deal, 1000 + deal.step, 3, 0));
  assert.ok(!isDealt(deal, 1000 + 13 * deal.step, DEALER, 4));
  assert.ok(isDealt(deal, 1000 + 14 * deal.step, DEALER, 4));
  assert.ok(dealDone(deal, 1000 + 14 * deal.step));
  assert.equal(nextCardIn(deal, 1000 + 14 * deal.step), null);
  assert.equal(nextCardIn(deal, 1000), deal.step);
  assert.ok(deal.step * deal.count <= 3000);
});

test("the whole show, to the last card landed, is short whatever the seat count", () => {
  // the decision clock runs from the deal: the show must not eat it (it took 2 s of 20)
  for (const n of [1, 3, 9]) {
    const table = { ...snap, seats: Array.from({ length: n }, () => seat(hand)) };
    const deal = startDeal(table, 0);
    assert.equal(deal.count, 5 * (n + 1));
    assert.ok(dealLanded(deal, 800), `${n} seats: landed by 0.8 s`);
    assert.ok(!dealLanded(deal, 0));
  }
});

test("the deal is shown only when the cards come out before the tab's eyes", () => {
  const betting = { ...snap, phase: "betting", dealer: { cards: null }, seats: snap.seats.map((s) => s && { ...s, cards: null }) };
  assert.ok(justDealt(betting, snap));
  assert.ok(!justDealt(undefined, snap)); // joined in the middle of a round
  assert.ok(!justDealt(snap, { ...snap, seq: 9 })); // already out
  assert.ok(!justDealt(betting, { ...betting, seq: 9 }));
});

test("while the deal is shown, decisions that came meanwhile stay hidden; a showdown is never held back", () => {
  const ann = { player_id: "a", cards: ["Kh", "Kd", "7s", "7c", "2d"], hand: { label: "Two Pair" },
    decision: "raise", auto: false, result: null };
  const bob = { player_id: "b", cards: [null, null, null, null, null], hand: null,
    decision: "fold", auto: true, result: null };
  const deciding = { table: "t", round_id: "t-1", phase: "deciding", hands: "private", seats: [ann, bob],
    dealer: { cards: [null, null, null, null, "Qs"], hand: null, qualifies: null } };
  const shown = asDealt(deciding, [0]);
  assert.equal(shown.phase, "deciding");
  assert.deepEqual(shown.dealer, { cards: [null, null, null, null, "Qs"], hand: null, qualifies: null });
  assert.deepEqual(shown.seats[0].cards, ann.cards); // own cards stay
  assert.deepEqual(shown.seats[1].cards, [null, null, null, null, null]);
  assert.ok(shown.seats[1].decision === null && !shown.seats[1].auto); // others' wait for the last card
  assert.equal(shown.seats[0].decision, "raise"); // the viewer's own, decided as its cards showed, stays
  const open = asDealt({ ...deciding, hands: "open", seats: [ann, { ...bob, cards: ["2h", "3d", "9s", "Jc", "Qd"] }] }, []);
  assert.deepEqual(open.seats[1].cards, ["2h", "3d", "9s", "Jc", "Qd"]); // an open table shows hands while deciding too
  const showdown = { ...deciding, phase: "showdown" };
  assert.equal(asDealt(showdown), showdown); // the showdown is drawn as it is
  const waiting = { ...deciding, phase: "waiting" };
  assert.equal(asDealt(waiting), waiting);
});
