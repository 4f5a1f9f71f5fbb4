// The deal shown card by card (js/deal.js): the order of PROTOCOL.md section 6.
import assert from "node:assert/strict";
import { test } from "node:test";

import { DEALER, dealDone, dealOrder, dealtCount, isDealt, justDealt, nextCardIn, startDeal } from "../js/deal.js";

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

test("the deal is shown only when the cards come out before the tab's eyes", () => {
  const betting = { ...snap, phase: "betting", dealer: { cards: null }, seats: snap.seats.map((s) => s && { ...s, cards: null }) };
  assert.ok(justDealt(betting, snap));
  assert.ok(!justDealt(undefined, snap)); // joined in the middle of a round
  assert.ok(!justDealt(snap, { ...snap, seq: 9 })); // already out
  assert.ok(!justDealt(betting, { ...betting, seq: 9 }));
});
