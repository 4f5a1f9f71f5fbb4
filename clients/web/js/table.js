// The table view, drawn from one `table` snapshot (the whole public state of
// the table, with the player's own cards of a private deal filled in: see
// hands.js) plus what this tab keeps locally: the chip selected, the seat
// selected, the bets being built, last round's bets (for Rebet), the deal being
// shown card by card, and the felt's measured size (layout.js places the
// seats). Nothing here applies events: every snapshot redraws the view.

import { dealtRow } from "./cards.js";
import { CHIPS, chipFace, chipStack } from "./chips.js";
import { DEALER, asDealt, dealLanded, hasLanded, isDealt } from "./deal.js";
import { h } from "./dom.js";
import { shortHex, verdictEl, verifyButton } from "./fairview.js";
import {
  OUTCOMES, clientSeedsText, dollars, progressivePaid, qualifies, readiness, seatStatus,
  signedDollars,
} from "./format.js";
import { KEY_HELP, keyHelp } from "./keys.js";
import { progressivePaytable, raisePaytable } from "./paytable.js";

const RAISE_MULTIPLE = 2;
const PHASE_NAMES = { waiting: "Waiting for bets", betting: "Betting", deciding: "Fold or raise", showdown: "Showdown" };
const WIDE_SEAT = 140; // px: wide enough for "Raise $20" on one line
/** Outcomes too long for a narrow seat's result, said short there. */
const SHORT_OUTCOMES = { no_qualify: "No\u00a0qualify" }; // kept on one line

/** What was left, when the snapshot was made, of the grace a server shutting down
 * (`paused.shutdown`) gives a round in play (`paused.voids_in_ms`); null when none is
 * said. Kept on the snapshot as `shutdownLeftMs` when it comes (js/frames.js). */
export function shutdownLeftMs(paused) {
  return paused?.shutdown && typeof paused.voids_in_ms === "number" ? paused.voids_in_ms : null;
}

/** Milliseconds left on the snapshot's timer, `null` when it has none. While its server
 * shuts down, a round still betting or deciding at the grace's end is voided: the clock
 * counts to whichever comes first, the round's own deadline or the shutdown's (it read
 * "Fold or raise 43s" under a strip saying such a round is voided within 30 s). */
export function remainingMs(snap, receivedAt, now) {
  if (snap?.ends_in_ms === null || snap?.ends_in_ms === undefined) return null;
  const voids = (snap.phase === "betting" || snap.phase === "deciding")
    && typeof snap.shutdownLeftMs === "number";
  const ends = voids ? Math.min(snap.ends_in_ms, snap.shutdownLeftMs) : snap.ends_in_ms;
  return Math.max(0, ends - (now - receivedAt));
}

/** "12s" for the countdown. */
export function countdownText(ms) {
  return ms === null ? "" : `${Math.ceil(ms / 1000)}s`;
}

/**
 * Back online in a round still waiting for the player's decision: how long the table was
 * unheard (`awayMs`), and whether its clock ran on meanwhile, from the time left to decide
 * now (`ms`, null without a clock) beside what was left when it was last heard
 * (`leftBefore`). The clock ran on only as far as
 * less is left now: a server that stood still (stopped, starved of CPU) stopped its
 * clocks with it and gave the time back (PROTOCOL.md), so then it stood still, whatever
 * the wait.
 */
export function backOnlineText({ awayMs, ms, leftBefore = null, seats, many = false }) {
  const head = `Back online, ${countdownText(awayMs)} after the table was last heard`;
  if (ms === null) return `${head}: ${seats} still ${many ? "wait" : "waits"} for your decision.`;
  const ran = leftBefore === null ? awayMs : leftBefore - ms; // what the clock took meanwhile
  // (roughly: a table is heard every few seconds, its server may stop any time after:
  // the seconds before that count too, though the clock stood still the rest)
  const clock = ran >= awayMs - 1000 ? "ran on" : ran < Math.max(1000, awayMs / 2) ? "stood still"
    : `ran ${countdownText(ran)} of that`;
  // no figure of the time left: the notice stays while the clock runs on, and the table's
  // clock counts it down
  const wait = `${seats} still ${many ? "wait" : "waits"} for your decision`;
  return `${head}; its clock ${clock}: ${wait} (the time left is on the table's clock).`;
}

/** Said in place of the seconds while the server is silent. */
export const WAITING_TEXT = "waiting for the server…";

/**
 * The table's clock as shown: the snapshot's timer runs here only while the server is
 * heard. `link.online === false` (offline, reconnecting, another tab plays): no clock,
 * as the terminal client's. `link.quiet` (open, but nothing heard for as long as the
 * link waits before it pings): a frozen host's clock stopped and nothing may happen at
 * zero, so no seconds are promised; it says it waits for the server, until a frame comes.
 * @returns {{hidden: boolean, text: string, urgent: boolean, waiting: boolean}}
 */
export function clockView(snap, receivedAt, now, link = {}) {
  const ms = remainingMs(snap, receivedAt, now);
  if (ms === null || link.online === false) return { hidden: true, text: "", urgent: false, waiting: false };
  if (link.quiet) return { hidden: false, text: WAITING_TEXT, urgent: false, waiting: true };
  return { hidden: false, text: countdownText(ms), urgent: ms < 5000, waiting: false };
}

/** The clock's element: the table head's (`countdown`) or the dealer's. */
function clockEl(v, cls, testid) {
  const c = clockView(v.snap, v.receivedAt, v.now, { online: v.online, quiet: v.quiet });
  return h("span", { class: `${cls}${c.urgent ? " urgent" : ""}${c.waiting ? " waiting" : ""}`,
    "data-testid": testid, "data-waiting": c.waiting ? "true" : null, hidden: c.hidden }, c.text);
}

/** The amount of a built bet (its chips added up). */
export function buildAmount(build) {
  return (build?.chips ?? []).reduce((sum, c) => sum + c, 0);
}

/**
 * The table section.
 * @param {object} ctx {snap, row, me, build(seat) -> {chips, progressive}, chip, busy, maxSeats,
 *   receivedAt, now, online, quiet (open, but the server silent: see clockView), jackpot,
 *   layout (layout.js seatLayout), selected (own seat or null),
 *   deal (deal.js startDeal, or null), rebet ({seat: {amount, progressive}} or null),
 *   sideOpen, fair: {seed, seedStatus, lastDeal, verdict}} (see fairBox), operator (the
 *   operator console's read-only view: no spectator's bar, whose words are a player's)
 */
