// The ring of server processes a page plays through (js/ring.js), as the terminal's
// link keeps it: home first, then the processes the lobby names; a process that hangs
// once, or refuses twice in a row, is left for the next.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FAILED_LATELY_MS, Ring } from "../js/ring.js";

const A = "ws://127.0.0.1:8765/ws";
const B = "ws://127.0.0.1:8766/ws";
const C = "ws://127.0.0.1:8767/ws";

test("alone, the page's own server is tried again and again", () => {
  const ring = new Ring(A);
  assert.equal(ring.failed(0, { hung: true }), A);
  assert.equal(ring.failed(1), A);
  assert.equal(ring.failed(2), A);
});

test("a hang moves on at once to the next process the lobby named", () => {
  const ring = new Ring(A);
  ring.setFleet([A, B, "", null, B]);
  assert.deepEqual(ring.members(), [A, B]);
  assert.equal(ring.failed(0, { hung: true }), B);
  assert.equal(ring.failed(1, { hung: true }), A); // round again: home is back in turn
});

test("a refusal is tried once more, the second in a row moves on", () => {
  const ring = new Ring(A);
  ring.setFleet([B, C]);
  assert.equal(ring.failed(0), A); // a blip
  assert.equal(ring.failed(1), B);
  ring.reached(); // B answered: its count starts again
  assert.equal(ring.failed(2), B);
  assert.equal(ring.failed(3), C);
});

test("a process that failed lately is said so for a while, and not once it answered", () => {
  const ring = new Ring(A);
  ring.setFleet([B]);
  ring.failed(1000, { hung: true });
  assert.ok(ring.failedLately(A, 1000 + FAILED_LATELY_MS - 1));
  assert.ok(!ring.failedLately(A, 1000 + FAILED_LATELY_MS));
  assert.ok(!ring.failedLately(B, 1000));
  ring.go(A); // followed back there on purpose, and it answered
  ring.reached();
  assert.ok(!ring.failedLately(A, 1001));
});

test("an https page's ring holds only wss addresses: a ws one cannot be opened from it", () => {
  const ring = new Ring("wss://a.example/ws");
  ring.setFleet(["ws://b.example/ws", "wss://c.example/ws", "http://d.example/"]);
  assert.deepEqual(ring.members(), ["wss://a.example/ws", "wss://c.example/ws"]);
});
