// A progressive bet built with no ante (js/table.js's rack). The table takes no
// progressive alone (the rule sheets: not without an accompanying ante): Deal was off
// with no reason given, its tooltip still "Place the bets and deal (d)".
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fakedom.mjs";

installFakeDom();
const { renderTable } = await import("../js/table.js");

/** Ann on seats 0 and 1 of a waiting table, `built` on them, seat 0 selected. */
function rack(built) {
  const ann = { player_id: "p-ann", name: "Ann", connected: true, ante: 0, progressive: false, ready: false,
    decision: null, auto: false, cards: [], hand: null, result: null };
  const snap = {
    t: "table", table: "alpha", title: "Alpha", seq: 3, phase: "waiting", round_id: null, ends_in_ms: null,
    min_ante: 100, max_ante: 10000, progressive_stake: 100, variant: "casino-stud", hands: "open",
    jackpot: { name: "main", amount: 100000 }, dealer: { cards: [], hand: null, qualifies: null },
    seats: [{ ...ann }, { ...ann }, null], spectators: 0, fairness: null, last: null,
  };
  return renderTable({
    snap, me: { player_id: "p-ann" }, row: null,
    build: (i) => built[i] ?? { chips: [], progressive: false },
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    available: 1000000, layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null,
    rebet: null, fair: {},
  });
}

test("a progressive alone says it needs an ante, on Deal and under it", () => {
  const root = rack({ 0: { chips: [], progressive: true } });
  const deal = root.byTestId("deal");
  assert.equal(deal.getAttribute("disabled"), "");
  assert.match(deal.getAttribute("title"), /progressive on seat #1 needs an ante/i);
  assert.equal(deal.byTestId("deal-needs").textContent, "progressive needs an ante");
});

test("beside a hand with an ante, a progressive alone still says so, and Deal waits for it", () => {
  // Deal would have placed seat #2's bet and dropped seat #1's progressive unsaid
  const root = rack({ 0: { chips: [], progressive: true }, 1: { chips: [500], progressive: false } });
  const deal = root.byTestId("deal");
  assert.equal(deal.getAttribute("disabled"), "");
  assert.match(deal.getAttribute("title"), /progressive on seat #1 needs an ante/i);
});

test("a progressive with its ante is the plain Deal", () => {
  const deal = rack({ 0: { chips: [500], progressive: true } }).byTestId("deal");
  assert.equal(deal.getAttribute("disabled"), null);
  assert.equal(deal.getAttribute("title"), "Place the bets and deal (d)");
  assert.equal(deal.byTestId("deal-needs"), null);
});