/** Why a suspended table waits, in words (PROTOCOL.md §6, Faults). */
const PAUSED_WHY = {
  store: "Paused: the game's data store is not answering or not taking writes. Nothing is lost; "
    + "play goes on where it stopped.",
  lease: "Paused: this server cannot renew its hold on the table. Nothing is lost: play goes on where it "
    + "stopped, or, if another server takes the table over, the round is voided and every bet refunded.",
  store_lost: "Paused: the game's data store came back without its data. Play waits until the casino "
    + "restores it; nothing is taken or paid meanwhile.",
};

export function renderTable(ctx) {
  // A suspended table is drawn as it stood (its round's phase), under a notice, with
  // every control off; `data-phase` says "suspended".
  const suspension = ctx.snap.suspended ?? null;
  const raw = ctx.snap;
  if (suspension) ctx = { ...ctx, snap: { ...raw, phase: suspension.phase }, busy: true, suspension };
  // offline nothing can be sent: no button pretends it could; nor while the server is
  // silent (a click then went into the stall and was applied later, unseen)
  if (ctx.online === false || ctx.quiet) ctx = { ...ctx, busy: true };
  const mine = raw.seats
    .map((s, i) => (s && s.player_id === ctx.me?.player_id ? i : -1))
    .filter((i) => i >= 0);
  const layout = ctx.layout ?? { mode: "flow", positions: [], vars: {} };
  // the deal is shown only while its round is deciding: a showdown (everyone decided, or
  // none of the viewer's hands in it) is drawn as it is, never behind the flying cards
  const dealing = ctx.deal && ctx.deal.round_id === raw.round_id && raw.phase === "deciding"
    && !dealLanded(ctx.deal, ctx.now) ? ctx.deal : null;
  // while the cards are still coming out, nothing that came after them shows
  if (dealing) ctx = { ...ctx, snap: asDealt(ctx.snap, mine) };
  const { snap } = ctx;
  const view = { ...ctx, mine, seated: mine.length > 0, layout, dealing };
  return h("section", {
    id: "table",
    class: `table-view phase-${snap.phase} layout-${layout.mode}${ctx.online ? "" : " offline"}${suspension ? " suspended" : ""}`
      + (ctx.online && ctx.quiet && !suspension ? " quiet" : "") + (ctx.elsewhere ? " elsewhere" : ""),
    "data-testid": "table-view", "data-table": snap.table, "data-phase": raw.phase,
    "data-role": view.seated ? "player" : "spectator", "data-layout": layout.mode,
    "data-hands": snap.hands ?? "open", "data-dealing": dealing ? "true" : "false",
  },
  tableHead(view),
  pausedNote(view),
  h("div", { class: "table-layout" },
    h("div", { class: "felt-wrap" }, felt(view),
      view.seated ? controls(view) : ctx.operator ? null : spectatorBar(view)),
    sidePanel(view)));
}

