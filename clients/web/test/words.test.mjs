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
