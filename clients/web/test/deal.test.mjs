// The deal shown card by card (js/deal.js): the order of PROTOCOL.md section 6.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DEALER, asDealt, dealDone, dealOrder, dealtCount, isDealt, justDealt, nextCardIn, startDeal } from "../js/deal.js";

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

test("a full table (nine hands and the dealer) is dealt within 1.5 s", () => {
  const full = { ...snap, seats: Array.from({ length: 9 }, () => seat(hand)) };
  const deal = startDeal(full, 0);
  assert.equal(deal.count, 50);
  assert.ok(deal.step * deal.count <= 1500);
});

test("the deal is shown only when the cards come out before the tab's eyes", () => {
  const betting = { ...snap, phase: "betting", dealer: { cards: null }, seats: snap.seats.map((s) => s && { ...s, cards: null }) };
  assert.ok(justDealt(betting, snap));
  assert.ok(!justDealt(undefined, snap)); // joined in the middle of a round
  assert.ok(!justDealt(snap, { ...snap, seq: 9 })); // already out
  assert.ok(!justDealt(betting, { ...betting, seq: 9 }));
});

test("while the deal is shown, a showdown that came meanwhile stays hidden", () => {
  const ann = { player_id: "a", cards: ["Kh", "Kd", "7s", "7c", "2d"], hand: { label: "Two Pair" },
    decision: "raise", auto: false, result: { outcome: "win", net: 2400 } };
  const bob = { player_id: "b", cards: ["2h", "3d", "9s", "Jc", "Qd"], hand: { label: "High Card" },
    decision: "fold", auto: true, result: { outcome: "fold", net: -100 } };
  const showdown = { table: "t", round_id: "t-1", phase: "showdown", hands: "private", seats: [ann, bob],
    dealer: { cards: ["As", "Kc", "9d", "4h", "Qs"], hand: { label: "Ace-King" }, qualifies: true } };
  const shown = asDealt(showdown, [0]);
  assert.equal(shown.phase, "deciding");
  assert.deepEqual(shown.dealer, { cards: [null, null, null, null, "Qs"], hand: null, qualifies: null });
  assert.deepEqual(shown.seats[0].cards, ann.cards); // own cards stay
  assert.deepEqual(shown.seats[1].cards, [null, null, null, null, null]);
  assert.equal(shown.seats[1].hand, null);
  for (const s of shown.seats) assert.ok(s.decision === null && s.result === null && !s.auto);
  const open = asDealt({ ...showdown, hands: "open" }, []);
  assert.deepEqual(open.seats[1].cards, bob.cards); // an open table shows hands while deciding too
  const waiting = { ...showdown, phase: "waiting" };
  assert.equal(asDealt(waiting), waiting);
});
