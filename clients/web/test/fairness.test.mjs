// The browser's fairness check (js/fairness.js) against the worked example of
// PROTOCOL.md section 13, pinned so the algorithm never drifts from the server's
// (protocol/fairness.py; tests/test_fairness.py pins the same numbers).
// Run: node --test clients/web/test/fairness.test.mjs

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  CLIENT_SEED_PATTERN, ORDERED_DECK, Stream, commitmentOf, dealtHands, fairOrder, fromHex, toHex, verifyRound,
} from "../js/fairness.js";

const SEED = Uint8Array.from({ length: 32 }, (_, i) => i);
const SEED_HEX = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
const NONCE = "casino-1-00112233aabbccdd";
const EXAMPLE_DECK = (
  "Th 8d Ad Tc As 7c 2s 5c 4c 3s 3h 9c Kd Jh 7s 9h 4h 2d 3c 5d 7h Qh Js Kh Td 4d Jc Qd 6c Jd Ts 8c Ks "
  + "6h 3d 2c Ah 5s 7d 8s 9d 9s 2h Qs 4s 5h 6s 6d Kc 8h Ac Qc"
).split(" ");
const SEAT_1 = ["Th", "Tc", "2s", "3s", "Kd"];
const SEAT_2 = ["8d", "As", "5c", "3h", "Jh"];
const DEALER = ["Ad", "7c", "4c", "9c", "7s"];

const proof = (over = {}) => ({ commitment: COMMITMENT, server_seed: SEED_HEX, client_seeds: "lucky-7,", nonce: NONCE, ...over });
const round = (over = {}) => ({
  roundId: NONCE,
  proof: proof(),
  promised: COMMITMENT,
  seats: [{ seat: 0, name: "Ann", cards: SEAT_1 }, { seat: 3, name: "Bob", cards: SEAT_2 }],
  dealer: DEALER,
  ...over,
});

test("the ordered deck runs 2c 2d 2h 2s ... Ah As", () => {
  assert.equal(ORDERED_DECK.length, 52);
  assert.equal(new Set(ORDERED_DECK).size, 52);
  assert.deepEqual([ORDERED_DECK[0], ORDERED_DECK[1], ORDERED_DECK[40], ORDERED_DECK[51]], ["2c", "2d", "Qc", "As"]);
});

test("worked example: the commitment is SHA-256 of the seed", () => {
  assert.equal(toHex(SEED), SEED_HEX);
  assert.deepEqual(fromHex(SEED_HEX), SEED);
  assert.equal(commitmentOf(SEED), COMMITMENT);
});

test("worked example: the first words of the HMAC stream", () => {
  const stream = new Stream(SEED, "lucky-7,", NONCE);
  assert.deepEqual([stream.nextWord(), stream.nextWord(), stream.nextWord()], [3662380996, 1130165709, 3880926426]);
  const again = new Stream(SEED, "lucky-7,", NONCE);
  assert.deepEqual([again.randbelow(2 ** 32), again.randbelow(2 ** 32), again.randbelow(2 ** 32)], [3662380996, 1130165709, 3880926426]);
  const first = new Stream(SEED, "lucky-7,", NONCE);
  assert.equal(first.randbelow(52), 40); // i = 51: As and Qc swap
  assert.equal(first.randbelow(51), 48);
});

test("worked example: the deck and the hands it deals", () => {
  assert.deepEqual(fairOrder(SEED, "lucky-7,", NONCE), EXAMPLE_DECK);
  assert.deepEqual(dealtHands(EXAMPLE_DECK, 3), [SEAT_1, SEAT_2, DEALER]);
});

test("more pinned vectors (tests/test_fairness.py)", () => {
  assert.deepEqual(fairOrder(new Uint8Array(32).fill(0xff), "", "n").slice(0, 6), ["4d", "9h", "7d", "Kc", "8d", "5s"]);
});

test("the stream spans several MACs and every deck is a permutation", () => {
  const stream = new Stream(SEED, "", "x");
  const words = Array.from({ length: 20 }, () => stream.nextWord());
  assert.equal(stream.counter, 3);
  assert.ok(words.every((w) => Number.isInteger(w) && w >= 0 && w < 2 ** 32));
  for (const nonce of ["a", "b", "c", "d"]) {
    assert.deepEqual([...fairOrder(SEED, "s", nonce)].sort(), [...ORDERED_DECK].sort());
  }
  assert.notDeepEqual(fairOrder(SEED, "a", "n"), fairOrder(SEED, "b", "n"));
});

