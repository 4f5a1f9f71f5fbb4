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

test("a bet built is not counted on Deal while the bets are closed", () => {
  // sat down mid-round with $100 built: at the showdown the circle is empty (the bet is
  // for the next round), and Deal said "Deal · $101.00, needs $301.00" beside it
  const snap = { ...waiting(), phase: "showdown", round_id: "alpha-1" };
  const root = renderTable({
    snap, me: { player_id: "p-ann" }, row: null,
    build: (i) => (i === 0 ? { chips: [10000], progressive: true } : { chips: [], progressive: false }),
    chip: 10000, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    available: 15000, layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null,
    rebet: null, fair: {},
  });
  assert.equal(root.byTestId("ante-0").getAttribute("data-cents"), "0");
  assert.equal(root.byTestId("deal").textContent, "Deal");
  assert.equal(root.byTestId("deal-needs"), null);
});

/** The rack for Ann on seats 0-2, last round's bets `rebet`, and `built` now. */
function rack(rebet, built) {
  const snap = waiting();
  snap.seats = [0, 1, 2].map(() => ({ ...snap.seats[0] }));
  return renderTable({
    snap, me: { player_id: "p-ann" }, row: null,
    build: (i) => built[i] ?? { chips: [], progressive: false },
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    available: 1000000, layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null,
    rebet, fair: {},
  });
}