/** "this server…" -> "This server…": a reason shown on its own starts a sentence. */
function capitalized(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function tableHead(v) {
  const { snap, row } = v;
  return h("div", { class: "table-head" },
    v.leaveArmed
      ? h("button", { class: "btn fold leave armed", "data-action": "leave", "data-testid": "leave",
        "data-armed": "true", title: "Leave now: your undecided hands fold (l)" }, "← Fold & leave")
      // a phone shows the arrow alone: its name says what it does; a spectator has no
      // seat to leave: it says where it goes
      : v.seated
        ? h("button", { class: "btn ghost leave", "data-action": "leave", "data-testid": "leave",
          title: "Leave the table (l)", "aria-label": "Leave table" },
        "← ", h("span", { class: "leave-word" }, "Leave table"))
        : h("button", { class: "btn ghost leave", "data-action": "leave", "data-testid": "leave",
          title: "Stop watching: back to the lobby (l)", "aria-label": "Back to the lobby" },
        "← ", h("span", { class: "leave-word" }, "Lobby")),
    h("div", { class: "title" },
      h("h1", { "data-testid": "table-title", tabindex: "-1" }, snap.title ?? snap.table),
      h("span", { class: "variant" }, row?.variant?.title ?? snap.variant)),
    h("div", { class: "limits", "data-testid": "limits",
      title: `Ante ${dollars(snap.min_ante)} to ${dollars(snap.max_ante)}, `
        + `progressive ${dollars(snap.progressive_stake)}` },
      `Ante ${dollars(snap.min_ante, { short: true })} – ${dollars(snap.max_ante, { short: true })}`,
      h("span", { class: "sep" }, "·"),
      // "JP" where the head is short of room: the word the seats' lights use
      h("span", { class: "wide-word" }, "Progressive"), h("span", { class: "short-word" }, "JP"),
      ` ${dollars(snap.progressive_stake, { short: true })}`),
    h("div", { class: "watchers", "data-testid": "spectators", "data-count": snap.spectators ?? 0,
      title: "Spectators" }, `${snap.spectators ?? 0} watching`),
    // the side panel under the felt, below the first screen (a small laptop): the way there
    h("button", { class: "btn small ghost to-side", type: "button", "data-action": "to-side",
      "data-testid": "to-side", "aria-controls": "side-body", "aria-label": "Paytable, rules & fair deal, below the table",
      title: "The paytable, the rules and the provably fair deal, below the table" }, "Paytable ↓"),
    h("div", { class: `phase-pill phase-${v.elsewhere ? "elsewhere" : v.suspension ? "suspended" : snap.phase}`,
      "data-testid": "phase" },
      // no round in play and none to start (an operator's pause, a shutdown): not "waiting
      // for bets", every ante being refused; a round in play goes on, and says its phase.
      // A shutdown is no pause of the casino's ("Paused" beside "This server shut down:
      // reconnecting…"): it says the server is going, or gone
      // played in another tab or device: this one's last showdown read "Showdown", live
      v.elsewhere ? "Playing elsewhere"
        : v.suspension ? "Paused"
        : snap.paused && snap.phase === "waiting"
          ? (!snap.paused.shutdown ? "Paused" : v.online === false ? "Offline" : "Shutting down")
          : v.dealing ? "Dealing" : PHASE_NAMES[snap.phase] ?? snap.phase,
      clockEl(v, "countdown", "countdown")),
    h("div", { class: "meter small" },
      h("span", { class: "meter-label" }, "Jackpot"),
      h("span", { class: "meter-value", "data-testid": "jackpot-meter", "data-cents": v.jackpot ?? 0 },
        dollars(v.jackpot ?? 0))));
}

/** The casino's pause, or the server shutting down: a row of its own under the head,
 * whole (squeezed into the head's row it read "a round not over withi…", and let the
 * head's parts wrap: the jackpot went to a row of its own). */
function pausedNote(v) {
  const { snap } = v;
  return snap.paused?.shutdown
    // the server shutting down: its own words say it all (no operator paused anything)
    ? h("div", { class: "paused-note", "data-testid": "table-paused", role: "status",
      title: "No new round starts here; a round not over within the shutdown's grace is voided and every bet refunded" },
    h("span", { class: "paused-reason" }, v.online === false
      ? "This server shut down: reconnecting…"
      : capitalized(snap.paused.reason ?? "this server is shutting down")))
    : h("div", { class: "paused-note", "data-testid": "table-paused", role: "status", hidden: !snap.paused,
      title: snap.paused ? "The round in play finishes; no ante is taken until the table resumes" : null },
    "Paused by the casino", snap.paused?.reason ? h("span", { class: "paused-reason" }, `: ${snap.paused.reason}`) : null);
}

function styleOf(vars) {
  return Object.entries(vars ?? {}).map(([k, val]) => `${k}:${val}`).join(";");
}

function felt(v) {
  const { snap, layout } = v;
  const n = snap.seats.length;
  const arc = layout.mode === "arc";
  const narrow = arc && layout.seat.w < WIDE_SEAT;
  const seatEls = snap.seats.map((seat, i) => {
    const pos = arc ? layout.positions[i] : null;
    return seat ? seatEl(v, seat, i, pos) : emptySeat(v, i, pos);
  });
  const print = h("div", { class: "felt-print", "aria-hidden": "true",
    style: arc && layout.printTop !== null ? `top:${layout.printTop}px` : null,
    hidden: arc && layout.printTop === null },
  (v.row?.variant?.title ?? "Casino Stud Poker").toUpperCase());
  const classes = ["felt", `seats-${n}`, arc ? "arc" : "flow"];
  if (narrow) classes.push("narrow-seats");
  if (arc) {
    return h("div", { class: classes.join(" "), "data-testid": "felt", style: styleOf(layout.vars) },
      print, dealerZone(v), seatEls);
  }
  const own = v.mine.map((i) => seatEls[i]);
  const others = seatEls.filter((_, i) => !v.mine.includes(i));
  return h("div", { class: classes.join(" "), "data-testid": "felt" },
    dealerZone(v),
    own.length ? h("div", { class: "own-seats", "data-testid": "own-seats" }, own) : null,
    h("div", { class: "other-seats", "data-testid": "other-seats" }, others),
    print);
}

function dealerZone(v) {
  const d = v.snap.dealer ?? {};
  const cards = d.cards ?? [];
  const showdown = v.snap.phase === "showdown" && d.hand;
  const q = qualifies(d);
  return h("div", { class: "dealer", "data-testid": "dealer" },
    h("span", { class: "dealer-label" }, "Dealer",
      // a phone scrolls the table head away; the dealer's row stays on screen (CSS) with the clock
      clockEl(v, "dealer-clock", "dealer-countdown")),
    cards.length
      ? dealtRow(cards, {
        testid: "dealer-cards", fresh: Boolean(v.dealing),
        dealt: (k) => isDealt(v.dealing, v.now, DEALER, k),
      })
      : h("div", { class: "cards placeholder", "data-testid": "dealer-cards" },
        [0, 1, 2, 3, 4].map(() => h("div", { class: "card-slot" }))),
    h("div", { class: `dealer-hand${showdown ? (q ? " qualifies" : " not-qualified") : ""}`,
      "data-testid": "dealer-hand" },
    showdown ? `${d.hand.label} — ${q ? "qualifies" : "does not qualify"}` : ""),
    h("p", { class: "table-message", "data-testid": "table-message", role: "status",
      "data-repeats": showdown && q ? "dealer-hand" : null }, message(v),
    // the way back where the news is, not only in the top bar's corner
    v.elsewhere ? h("button", { class: "btn small play-here", "data-action": "reconnect",
      "data-testid": "felt-play-here" }, "Play here") : null));
}

function message(v) {
  const { snap, seated } = v;
  if (v.suspension) return PAUSED_WHY[v.suspension.reason] ?? PAUSED_WHY.store;
  if (v.elsewhere) {
    return "You are playing in another tab or on another device: this is the table as it stood when it "
      + "went there, not as it is. “Play here” brings the game back here.";
  }
  if (v.online === false) {
    const undecided = snap.phase === "deciding" && v.mine.some((i) => snap.seats[i].cards && !snap.seats[i].decision);
    return undecided
      // both things that may come, in short: the clock folds it, or the table's host is
      // lost meanwhile and the round voided (the casino's servers are none of the player's)
      ? "Connection lost — reconnecting… An undecided hand folds when the clock reaches zero, "
        + "unless the round is voided (every bet refunded)."
      : "Connection lost: the table as it last stood. Reconnecting…";
  }
  if (v.quiet) {
    // the buttons greyed out say why: nothing sent now would be answered in sight
    return "Waiting for the server: no answer for a few seconds, so the buttons wait for it. "
      + "If it stays silent, the page reconnects.";
  }
  if (snap.paused?.shutdown && snap.phase === "waiting") {
    return "This server is shutting down: no new round starts here.";
  }
  if (snap.paused && snap.phase === "waiting") {
    return "The casino has paused this table: no new round starts until it resumes.";
  }
  const people = snap.seats.filter(Boolean);
  switch (snap.phase) {
    case "waiting":
      return seated
        ? (v.layout.mode === "flow"
          ? "Pick a chip, tap your circle to bet (− takes one off), then Deal."
          : "Pick a chip, click your circle to bet (right-click takes it off again), then Deal.")
        : people.length ? "Waiting for the first ante." : "The table is open: take a seat.";
    case "betting":
      return `Betting is open — ${readiness(snap.seats)}.`;
    case "deciding":
      if (v.dealing) return "Dealing…";
      return seated && v.mine.some((i) => snap.seats[i].cards && !snap.seats[i].decision)
        ? "Fold or raise each hand — the raise is twice the ante."
        : "Players are deciding: fold or raise.";
    case "showdown": {
      const d = snap.dealer ?? {};
      if (!d.hand) return "Showdown.";
      return qualifies(d)
        ? `Dealer has ${d.hand.label} and qualifies.`
        : `Dealer has ${d.hand.label}: no qualifying hand — antes pay even money.`;
    }
    default:
      return "";
  }
}

function placeStyle(pos) {
  return pos ? `left:${pos.x}px;top:${pos.y}px` : null;
}

function emptySeat(v, i, pos) {
  const canSit = v.mine.length < v.maxSeats;
  const kind = pos ? "arc" : "tile";
  return h("div", { class: `seat empty ${kind}`, style: placeStyle(pos), "data-testid": `seat-${i}`, "data-seat": i },
    h("div", { class: "seat-ring" }, h("span", {}, `${i + 1}`)),
    canSit
      ? h("button", { class: "btn small sit", "data-action": "sit", "data-seat": i, "data-testid": `sit-${i}`,
        disabled: v.busy, title: v.seated ? `Play one more hand from seat ${i + 1}` : `Take seat ${i + 1}` },
      v.seated ? "+ Hand" : "Sit here")
      : h("span", { class: "seat-free muted" }, "Free"));
}

/** Can the viewer still build the ante of this seat (their seat, no ante yet, bets open)? */
export function buildable(v, seat) {
  // a table the casino paused takes no ante (PROTOCOL.md): a bet built there waits, unchanged
  return holdsBuild(v, seat) && !v.busy && !v.snap.paused;
}

/** An own seat whose built bet is drawn: bets open, nothing placed. Offline (and while a
 * request is out) it cannot change, but it stays: the circle showed nothing while the
 * rack said "Seat #7: $5" and "Deal · $5.00". */
function holdsBuild(v, seat) {
  const { phase } = v.snap;
  // ready (Deal said) does not close it: sitting out leaves the seat open
  // to a new ante until betting closes (PROTOCOL.md, `deal`); its circle took no chip
  return seat.player_id === v.me?.player_id && seat.ante === 0
    && (phase === "waiting" || phase === "betting");
}

/** A name drawn in the narrow cut over the seat's whole width: past 10 letters, and on a
 * narrow seat of the arc (nine at a laptop's table) past 6 ("bot9@nine" read "bot9@n…"). */
function longName(v, name, kind) {
  return name.length > (kind === "arc" && v.layout.seat.w < WIDE_SEAT ? 6 : 10);
}

function seatEl(v, seat, i, pos) {
  const mine = seat.player_id === v.me?.player_id;
  const kind = pos ? "arc" : mine ? "big" : "tile";
  const result = seat.result;
  const selected = mine && v.selected === i;
  const classes = ["seat", kind];
  if (mine) classes.push("mine");
  if (selected) classes.push("selected");
  if (!seat.connected) classes.push("away");
  if (seat.decision === "fold") classes.push("folded");
  if (result) classes.push(`result-${result.outcome}`);
  const props = {
    class: classes.join(" "), style: placeStyle(pos), "data-testid": `seat-${i}`, "data-seat": i,
    "data-player": seat.player_id, "data-selected": selected ? "true" : null,
    "aria-current": selected ? "true" : null,
    "aria-label": `Seat ${i + 1}: ${seat.name}${mine ? " (you)" : ""}`, role: "group",
  };
  if (mine) Object.assign(props, { tabindex: -1, "data-action": "select-seat" });
  // a name cut short reads whole under the pointer (a phone's tiles wrap one of several
  // words instead; a seat's label says every name whole); a
  // narrow seat of the viewer's says YOU in place of the name, beside the seat's number
  const nameplate = h("div", { class: "nameplate", "data-testid": `seat-${i}-name`, title: seat.name },
    h("span", { class: `dot${seat.connected ? " on" : ""}`, title: seat.connected ? "connected" : "disconnected" }),
    h("span", { class: longName(v, seat.name, kind) ? `name long${/\s/.test(seat.name) ? "" : " solid"}` : "name" }, seat.name),
    mine ? h("span", { class: "you" }, "you") : null,
    h("span", { class: "seat-no" }, `#${i + 1}`));
  const cards = seatCards(v, seat, i, pos);
  const label = seat.cards && cardsShown(v, i) ? seat.hand?.label ?? "" : "";
  // "Three of a Kind" is wider than a seat of a full table at 1280 px: a size smaller, whole
  const labelClass = label && label.length > 12 ? "hand-label long" : "hand-label";
  const hand = h("div", { class: labelClass, "data-testid": `seat-${i}-hand`, title: label || null }, label);
  // while the cards fly nobody is deciding yet (a seat dealt without is sitting out)
  const status = h("div", { class: "seat-status", "data-testid": `seat-${i}-status` },
    seat.cards && !cardsShown(v, i) ? "" : seatStatus(v.snap.phase, seat));
  const narrow = kind === "arc" && v.layout.seat.w < WIDE_SEAT;
  const res = result ? resultEl(seat, i, v.snap.progressive_stake, narrow)
    : h("div", { class: "result none", "data-testid": `seat-${i}-result` });
  const editable = mine && buildable(v, seat);
  const { spot, progressive, remove } = bettingSpot(v, seat, i, mine, kind, editable);
  if (kind === "arc") {
    return h("div", props, nameplate, cards, h("div", { class: "seat-info" }, hand, status), spot,
      h("div", { class: "seat-foot" }, mine && !result ? seatActions(v, seat, i, kind, editable) : null, res));
  }
  if (kind === "big") {
    return h("div", props,
      h("div", { class: "seat-head" }, nameplate, hand, status),
      h("div", { class: "seat-main" }, cards, spot),
      h("div", { class: "seat-foot" },
        result ? null : seatActions(v, seat, i, kind, editable, [remove, progressive]), res));
  }
  return h("div", props, nameplate, cards, hand, h("div", { class: "tile-line" }, spot, status), res);
}

/** All five cards of seat i drawn (the deal is not being shown, or its fifth card has
 * landed: the hand is named once it can be seen whole, not as the fifth flies in)? */
function cardsShown(v, i) {
  return !v.dealing || hasLanded(v.dealing, v.now, i, 4);
}

function seatCards(v, seat, i, pos) {
  if (!seat.cards) return h("div", { class: "cards none", "data-testid": `seat-${i}-cards` });
  let style = null;
  if (v.dealing && pos) {
    // the cards fly in from the dealer's place at the top of the felt
    const { seat: box, dealer } = v.layout;
    const dx = Math.round(v.layout.width / 2 - (pos.x + pos.w / 2));
    const dy = Math.round(dealer.cardsY - (pos.y + box.cardsY));
    style = `--from-x:${dx}px;--from-y:${dy}px`;
  }
  return dealtRow(seat.cards, {
    testid: `seat-${i}-cards`, fresh: Boolean(v.dealing), style,
    dealt: (k) => isDealt(v.dealing, v.now, i, k),
  });
}

/** The ante circle (chips), the raise spot, and the progressive light in front. */
function bettingSpot(v, seat, i, mine, kind, editable) {
  const build = mine ? v.build(i) : { chips: [], progressive: false };
  const placed = seat.ante > 0;
  const built = buildAmount(build);
  const held = mine && holdsBuild(v, seat);
  const shown = placed ? seat.ante : held ? built : 0;
  const lit = placed ? seat.progressive : held && build.progressive;
  const raised = seat.decision === "raise";
  const stake = dollars(v.snap.progressive_stake);
  const circleClass = ["ante-circle", editable ? "buildable" : "", !placed && shown > 0 ? "unplaced" : ""]
    .filter(Boolean).join(" ");
  const circleProps = {
    class: circleClass, "data-testid": `ante-${i}`, "data-cents": shown,
    title: editable ? "Click or tap to add the selected chip · right-click or a long press takes its value off · − the last chip" : null,
  };
  if (editable) {
    Object.assign(circleProps, { "data-action": "add-chip", "data-seat": i, role: "button",
      tabindex: 0, "aria-label": `Ante for seat ${i + 1}: ${dollars(shown)}. Activate to add the selected chip.` });
  }
  const progressive = editable
    ? h("button", { class: `prog-light${lit ? " on" : ""}`, "data-action": "toggle-progressive",
      "data-seat": i, "data-testid": `progressive-${i}`, "aria-pressed": lit ? "true" : "false",
      title: `Progressive bet (${stake}), JP for short · p`, "aria-label": `Progressive bet ${stake} for seat ${i + 1}` },
    // a phone's full-size button has room to say what it is, in the word the rest uses
    kind === "big" ? ["Progressive", h("small", {}, stake)] : "JP")
    : h("span", { class: `prog-light${lit ? " on" : ""}`, "data-testid": `progressive-${i}`,
      "aria-pressed": lit ? "true" : "false", title: progressiveSays(lit, placed),
      "aria-label": progressiveSays(lit, placed) }, "JP");
  const remove = editable && built > 0
    ? h("button", { class: "chip-remove", "data-action": "remove-chip", "data-seat": i,
      "data-testid": `chip-remove-${i}`, title: "Take the last chip off (Backspace)",
      "aria-label": `Take a chip off seat ${i + 1}` }, "−")
    : null;
  const amount = h("span", { class: "amount", "data-testid": `ante-${i}-amount` },
    shown > 0 ? dollars(shown, { short: true }) : "");
  if (kind === "tile") {
    return { spot: h("div", { class: "spot tile-spot", "data-testid": `seat-${i}-bet` },
      h("span", circleProps, shown > 0 ? chipStack(shown) : null, amount),
      progressive,
      h("span", { class: `raise-spot${raised ? " filled" : ""}`, "data-testid": `raise-spot-${i}`,
        title: raised ? `Raised ${dollars(RAISE_MULTIPLE * seat.ante)}` : null },
      // a bet, not a win: no plus sign, not in the winners' green
      raised ? `R ${dollars(RAISE_MULTIPLE * seat.ante, { short: true })}` : "")) };
  }
  const circle = h("div", circleProps,
    shown > 0 ? chipStack(shown) : h("span", { class: "circle-label" }, "ANTE"), amount);
  const raise = h("div", { class: `raise-spot${raised ? " filled" : ""}`, "data-testid": `raise-spot-${i}` },
    raised ? chipStack(RAISE_MULTIPLE * seat.ante) : h("span", { class: "circle-label" }, "RAISE"),
    raised ? h("span", { class: "amount" }, dollars(RAISE_MULTIPLE * seat.ante, { short: true })) : null);
  if (kind === "big" && editable) {
    // large seats (a phone) get the progressive and the − as full-size buttons under the cards
    return { spot: h("div", { class: "spot", "data-testid": `seat-${i}-bet` }, circle, raise), progressive, remove };
  }
  return { spot: h("div", { class: "spot", "data-testid": `seat-${i}-bet` },
    h("div", { class: "circle-wrap" }, circle, progressive, remove), raise) };
}

const progressiveSays = (lit, placed) => (!lit ? "No progressive bet"
  : placed ? "Progressive bet placed" : "Progressive bet built, not placed yet");

/** Fold / Raise during decisions; take back, clear or stand between rounds. */
function seatActions(v, seat, i, kind, editable, tools = []) {
  const { phase } = v.snap;
  const buttons = tools.filter(Boolean);
  // a hand's buttons come with its own cards, landed: not after the whole table's deal
  const dealt = cardsShown(v, i);
  if (phase === "deciding" && seat.cards && !seat.decision && dealt) {
    const raise = dollars(RAISE_MULTIPLE * seat.ante, { short: true });
    buttons.push(
      h("button", { class: "btn fold", "data-action": "fold", "data-seat": i, "data-testid": `fold-${i}`,
        disabled: v.busy, title: "Fold this hand (f)" }, "Fold"),
      h("button", { class: "btn raise", "data-action": "raise", "data-seat": i, "data-testid": `raise-${i}`,
        disabled: v.busy, title: `Raise ${raise} (r)` }, "Raise ", h("small", {}, raise)),
    );
  } else if (kind === "big" && phase === "deciding" && seat.cards && seat.decision && dealt) {
    // the row keeps its height (the next hand's buttons never move under a thumb): it says
    // what became of this hand instead of standing empty
    buttons.push(h("span", { class: "decided-note", "data-testid": `decided-${i}` },
      seat.decision === "raise"
        ? `Raised ${dollars(RAISE_MULTIPLE * seat.ante, { short: true })}: plays at the showdown`
        : `Folded${seat.auto ? (seat.left ? " (left)" : " (timer)") : ""}: out of this round`));
  } else if (phase === "betting" && seat.ante > 0) {
    buttons.push(h("button", { class: "btn small", "data-action": "withdraw", "data-seat": i,
      "data-testid": `withdraw-${i}`, disabled: v.busy }, "Take back"));
  } else if (editable && buildAmount(v.build(i)) > 0) {
    buttons.push(h("button", { class: "btn small", "data-action": "clear-seat", "data-seat": i,
      "data-testid": `clear-${i}`, title: "Take every chip off this seat" }, "Clear"));
  }
  if (seat.ante === 0) { // no bet in play: the server frees it in any phase
    // one name wherever it is: "Stand up", said short beside Clear in a narrow seat (its
    // title and its name for a screen reader the whole words)
    buttons.push(h("button", { class: "btn small ghost", "data-action": "stand", "data-seat": i,
      "data-testid": `stand-${i}`, disabled: v.busy, title: "Stand up: give up this seat",
      "aria-label": "Stand up" },
    kind === "arc" && v.layout.seat.w < WIDE_SEAT && buttons.length ? "Stand" : "Stand up"));
  }
  return h("div", { class: "seat-actions" }, buttons);
}

/** The outcome and the net. The net counts the progressive stake too, so a side bet
 * that won nothing is shown beside it ("incl. JP −$1", as the circle's progressive light
 * is marked; a star alone said nothing to a player, and "JP −$1" over "−$6.00" read as
 * two losses): a push that lost the side bet reads −$1.00 with its reason, and a won
 * ante that lost it reads $0.00 with its reason.
 * A `narrow` seat words a long outcome short (its title keeps the whole) in smaller
 * type, so the result keeps to its seat's foot, clear of the seats and the rack below. */
function resultEl(seat, i, stake, narrow = false) {
  const r = seat.result;
  const prize = progressivePaid(r.progressive_prize);
  const sideLost = r.progressive_prize === 0 && stake > 0 ? stake : 0;
  // coloured by the money, not the hand: a lost hand whose progressive paid is a gain
  const money = r.net > 0 ? "up" : r.net < 0 ? "down" : "even";
  const short = narrow ? SHORT_OUTCOMES[r.outcome] : null;
  return h("div", { class: `result ${r.outcome} ${money}${narrow ? " narrow" : ""}`, "data-testid": `seat-${i}-result`,
    "data-outcome": r.outcome, "data-net": r.net },
  // the lost side bet goes on the outcome's line: beside the net it overflows a narrow seat
  h("span", { class: "outcome", title: OUTCOMES[r.outcome] ?? r.outcome },
    // a short form is an abbreviation of the words the phone and History use
    short ? h("abbr", { title: OUTCOMES[r.outcome] }, short) : OUTCOMES[r.outcome] ?? r.outcome,
    sideLost ? h("span", { class: "prize lost", "data-testid": `seat-${i}-side-bet`, "data-cents": -sideLost,
      title: `The progressive bet (${dollars(sideLost)}) won nothing; the net counts it`,
      "aria-label": `Progressive bet ${dollars(-sideLost)}` },
    `incl. JP ${dollars(-sideLost, { short: true })}`) : null),
  h("span", { class: "result-money" },
    h("span", { class: "net", "data-testid": `seat-${i}-net`, "data-cents": r.net }, signedDollars(r.net)),
    prize ? h("span", { class: "prize", "data-testid": `seat-${i}-prize`, "data-cents": prize,
      title: `Progressive ${dollars(prize)}`, "aria-label": `Progressive ${dollars(prize)}` },
    `JP +${dollars(prize, { short: true })}`) : null));
}

/** The total a set of bets takes from the wallet now (antes and progressive stakes). */
function stakeOf(bets, stake) {
  return bets.reduce((sum, b) => sum + b.amount + (b.progressive ? stake : 0), 0);
}

/** Our seats with the progressive built and no ante: the table takes no progressive
 * alone (the rule sheets: not without an accompanying ante), so Deal waits, and says why. */
export function progressiveAlone(snap, mine, build) {
  return mine.filter((i) => snap.seats[i]?.ante === 0 && buildAmount(build(i)) === 0 && build(i).progressive);
}

/** The player's rack: chip values, Rebet and Clear, what is built, and the one Deal button for all their hands. */
function controls(v) {
  const { snap } = v;
  const seats = v.mine.map((i) => snap.seats[i]);
  const open = snap.phase === "waiting" || snap.phase === "betting";
  const ready = seats.some((s) => s.ready);
  // a bet built is shown, and counted, only while bets are open: at a showdown the Deal
  // button said "Deal · $500.00, needs $1,500.00" beside an empty circle (it is kept for
  // the next round, and both show it again then)
  const toPlace = open ? v.mine.filter((i) => snap.seats[i].ante === 0 && buildAmount(v.build(i)) > 0) : [];
  const placed = seats.some((s) => s.ante > 0);
  // others have bet and the betting timer runs: with nothing to bet, say so at once
  const sitOut = snap.phase === "betting" && !ready && !v.busy && !placed && toPlace.length === 0;
  const total = stakeOf(toPlace.map((i) => ({ amount: buildAmount(v.build(i)), progressive: v.build(i).progressive })),
    snap.progressive_stake);
  // the deal holds each hand's raise too (PROTOCOL.md §7): say so before the refusal does
  const needed = total + RAISE_MULTIPLE * toPlace.reduce((sum, i) => sum + buildAmount(v.build(i)), 0);
  const short = toPlace.length > 0 && typeof v.available === "number" && needed > v.available;
  // Deal would have placed the other seats' bets and dropped this one unsaid; alone, it
  // was off with no reason given
  const jpAlone = open ? progressiveAlone(snap, v.mine, v.build) : [];
  // a paused table takes no ante: only a round in play (antes placed) may still be dealt;
  // bets the wallet cannot hold are refused for certain: off, with what they need shown
  // a player ready with nothing at stake (sat out) may still bet: the server
  // takes an ante until betting closes, and Deal places it
  const canDeal = open && !v.busy && !jpAlone.length
    && ((toPlace.length > 0 && !snap.paused && !short) || (placed && !ready));
  const rebets = rebetSeats(v);
  // the button says last round's whole bet, which Deal then reads too: seats that
  // already hold it count as well (it used to add only the seats it would change)
  const again = lastBetsHere(v);
  const rebetTotal = stakeOf(again.map(([, b]) => b), snap.progressive_stake);
  const anyBuilt = v.mine.some((i) => buildable(v, snap.seats[i])
    && (buildAmount(v.build(i)) > 0 || v.build(i).progressive));
  const sel = v.selected ?? null;
  const selBuild = sel === null ? null : v.build(sel);
  const selLine = sel === null ? "Sit down to play" : `Seat #${sel + 1}: ${seatNow(v, sel, open)}`;
  const undecided = v.mine.some((i) => snap.seats[i].cards && !snap.seats[i].decision);
  return h("div", { class: "controls", "data-testid": "controls" },
    // no chip while the casino has paused the table: it takes no ante (the terminal offers none)
    h("div", { class: "rack", role: "radiogroup", "aria-label": "Chip value", hidden: open && Boolean(snap.paused) },
      CHIPS.map((chip, k) => h("button", {
        class: `rack-chip${v.chip === chip.cents ? " selected" : ""}`, "data-action": "chip",
        "data-cents": chip.cents, "data-testid": `chip-${chip.cents}`, role: "radio",
        "aria-checked": v.chip === chip.cents ? "true" : "false",
        title: `Select the ${dollars(chip.cents, { short: true })} chip (${k + 1} adds one)`,
      }, chipFace(chip)))),
    h("div", { class: "bet-tools" },
      h("button", { class: "btn rebet", "data-action": "rebet", "data-testid": "rebet",
        disabled: !rebets.length || v.busy || Boolean(snap.paused),
        title: rebets.length
          ? `Bet last round's bets again: ${again.map(([s, b]) => `#${s + 1} ${dollars(b.amount, { short: true })}${b.progressive ? " + progressive" : ""}`).join(", ")} (a)`
          : "Last round's bets, once you have played a round (a)" },
      "Rebet", rebets.length ? h("small", {}, dollars(rebetTotal, { short: true })) : null),
      h("button", { class: "btn clear", "data-action": "clear", "data-testid": "clear",
        disabled: !anyBuilt, title: "Take every chip off your seats (x)" }, "Clear"),
      sitOut
        ? h("button", { class: "btn small ghost sit-out", "data-action": "sit-out", "data-testid": "sit-out",
          title: "Play no hand this round: the others need not wait for you" }, "Sit this round out")
        : null),
    h("div", { class: "rules" },
      h("div", { class: "selected-line", "data-testid": "selected-seat", "data-seat": sel ?? "" }, selLine,
        // how many hands while bets are open (the result's words need the room after);
        // "how" in the title: the line is cut at a laptop's width when it says it too
        !open ? null : h("span", { class: "muted", title: v.mine.length < v.maxSeats && snap.seats.includes(null)
          ? `Up to ${v.maxSeats} hands: “+ Hand” on a free seat adds one` : null },
        // "one of your 3 hands": "$10 · 3 hands" beside "Deal · $21.00" read as the
        // three hands' bet, which Deal did not match; "1 of 3 hands", on every seat, as
        // "this is hand 1"
        v.mine.length > 1 ? ` · one of your ${v.mine.length} hands`
          : ` · ${v.mine.length} hand${v.mine.length === 1 ? "" : "s"}`
            + (v.mine.length < v.maxSeats && snap.seats.includes(null) ? ` (up to ${v.maxSeats})` : ""))),
      h("div", { class: "muted" }, `Ante ${dollars(snap.min_ante, { short: true })}–${dollars(snap.max_ante, { short: true })}`
        + ` · raise ${RAISE_MULTIPLE}× ante · progressive ${dollars(snap.progressive_stake)}`),
      h("div", { class: "key-help muted", "data-testid": "key-help", title: KEY_HELP },
        // offline no key sends anything: it said "1–5 chip · d deal" all the same
        v.elsewhere ? "Keys: none act here while you play elsewhere"
          : v.online === false ? "Keys: none act until the connection is back"
          : v.quiet ? "Keys: none act until the server answers"
          : keyHelp(snap.phase, { undecided: undecided && !v.dealing, paused: placed ? null : snap.paused }))),
    h("button", { class: "btn deal", "data-action": "deal", "data-testid": "deal", disabled: !canDeal,
      title: jpAlone.length
        ? `The progressive on seat ${jpAlone.map((i) => `#${i + 1}`).join(", ")} needs an ante: add chips to `
          + `${jpAlone.length > 1 ? "their circles" : "its circle"}, or take the progressive off.`
        : short
        ? `These bets need ${dollars(needed)} available: the ante and progressive now, and the raise `
          + `(${RAISE_MULTIPLE}× the ante) held until you decide. You have ${dollars(v.available)}.`
        : "Place the bets and deal (d)" },
    // sitting out, the why under the word, small (on one line it took the rack's room at
    // 1280 px: "Ante $1–$100 · raise 2× ant…"); its text still reads as one phrase
    open && ready && !toPlace.length ? (placed ? "Waiting for others…"
      : [h("span", {}, "Sitting out"), h("span", { class: "deal-dot" }, " · "),
        h("small", { class: "deal-why" }, "waiting for others")])
      : total > 0 ? `Deal · ${dollars(total)}` : "Deal",
    jpAlone.length
      ? h("small", { class: "deal-needs", "data-testid": "deal-needs" }, "progressive needs an ante")
      : short
      ? h("small", { class: "deal-needs", "data-testid": "deal-needs" }, `needs ${dollars(needed)} available`)
      : null));
}

/**
 * What the rack says of the selected seat `i`: while bets are open, its bet; in the
 * decision, what it may do (fold or raise) or did; at the showdown, its result. (It said
 * "$7 + progressive" to the end of the round, as if the bet could still change.)
 */
function seatNow(v, i, open) {
  const seat = v.snap.seats[i];
  if (open) {
    const built = v.build(i);
    return dollars(seat?.ante || buildAmount(built), { short: true })
      + ((seat?.ante ? seat.progressive : built.progressive) ? " + progressive" : "");
  }
  if (!seat?.cards) return seat?.next_round ? "plays from the next round" : "sitting this round out";
  if (!cardsShown(v, i)) return "being dealt";
  if (seat.result) {
    // the net counts the progressive too: "Dealer did not qualify $0.00" said nothing of
    // the $1 stake that won nothing, nor "+$50.00" of the prize that is most of it
    const r = seat.result;
    const prize = progressivePaid(r.progressive_prize);
    const side = prize ? ` (incl. JP +${dollars(prize, { short: true })})`
      : r.progressive_prize === 0 && v.snap.progressive_stake > 0
        ? ` (incl. JP ${dollars(-v.snap.progressive_stake, { short: true })})` : "";
    return `${OUTCOMES[r.outcome] ?? r.outcome} ${signedDollars(r.net)}${side}`;
  }
  if (seat.decision === "raise") return `raised ${dollars(RAISE_MULTIPLE * seat.ante, { short: true })}`;
  if (seat.decision === "fold") return "folded";
  if (v.snap.phase === "deciding") return `fold, or raise ${dollars(RAISE_MULTIPLE * seat.ante, { short: true })}`;
  return "waiting for the showdown";
}

/** Own seats that last round's bets can go on now: [[seat, {amount, progressive}]]. */
function lastBetsHere(v) {
  return Object.entries(v.rebet ?? {})
    .map(([seat, b]) => [Number(seat), b])
    .filter(([seat]) => v.mine.includes(seat) && buildable(v, v.snap.seats[seat]));
}

/** Of those, the seats where Rebet changes what is built. */
export function rebetSeats(v) {
  return lastBetsHere(v)
    .filter(([seat, b]) => buildAmount(v.build(seat)) !== b.amount || v.build(seat).progressive !== b.progressive);
}

function spectatorBar(v) {
  const free = v.snap.seats.some((s) => s === null);
  return h("div", { class: "controls spectating", "data-testid": "spectator-bar" },
    h("span", {}, "You are watching this table."),
    h("button", { class: "btn primary", "data-action": "take-seat", "data-testid": "take-seat",
      disabled: !free || v.busy }, free ? "Take a seat" : "Table full"));
}

function sidePanel(v) {
  const variant = v.row?.variant;
  const open = v.sideOpen !== false;
  return h("aside", { class: "side", "data-open": open ? "true" : "false" },
    h("button", { class: "btn side-toggle", "data-action": "toggle-side", "data-testid": "side-toggle",
      "aria-expanded": open ? "true" : "false", "aria-controls": "side-body" },
    open ? "Hide paytable, rules & fair deal" : "Paytable, rules & fair deal"),
    h("div", { class: "side-body", id: "side-body" },
      fairBox(v),
      variant
        ? [
          raisePaytable(variant, { testid: "paytable" }),
          progressivePaytable(variant, v.jackpot, { testid: "progressive-paytable" }),
          h("p", { class: "fine" }, variant.folded_collects_progressive
            ? "A folded hand still collects the progressive."
            : "A folded hand does not collect the progressive."),
        ]
        : h("p", { class: "muted" }, "Loading the paytable…"),
      h("p", { class: "fine", "data-testid": "rules" }, "The dealer needs Ace-King or better. Not qualified: the ante pays 1:1 and "
        + "the raise is returned. Qualified: a better hand wins the ante 1:1 and the raise at the paytable; "
        + "a worse hand loses both; an exact tie pushes."),
      v.snap.hands === "private"
        ? h("p", { class: "fine" }, "Hands are private: each player sees only their own cards until the showdown.")
        : null));
}

/**
 * The provably fair deal: the commitment of the round running (published
 * before the deal), the player's client seed, and the last deal's proof with
 * its Verify button and verdict. The children keep their positions whatever
 * the phase, so a redraw never replaces the seed input being typed in.
 * `v.fair`: {seed: the tab's seed for this table, seedStatus: words,
 * lastDeal: the showdown snapshot of the table's last round, verdict}.
 */
function fairBox(v) {
  const { snap } = v;
  const fair = v.fair ?? {};
  const f = snap.fairness;
  const live = snap.phase !== "waiting" && snap.round_id;
  const commitment = live && f?.commitment ? f.commitment : null;
  const last = fair.lastDeal;
  const proof = last?.fairness;
  const revealed = typeof proof?.server_seed === "string";
  const current = last && last.round_id === snap.round_id;
  return h("section", { class: "fair-box", "data-testid": "fairness" },
    h("h2", { class: "box-caption" }, "Provably fair deal"),
    h("dl", { class: "fair-facts" },
      h("dt", {}, "Commitment"),
      h("dd", { class: commitment ? "hex" : "words", "data-testid": "fair-commitment", "data-commitment": commitment ?? "",
        title: commitment ? `SHA-256 of this round's server seed: ${commitment}` : null },
      commitment ? shortHex(commitment) : live ? "none: not a provably fair deal" : "published when betting opens"),
      h("dt", {}, "Round"),
      h("dd", { class: "hex", "data-testid": "fair-nonce", title: live ? snap.round_id : null },
        live ? shortRound(snap.round_id) : "—")),
    h("form", { class: "seed-form", "data-form": "seed", "data-table": snap.table, "data-testid": "seed-form",
      novalidate: true, autocomplete: "off" },
    h("label", { for: "seed-input" }, "Your seed"),
    h("input", { id: "seed-input", name: "client_seed", value: fair.seed ?? "", maxlength: 64,
      placeholder: "e.g. lucky-7", spellcheck: "false", "data-testid": "seed-input",
      title: "Letters, digits, _ . or -, up to 64: mixed into the shuffle of the next deals" }),
    h("button", { class: "btn small", type: "submit", "data-testid": "seed-set" }, "Set")),
    h("p", { class: "fine seed-status", "data-testid": "seed-status" }, fair.seedStatus ?? ""),
    h("div", { class: "last-deal", "data-testid": "last-deal", hidden: !last, "data-round": last?.round_id ?? "" },
      h("div", { class: "last-deal-head" },
        h("span", {}, current ? "This deal" : "Last deal"),
        revealed
          ? verifyButton({ "data-action": "verify-deal", "data-table": snap.table, "data-testid": "verify" })
          : h("span", { class: "muted" }, last ? "no proof" : "")),
      revealed
        ? h("p", { class: "fine" },
          current ? null : [`Round ${shortRound(last.round_id)}`, h("br")],
          "Server seed ", h("span", { class: "hex", title: proof.server_seed }, shortHex(proof.server_seed)),
          h("br"), "Client seeds ",
          h("span", { "data-testid": "fair-client-seeds", title: proof.client_seeds ? `as sent: “${proof.client_seeds}”` : null },
            clientSeedsText(proof.client_seeds, anted(last))))
        : h("p", { class: "fine" }, last ? "This deal was not made by the provably fair shuffler." : ""),
      // a new round on the table: the verdict is said to be the last one's
      verdictEl(fair.verdict, "fair-verdict", current ? null : "Last deal")));
}

/** The seats that anted in a showdown snapshot, in seat order: whose the proof's client seeds are. */
function anted(snap) {
  const seats = (snap?.seats ?? []).flatMap((s, i) => (s && s.ante > 0 ? [i] : []));
  return seats.length === String(snap?.fairness?.client_seeds ?? "").split(",").length ? seats : null;
}

/** "alpha-466c3655c1e87273" -> "alpha-466c…7273" (the whole id goes in a title). */
function shortRound(id) {
  const text = String(id ?? "");
  return text.length > 20 ? `${text.slice(0, 10)}…${text.slice(-4)}` : text;
}
