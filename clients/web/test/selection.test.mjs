// The seat the keys act on (js/state.js selectedSeat) as a round is dealt: the first of
// the player's hands waiting for a decision, whichever seat was bet on last; after a
// decision, the one the page moved it to.
import assert from "node:assert/strict";
import { test } from "node:test";

const store = () => {
  const items = new Map();
  return {
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => items.set(k, String(v)),
    removeItem: (k) => items.delete(k),
  };
};
globalThis.sessionStorage ??= store();
globalThis.localStorage ??= store();
globalThis.location ??= { href: "http://127.0.0.1/" };
const { selectedSeat, state } = await import("../js/state.js");

const mine = (extra = {}) => ({ player_id: "p-ann", name: "Ann", ante: 500, ...extra });
const other = { player_id: "p-bob", name: "Bob", ante: 500 };

function snap(phase, roundId, seats) {
  return { table: "nine", phase, round_id: roundId, seats };
}

const CARDS = ["2c", "3d", "4h", "5s", "7c"];

test("dealt, the first hand waiting is selected, not the one bet on last", () => {
  state.me = { player_id: "p-ann" };
  state.selected = { nine: 2 }; // the last circle tapped while betting: #3
  const betting = snap("betting", "r1", [mine(), mine(), mine(), other]);
  assert.equal(selectedSeat(betting), 2);
  const dealt = (d = [null, null, null]) => snap("deciding", "r1",
    [0, 1, 2].map((i) => mine({ cards: CARDS, decision: d[i] })).concat([{ ...other, cards: CARDS }]));
  assert.equal(selectedSeat(dealt()), 0);
  // the player chooses another hand: it stays chosen through the round
  state.selected.nine = 2;
  assert.equal(selectedSeat(dealt()), 2);
  // #1 decided and the page moved the selection on to #2: kept
  state.selected.nine = 1;
  assert.equal(selectedSeat(dealt(["raise", null, null])), 1);
  // a decided hand stays selected (a key pressed twice never decides another)
  assert.equal(selectedSeat(dealt(["raise", "fold", null])), 1);
});

test("each round's deal starts again from the first hand waiting", () => {
  state.me = { player_id: "p-ann" };
  state.selected = { nine: 2 };
  const seats = [mine({ cards: CARDS }), { ...other, cards: CARDS }, mine({ cards: CARDS })];
  assert.equal(selectedSeat(snap("deciding", "s1", seats)), 0);
  state.selected.nine = 2;
  assert.equal(selectedSeat(snap("deciding", "s1", seats)), 2);
  assert.equal(selectedSeat(snap("deciding", "s2", seats)), 0);
  // a hand sitting the round out (no cards) is passed over
  const out = [mine(), { ...other, cards: CARDS }, mine({ cards: CARDS })];
  state.selected.nine = 0;
  assert.equal(selectedSeat(snap("deciding", "s3", out)), 2);
});