test("words at or above the limit are redrawn", () => {
  const stream = new Stream(SEED, "", "x");
  stream.words = [2 ** 32 - 1, 2 ** 32 - 48, 2 ** 32 - 49, 7]; // the limit for 52 is 2^32 - 48
  stream.at = 0;
  assert.equal(stream.randbelow(52), (2 ** 32 - 49) % 52);
  assert.equal(stream.randbelow(52), 7);
});

test("the worked example verifies", () => {
  const verdict = verifyRound(round({ mySeeds: { 0: "lucky-7" } }));
  assert.deepEqual(verdict.problems, []);
  assert.deepEqual(verdict.notes, []);
  assert.equal(verdict.ok, true);
  assert.deepEqual(verdict.deck, EXAMPLE_DECK);
});

test("each lie is named", () => {
  const seedLie = verifyRound(round({ proof: proof({ server_seed: "ff".repeat(32) }) }));
  assert.equal(seedLie.ok, false);
  assert.match(seedLie.problems[0], /^SHA-256 of the server seed is .* not the commitment published before the deal/);
  assert.ok(seedLie.problems.some((p) => p.startsWith("Seat 1 (Ann) should hold")));
  assert.ok(seedLie.problems.some((p) => p.startsWith("The dealer should hold")));

  const swapped = verifyRound(round({ promised: "00".repeat(32) }));
  assert.match(swapped.problems.join("\n"), /commitment published before the deal \(00000000…000000\) is not the one in the proof/);

  const changed = verifyRound(round({ changedTo: "ab".repeat(32) }));
  assert.deepEqual(changed.problems, ["The commitment changed during the round, from 630dcd29…d710dd to abababab…ababab."]);

  const cards = verifyRound(round({ dealer: ["Ad", "7c", "4c", "9c", "7h"] }));
  assert.deepEqual(cards.problems, ["The dealer should hold Ad 7c 4c 9c 7s, not Ad 7c 4c 9c 7h."]);

  const hands = verifyRound(round({ seats: [{ seat: 0, name: "Ann", cards: SEAT_2 }, { seat: 3, name: "Bob", cards: SEAT_1 }] }));
  assert.equal(hands.problems.length, 2);
  assert.equal(hands.problems[1], "Seat 4 (Bob) should hold 8d As 5c 3h Jh, not Th Tc 2s 3s Kd.");

  const mine = verifyRound(round({ mySeeds: { 3: "mine" } }));
  assert.deepEqual(mine.problems, ["Seat 4 (Bob) should have been dealt with your client seed “mine”, but the proof used none (empty)."]);

  assert.deepEqual(verifyRound(round({ proof: proof({ server_seed: "zz" }) })).problems, ["The server seed is not hex."]);
  assert.match(verifyRound(round({ roundId: "other" })).problems[0], /nonce “casino-1-00112233aabbccdd” is not this round's id “other”/);
  assert.match(verifyRound(round({ proof: proof({ client_seeds: "lucky-7" }) })).problems[0], /name 1 seat, but 2 hands were dealt/);
  assert.equal(verifyRound(round({ proof: null })).ok, false);
});

test("without a commitment seen before the deal it checks the proof's own and says so", () => {
  const verdict = verifyRound(round({ promised: null }));
  assert.equal(verdict.ok, true);
  assert.equal(verdict.notes.length, 1);
  const forged = verifyRound(round({ promised: null, proof: proof({ commitment: "ab".repeat(32) }) }));
  assert.match(forged.problems[0], /not the commitment in the proof/);
});

test("client seeds the server accepts", () => {
  for (const ok of ["", "lucky-7", "a.b_c-D9", "x".repeat(64)]) assert.ok(CLIENT_SEED_PATTERN.test(ok), ok);
  for (const bad of ["has,comma", "x".repeat(65), "sp ace", "é"]) assert.ok(!CLIENT_SEED_PATTERN.test(bad), bad);
});
