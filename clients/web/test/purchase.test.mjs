// Chip purchases (js/purchase.js) over a fake link: a purchase whose answer is lost
// goes again under the same key until an answer comes; a refusal ends it; one on
// its way blocks another; a reload carries it on; another player never sends it.
import assert from "node:assert/strict";
import { test } from "node:test";

const stored = new Map();
globalThis.sessionStorage = {
  getItem: (k) => (stored.has(k) ? stored.get(k) : null),
  setItem: (k, v) => stored.set(k, String(v)),
  removeItem: (k) => stored.delete(k),
};
const { ServerError } = await import("../js/connection.js");
const { Purchases } = await import("../js/purchase.js");

/** A link whose answers the test gives, request by request. */
function fakeConn() {
  const conn = { open: true, sent: [], answers: [] };
  conn.request = (t, fields) => new Promise((resolve, reject) => {
    conn.sent.push({ t, ...fields });
    conn.answers.push({ resolve, reject });
  });
  return conn;
}

function said() {
  const out = { waiting: [], errors: [], bought: [] };
  out.onWaiting = (amount) => out.waiting.push(amount);
  out.onError = (err) => out.errors.push(err);
  out.onBought = (amount) => out.bought.push(amount);
  out.unknown = [];
  out.onUnknown = (amount) => out.unknown.push(amount);
  return out;
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test("a lost answer sends the same purchase, key and all, once connected again", async () => {
  stored.clear();
  const conn = fakeConn();
  const say = said();
  const buys = new Purchases(conn, say);
  assert.equal(buys.buy(2500, "p1"), true);
  assert.equal(buys.buy(100, "p1"), false); // one at a time
  const [first] = conn.sent;
  assert.match(first.key, /^web-[0-9a-f]{24}$/);
  conn.open = false;
  conn.answers[0].reject(new Error("The connection to the server was lost."));
  await tick();
  assert.deepEqual(say.waiting, [2500]);
  assert.equal(conn.sent.length, 1); // not while the link is down
  // a reload: a new page finds the purchase in sessionStorage
  const reloaded = new Purchases(conn, say);
  assert.deepEqual(reloaded.waiting, buys.waiting);
  conn.open = true;
  reloaded.send("p1"); // after the welcome
  assert.deepEqual(conn.sent[1], { t: "buy_chips", amount: 2500, key: first.key });
  conn.answers[1].resolve({ t: "ok" });
  await tick();
  assert.equal(reloaded.waiting, null);
  assert.deepEqual(say.bought, [2500]);
  assert.equal(stored.get("stud.purchase"), undefined);
  assert.equal(reloaded.buy(100, "p1"), true);
  assert.notEqual(conn.sent[2].key, first.key); // a new purchase, a new key
});

test("a refusal ends the purchase and is shown", async () => {
  stored.clear();
  const conn = fakeConn();
  const say = said();
  const buys = new Purchases(conn, say);
  buys.buy(9_999_999, "p1");
  conn.answers[0].reject(new ServerError({ t: "error", code: "buy_in_limit" }));
  await tick();
  assert.equal(buys.waiting, null);
  assert.equal(say.errors[0].code, "buy_in_limit");
  assert.deepEqual(say.waiting, []);
});

test("another player signed in on the tab does not send the last one's purchase", async () => {
  stored.clear();
  const conn = fakeConn();
  const buys = new Purchases(conn, said());
  buys.buy(500, "p1");
  conn.open = false;
  conn.answers[0].reject(new Error("lost"));
  await tick();
  conn.open = true;
  buys.send("p2");
  assert.equal(conn.sent.length, 1);
  assert.equal(buys.waiting, null);
});

test("after a try without an answer, 'not this try' refusals send the same key again", async () => {
  stored.clear();
  const conn = fakeConn();
  const say = said();
  const buys = new Purchases(conn, say);
  buys.buy(700, "p1");
  conn.open = false;
  conn.answers[0].reject(new Error("lost"));
  await tick();
  conn.open = true;
  buys.send("p1");
  // the store is away for this try: the first may still have landed, so keep at it
  conn.answers[1].reject(new ServerError({ t: "error", code: "store_unavailable" }));
  await tick();
  assert.notEqual(buys.waiting, null);
  assert.deepEqual(say.errors, []);
  buys.send("p1"); // (the retry timer's job)
  assert.equal(conn.sent[2].key, conn.sent[0].key);
  conn.answers[2].resolve({ t: "ok" });
  await tick();
  assert.deepEqual(say.bought, [700]);
});

test("a first try refused as not taken is over: nothing was bought", async () => {
  stored.clear();
  const conn = fakeConn();
  const say = said();
  const buys = new Purchases(conn, say);
  buys.buy(700, "p1");
  conn.answers[0].reject(new ServerError({ t: "error", code: "store_unavailable" }));
  await tick();
  assert.equal(buys.waiting, null);
  assert.equal(say.errors[0].code, "store_unavailable");
});

test("an amount over the limit gives way to one that can be bought", async () => {
  const { amountAfterRefusal } = await import("../js/purchase.js");
  const over = (frame) => amountAfterRefusal({ frame: { code: "buy_in_limit", ...frame } });
  assert.equal(over({ max_buy_chips: 1_000_000 }), "500"); // 99999 typed: the usual $500
  assert.equal(over({ allowed: 30_050 }), "300"); // less room left than that: the most
  assert.equal(over({}), "500");
  assert.equal(amountAfterRefusal({ frame: { code: "rate_limited" } }), null); // kept
  assert.equal(amountAfterRefusal(new Error("x")), null);
});