test("Rebet says last round's whole bet, as Deal reads it after, whatever is built", () => {
  const last = { 0: { amount: 500, progressive: true }, 1: { amount: 300, progressive: false },
    2: { amount: 10000, progressive: false } };
  const none = rack(last, {});
  assert.equal(none.byTestId("rebet").textContent, "Rebet$109");
  // seat 0 already holds its bet again and seat 2 holds $25 of its $100: still $109, the
  // bet Deal reads once Rebet is pressed (it said $103: seats 1 and 2 alone)
  const some = rack(last, { 0: { chips: [500], progressive: true }, 2: { chips: [2500], progressive: false } });
  assert.equal(some.byTestId("rebet").textContent, "Rebet$109");
  assert.match(some.byTestId("rebet").getAttribute("title"), /#1 \$5 \+ progressive, #2 \$3, #3 \$100/);
  assert.equal(some.byTestId("rebet").getAttribute("disabled"), null);
  // everything built as last round: nothing to do
  const all = rack(last, { 0: { chips: [500], progressive: true }, 1: { chips: [100, 100, 100], progressive: false },
    2: { chips: [10000], progressive: false } });
  assert.equal(all.byTestId("rebet").getAttribute("disabled"), "");
  assert.match(all.byTestId("deal").textContent, /^Deal · \$109\.00/);
});

/** The table's message for Ann with an undecided hand dealt, drawn with `extra`. */
function deciding(extra) {
  const snap = waiting();
  Object.assign(snap, { phase: "deciding", round_id: "alpha-1", ends_in_ms: 20000 });
  Object.assign(snap.seats[0], { ante: 500, ready: true, cards: ["As", "Kd", "7s", "7c", "2d"] });
  snap.dealer.cards = [null, null, null, null, "Qs"];
  const root = renderTable({
    snap: { ...snap, ...extra }, me: { player_id: "p-ann" }, row: null,
    build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: false, jackpot: 100000,
    available: 100000, layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null,
    rebet: null, fair: {},
  });
  return root.byTestId("table-message").textContent;
}

test("offline mid-decision, the page says both things that may come: a fold by the clock, or a void", () => {
  // its server may be frozen (no clock runs) and another take the table over: that
  // round is voided and refunded, not folded (it used to say only "folds at zero")
  // said short, and without the casino's other servers (the player sees one table)
  const text = deciding({});
  assert.equal(text, "Connection lost — reconnecting… An undecided hand folds when the clock reaches zero, "
    + "unless the round is voided (every bet refunded).");
});

test("a table paused for its store says it may be refusing writes, not only silent", () => {
  // a Redis out of memory or short of replicas answers at once, refusing writes: "not
  // answering" alone was untrue
  const text = deciding({ phase: "suspended", suspended: { phase: "deciding", reason: "store", since_ms: 0 } });
  assert.match(text, /not answering or not taking writes/);
});

test("a table paused for its lease says a takeover voids the round, not only that play goes on", () => {
  const text = deciding({ phase: "suspended", suspended: { phase: "deciding", reason: "lease", since_ms: 0 } });
  assert.match(text, /cannot renew its hold on the table/);
  assert.match(text, /if another server takes the table over, the round is voided and every bet refunded/);
});

/** Ann's rack and seat 0 in `phase`: an ante of $5 with the progressive, `seat` on top. */
function roundAt(phase, seat = {}, { now = 0, deal = null } = {}) {
  const snap = waiting();
  Object.assign(snap, { phase, round_id: "alpha-1", ends_in_ms: 20000 });
  Object.assign(snap.seats[0], { ante: 500, progressive: true, ready: true,
    cards: ["Ah", "Kc", "9h", "7d", "2c"], hand: { category: "high_card", label: "High Card" }, ...seat });
  snap.dealer.cards = [null, null, null, null, "Qs"];
  return renderTable({
    snap, me: { player_id: "p-ann" }, row: null, build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now, online: true, jackpot: 100000,
    available: 100000, layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal,
    rebet: { 0: { amount: 500, progressive: true } }, fair: {},
  });
}

test("the rack says what the selected hand can do now, and the keys that act now", () => {
  const betting = roundAt("betting", { cards: null, hand: null, ready: false });
  assert.match(betting.byTestId("selected-seat").textContent, /^Seat #1: \$5 \+ progressive/);
  assert.match(betting.byTestId("key-help").textContent, /a rebet · d deal/);
  const deciding = roundAt("deciding");
  assert.match(deciding.byTestId("selected-seat").textContent, /^Seat #1: fold, or raise \$10/);
  assert.match(deciding.byTestId("key-help").textContent, /f fold · r raise/);
  const raised = roundAt("deciding", { decision: "raise" });
  assert.match(raised.byTestId("selected-seat").textContent, /^Seat #1: raised \$10/);
  // nothing left to fold or raise, and Rebet and Deal are off: no key says otherwise
  for (const root of [raised, roundAt("showdown", { decision: "raise",
    result: { outcome: "win", net: 1500, returned: 3000, progressive_prize: 0 } })]) {
    const keys = root.byTestId("key-help").textContent;
    assert.doesNotMatch(keys, /rebet|deal|fold|raise/, keys);
    assert.equal(root.byTestId("deal").getAttribute("disabled"), "");
    assert.equal(root.byTestId("rebet").getAttribute("disabled"), "");
  }
  const showdown = roundAt("showdown", { decision: "raise",
    result: { outcome: "win", net: 1500, returned: 3000, progressive_prize: 0 } });
  assert.match(showdown.byTestId("selected-seat").textContent, /^Seat #1: Win \+\u2060?\$15\.00/);
  assert.doesNotMatch(showdown.byTestId("selected-seat").textContent, /progressive/);
});

test("a hand is named once its fifth card has landed, not while it flies in", async () => {
  const { FLY_MS, startDeal } = await import("../js/deal.js");
  const snap = waiting();
  Object.assign(snap, { phase: "deciding", round_id: "alpha-1" });
  Object.assign(snap.seats[0], { cards: [null, null, null, null, null] });
  snap.dealer.cards = [null, null, null, null, "Qs"];
  const deal = startDeal(snap, 0); // seat 0 and the dealer: seat 0's fifth is card 8
  const out = 8 * deal.step;
  const label = (now) => roundAt("deciding", {}, { now, deal }).byTestId("seat-0-hand").textContent;
  assert.equal(label(out - 1), ""); // four cards out
  assert.equal(label(out), ""); // the fifth out, on its way
  assert.equal(label(out + FLY_MS), "High Card"); // the fifth down: all five seen
});

test("one word for each thing: the progressive bet, and a dealer who did not qualify", async () => {
  // a phone's button says Progressive, as the rules and the rack do (it said Jackpot)
  const phone = roundAt("betting", { ante: 0, ready: false, cards: null, hand: null });
  assert.match(phone.byTestId("progressive-0").textContent, /^Progressive/);
  // a narrow seat's "No qualify" is an abbreviation of the phone's and History's words
  const snap = waiting();
  Object.assign(snap, { phase: "showdown", round_id: "alpha-1" });
  Object.assign(snap.seats[0], { ante: 500, progressive: true, ready: true, decision: "raise",
    cards: ["Ah", "Kc", "9h", "7d", "2c"], hand: { category: "high_card", label: "Ace-King" },
    // no qualify: the ante paid 1:1 ($10) and the raise back ($10); staked $5 + $10 + $1
    result: { outcome: "no_qualify", net: 400, returned: 2000, progressive_prize: 0 } });
  const arc = renderTable({
    snap, me: { player_id: "p-bob" }, row: null, build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    available: 100000, selected: null, deal: null, rebet: null, fair: {},
    layout: { mode: "arc", width: 900, height: 500, seat: { w: 96 }, dealer: { cardsY: 40 }, printTop: null,
      positions: [{ x: 0, y: 200, w: 96, h: 300 }, { x: 110, y: 200, w: 96, h: 300 }], vars: {} },
  });
  const outcome = arc.byTestId("seat-0-result").withClass("outcome")[0];
  const abbr = outcome.children.find((c) => c.tagName === "ABBR");
  assert.equal(abbr?.getAttribute("title"), "Dealer did not qualify");
  assert.equal(abbr.textContent, "No\u00a0qualify");
  assert.match(arc.byTestId("seat-0-side-bet").getAttribute("aria-label"), /^Progressive bet/);
  assert.equal(arc.byTestId("progressive-0").getAttribute("aria-label"), "Progressive bet placed");
});

test("History says the progressive bet in words", async () => {
  const { renderHistory } = await import("../js/history.js");
  const seat = (n, who, name) => ({ seat: n, player_id: who, name, ante: 500, progressive: true,
    decision: "raise", cards: ["Ah", "Kc", "9h", "7d", "2c"], hand: { label: "Ace-King" },
    // no qualify: the ante paid 1:1 ($10) and the raise back ($10); staked $5 + $10 + $1
    result: { outcome: "no_qualify", net: 400, returned: 2000, progressive_prize: 0 } });
  const root = renderHistory({
    history: { open: true, loading: false, error: null, rounds: [{ round_id: "alpha-1", table: "alpha",
      variant: "casino-stud", dealer: ["Kc", "Qh", "9d", "6s", "2c"], dealer_hand: { label: "King High" },
      seats: [seat(0, "p-ann", "Ann"), seat(4, "p-bob", "Bob")], balance_before: 1000, balance_after: 1400 }] },
    me: { player_id: "p-ann" }, lobby: null, verdicts: {},
  });
  const text = root.textContent;
  assert.match(text, /ante \$5 \+ progressive/);
  assert.doesNotMatch(text, /\+ JP/);
  assert.match(text, /Seat 5/); // another player's hand says its seat
  // the stake that won nothing, as the table's seat and the rack say it
  const lost = root.byTestId("history-seat-side-bet");
  assert.equal(lost?.getAttribute("data-cents"), "-100");
  assert.match(lost.textContent, /incl\. JP −\u2060\$1/);
});

test("a seat sitting the round out can be stood up from in any phase, on the arc too", () => {
  // the server frees a seat with no bet in play at any time; the arc offered Stand only
  // while waiting or betting, so a player sitting a round out could not stand until
  // the next round opened
  for (const phase of ["deciding", "showdown"]) {
    const snap = waiting();
    Object.assign(snap, { phase, round_id: "alpha-1" });
    snap.seats[1] = { ...snap.seats[0], player_id: "p-bob", name: "Bob", ante: 500, ready: true,
      cards: ["Ah", "Kc", "9h", "7d", "2c"], decision: phase === "showdown" ? "raise" : null };
    const arc = renderTable({
      snap, me: { player_id: "p-ann" }, row: null, build: () => ({ chips: [], progressive: false }),
      chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
      available: 100000, selected: 0, deal: null, rebet: null, fair: {},
      layout: { mode: "arc", width: 900, height: 500, seat: { w: 96 }, dealer: { cardsY: 40 }, printTop: null,
        positions: [{ x: 0, y: 200, w: 96, h: 300 }, { x: 110, y: 200, w: 96, h: 300 }], vars: {} },
    });
    assert.notEqual(arc.byTestId("stand-0"), null, phase);
    assert.equal(arc.byTestId("stand-1"), null, phase); // not another's, nor a seat with a hand
  }
});

test("Stand up says so wherever it fits, and to a screen reader everywhere", () => {
  // a narrow seat on the arc said "Stand" and the rest of the page "Stand up": one name,
  // said short only where Clear stands beside it in a seat under 140 px
  const snap = waiting();
  snap.phase = "betting";
  const arc = (chips, w) => renderTable({
    snap, me: { player_id: "p-ann" }, row: null, build: () => ({ chips, progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    available: 100000, selected: 0, deal: null, rebet: null, fair: {},
    layout: { mode: "arc", width: 900, height: 500, seat: { w }, dealer: { cardsY: 40 }, printTop: null,
      positions: [{ x: 0, y: 200, w, h: 300 }, { x: 110, y: 200, w, h: 300 }], vars: {} },
  }).byTestId("stand-0");
  for (const [chips, w, words] of [[[], 96, "Stand up"], [[500], 96, "Stand"], [[500], 160, "Stand up"]]) {
    const stand = arc(chips, w);
    assert.equal(stand.textContent, words, `${chips.length} chips, ${w} px`);
    assert.equal(stand.getAttribute("aria-label"), "Stand up");
    assert.match(stand.getAttribute("title"), /^Stand up/);
  }
});

test("the rack's line says how many hands in a few words, how to add one in its title", () => {
  // at 1280 px the line was cut: "Seat #1: $10 · 1 hand (up to 3: “+ Hand” o…"
  const root = renderTable({
    snap: waiting(), me: { player_id: "p-ann" }, row: null, build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    available: 100000, layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null,
    rebet: null, fair: {},
  });
  const line = root.byTestId("selected-seat");
  assert.match(line.textContent, / · 1 hand \(up to 3\)$/);
  const hint = line.children.find((c) => c.getAttribute?.("title"));
  assert.match(hint.getAttribute("title"), /“\+ Hand” on a free seat/);
});

test("with several hands the rack's line says the selected one is one of them", () => {
  // "Seat #1: $10 · 3 hands" beside "Deal · $21.00" read as the three hands' bet, and
  // "Seat #8: $0 · 1 of 3 hands" on every seat as "this is hand 1"
  const snap = waiting();
  snap.seats = [0, 1, 2].map(() => ({ ...snap.seats[0] }));
  const root = renderTable({
    snap, me: { player_id: "p-ann" }, row: null,
    build: (i) => ({ chips: i === 0 ? [1000] : [500], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: true, jackpot: 100000,
    available: 100000, layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null,
    rebet: null, fair: {},
  });
  assert.equal(root.byTestId("selected-seat").textContent, "Seat #1: $10 · one of your 3 hands");
  assert.doesNotMatch(root.byTestId("selected-seat").textContent, /\b1 of/);
  assert.equal(root.byTestId("deal").textContent, "Deal · $20.00");
});

test("the rack's result names the progressive the net counts, and offline no key is offered", () => {
  const lost = roundAt("showdown", { decision: "raise",
    result: { outcome: "no_qualify", net: 0, returned: 1500, progressive_prize: 0 } });
  assert.match(lost.byTestId("selected-seat").textContent, /\$0\.00 \(incl\. JP −\u2060?\$1\)$/);
  const won = roundAt("showdown", { decision: "raise",
    result: { outcome: "no_qualify", net: 5100, returned: 1500, progressive_prize: 5000 } });
  assert.match(won.byTestId("selected-seat").textContent, /\(incl\. JP \+\$50\)$/);
  const snap = waiting();
  const offline = renderTable({
    snap, me: { player_id: "p-ann" }, row: null, build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 3, receivedAt: 0, now: 0, online: false, jackpot: 100000,
    available: 100000, layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null,
    rebet: null, fair: {},
  });
  assert.equal(offline.byTestId("key-help").textContent, "Keys: none act until the connection is back");
});

test("the seed's words say whether the deal on the table took it", async () => {
  const { seedWords } = await import("../js/fairview.js");
  // a showdown whose "This deal" lists the seed: it went into this deal
  assert.equal(seedWords("lucky-7", "showdown", true), "Your seed “lucky-7” went into this deal, and goes into every one after.");
  assert.equal(seedWords("lucky-7", "deciding", true), "Your seed “lucky-7” went into this deal, and goes into every one after.");
  // set after the deal: the next one
  assert.equal(seedWords("lucky-7", "showdown", false), "Your seed “lucky-7” goes into every deal from the next one on.");
  assert.equal(seedWords("lucky-7", "betting", false), "Your seed “lucky-7” goes into this round's deal and every one after.");
});
