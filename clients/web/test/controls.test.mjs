// The Deal button (js/table.js) drawn into a small fake DOM: bets the wallet cannot
// also hold the raise of say what they need, and cannot be dealt (the server would
// refuse them: the deal holds each hand's raise, 2x its ante, PROTOCOL.md section 7).
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fakedom.mjs";

installFakeDom();
const { renderTable } = await import("../js/table.js");

function waiting() {
  return {
    t: "table", table: "alpha", title: "Alpha", seq: 3, phase: "waiting", round_id: null, ends_in_ms: null,
    min_ante: 100, max_ante: 10000, progressive_stake: 100, variant: "casino-stud", hands: "open",
    jackpot: { name: "main", amount: 100000 },
    dealer: { cards: [], hand: null, qualifies: null },
    seats: [
      { player_id: "p-ann", name: "Ann", connected: true, ante: 0, progressive: false, ready: false,
        decision: null, auto: false, cards: [], hand: null, result: null },
      null,
    ],
    spectators: 0, fairness: null, last: null,
  };
}

/** The Deal button for Ann with a $100 ante and the progressive built, and `available`. */
function deal(available) {
  const root = renderTable({
    snap: waiting(), me: { player_id: "p-ann" }, row: null,
    build: (i) => (i === 0 ? { chips: [10000], progressive: true } : { chips: [], progressive: false }),
    chip: 10000, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000, available,
    layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null, rebet: null, fair: {},
  });
  return root.byTestId("deal");
}

test("bets whose raise the wallet cannot hold say what they need", () => {
  const button = deal(15000); // $150 available: the $101 goes now, the $200 raise cannot be held
  assert.match(button.textContent, /^Deal · \$101\.00/);
  assert.equal(button.byTestId("deal-needs").textContent, "needs $301.00 available");
  assert.match(button.getAttribute("title"), /need \$301\.00 available.*You have \$150\.00/);
  assert.equal(button.getAttribute("disabled"), ""); // refused for certain: off
});

test("bets the wallet can hold are the plain Deal", () => {
  for (const available of [30100, 50000, undefined]) {
    const button = deal(available);
    assert.equal(button.textContent, "Deal · $101.00");
    assert.equal(button.byTestId("deal-needs"), null);
    assert.equal(button.getAttribute("title"), "Place the bets and deal (d)");
    assert.equal(button.getAttribute("disabled"), null);
  }
});
