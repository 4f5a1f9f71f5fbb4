// Refusals in words (js/format.js errorText). At the balance cap a player was told
// "You can buy at most $0.00 of chips now", true but with no word of why.
import assert from "node:assert/strict";
import { test } from "node:test";

import { errorText } from "../js/format.js";

const plain = (text) => text.replaceAll("\u2060", "");
const refused = (frame) => plain(errorText({ frame: { code: "buy_in_limit", ...frame } }));

test("a purchase refused at the balance cap names the cap", () => {
  assert.equal(refused({ allowed: 0, max_balance: 10000000 }),
    "Your balance (chips on hold included) is at the wallet's $100,000.00 cap: no chips can be "
    + "bought until it is below it again.");
  assert.equal(refused({ allowed: 961200, max_balance: 10000000 }),
    "That purchase would take your balance (chips on hold included) past the wallet's "
    + "$100,000.00 cap. You can buy at most $9,612.00 of chips now.");
});

test("a purchase over the per-purchase limit says what may be bought, as before", () => {
  assert.equal(refused({ allowed: 1000000 }),
    "That purchase is over the limit. You can buy at most $10,000.00 of chips now.");
});

// Betting closes without a player away with no ante (the server does not wait for
// them), so "1 of 2 players ready" never waited for the second.
test("betting's readiness counts only the players it waits for", async () => {
  const { readiness } = await import("../js/format.js");
  const seat = (player_id, fields) => ({ player_id, connected: true, ante: 0, ready: false, ...fields });
  assert.equal(readiness([seat("a", { ante: 100, ready: true }), seat("b"), null]),
    "1 of 2 players ready");
  assert.equal(readiness([seat("a", { ante: 100, ready: true }), seat("b", { connected: false })]),
    "1 of 1 player ready");
  assert.equal(readiness([seat("a", { ante: 100 }), seat("b", { connected: false, ante: 100 })]),
    "0 of 2 players ready");
  // a player's seats count once; one of them staked keeps the player waited for
  assert.equal(readiness([
    seat("a", { ante: 100, ready: true }),
    seat("b", { connected: false }), seat("b", { connected: false, ante: 500 }),
  ]), "1 of 2 players ready");
});

test("a long notice is given the time to be read before it folds", async () => {
  const { readingMs } = await import("../js/format.js");
  assert.equal(readingMs("Seat #2 is taken."), 10000, "a short one: ten seconds, as ever");
  const restart = "“Nine” is back: its server shut down and was started again. ".repeat(5);
  assert.ok(readingMs(restart) > 20000, "some 300 letters: about 70 ms a letter");
  assert.ok(readingMs(restart) < readingMs(restart + restart));
});
