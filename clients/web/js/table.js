// The table view, drawn from one `table` snapshot (the whole public state of
// the table) plus what this tab keeps locally: the chip selected and the antes
// being built. Nothing here applies events: every snapshot redraws the view.

import { cardRow } from "./cards.js";
import { CHIPS, chipFace, chipStack } from "./chips.js";
import { h } from "./dom.js";
import { shortHex, verdictEl, verifyButton } from "./fairview.js";
import { OUTCOMES, dollars, progressivePaid, qualifies, signedDollars } from "./format.js";
import { progressivePaytable, raisePaytable } from "./paytable.js";

const RAISE_MULTIPLE = 2;
const PHASE_NAMES = { waiting: "Waiting for bets", betting: "Betting", deciding: "Fold or raise", showdown: "Showdown" };

/** Milliseconds left on the snapshot's timer, `null` when it has none. */
export function remainingMs(snap, receivedAt, now) {
  if (snap?.ends_in_ms === null || snap?.ends_in_ms === undefined) return null;
  return Math.max(0, snap.ends_in_ms - (now - receivedAt));
}

/** "12s" for the countdown. */
export function countdownText(ms) {
  return ms === null ? "" : `${Math.ceil(ms / 1000)}s`;
}

/**
 * Where seat `i` of `n` sits on the felt, in percent of the felt's box (the
 * top centre of the seat). Seat 0 is at the dealer's left, which is the
 * players' right: the seats run right to left along a curve that rises
 * towards the ends of the table, as round a real half-moon table.
 */
function seatPosition(i, n) {
  const u = n === 1 ? 0 : 1 - (2 * i) / (n - 1); // 1 (right end) .. -1 (left end)
  const spread = 43 - 20 / n; // keep the end seats off the rail
  return { x: 50 + spread * u, y: 44 - 12 * u * u };
}

/**
 * The table section.
 * @param {object} ctx {snap, row, me, build(seat), chip, busy, maxSeats, receivedAt, now, online,
 *   fair: {seed, seedStatus, lastDeal, verdict}} (see fairBox)
 */
export function renderTable(ctx) {
  const { snap } = ctx;
  const mine = snap.seats
    .map((s, i) => (s && s.player_id === ctx.me?.player_id ? i : -1))
    .filter((i) => i >= 0);
  const view = { ...ctx, mine, seated: mine.length > 0 };
  return h("section", {
    id: "table", class: `table-view phase-${snap.phase}${ctx.online ? "" : " offline"}`,
    "data-testid": "table-view", "data-table": snap.table, "data-phase": snap.phase,
    "data-role": view.seated ? "player" : "spectator",
  },
  tableHead(view),
  h("div", { class: "table-layout" },
    h("div", { class: "felt-wrap" }, felt(view), view.seated ? controls(view) : spectatorBar(view)),
    sidePanel(view)));
}

function tableHead(v) {
  const { snap, row } = v;
  const ms = remainingMs(snap, v.receivedAt, v.now);
  return h("div", { class: "table-head" },
    h("button", { class: "btn ghost", "data-action": "leave", "data-testid": "leave" }, "← Leave table"),
    h("div", { class: "title" },
      h("h1", { "data-testid": "table-title" }, snap.title ?? snap.table),
      h("span", { class: "variant" }, row?.variant?.title ?? snap.variant)),
    h("div", { class: "limits", "data-testid": "limits" },
      `Ante ${dollars(snap.min_ante, { short: true })} – ${dollars(snap.max_ante, { short: true })}`,
      h("span", { class: "sep" }, "·"),
      `Progressive ${dollars(snap.progressive_stake, { short: true })}`),
    h("div", { class: "watchers", "data-testid": "spectators", "data-count": snap.spectators ?? 0,
      title: "Spectators" }, `${snap.spectators ?? 0} watching`),
    h("div", { class: `phase-pill phase-${snap.phase}`, "data-testid": "phase" },
      PHASE_NAMES[snap.phase] ?? snap.phase,
      h("span", { class: `countdown${ms !== null && ms < 5000 ? " urgent" : ""}`,
        "data-testid": "countdown", hidden: ms === null }, countdownText(ms))),
    h("div", { class: "meter small" },
      h("span", { class: "meter-label" }, "Jackpot"),
      h("span", { class: "meter-value", "data-testid": "jackpot-meter", "data-cents": v.jackpot ?? 0 },
        dollars(v.jackpot ?? 0))));
}

function felt(v) {
  const { snap } = v;
  const n = snap.seats.length;
  return h("div", { class: `felt seats-${n}`, "data-testid": "felt" },
    h("div", { class: "felt-print" }, (v.row?.variant?.title ?? "Casino Stud Poker").toUpperCase()),
    dealerZone(v),
    h("p", { class: "table-message", "data-testid": "table-message" }, message(v)),
    snap.seats.map((seat, i) => {
      const pos = seatPosition(i, n);
      const style = `left:${pos.x.toFixed(2)}%;top:${pos.y.toFixed(2)}%`;
      return seat ? seatEl(v, seat, i, style) : emptySeat(v, i, style);
    }));
}

function dealerZone(v) {
  const d = v.snap.dealer ?? {};
  const cards = d.cards ?? [];
  const showdown = v.snap.phase === "showdown" && d.hand;
  const q = qualifies(d);
  return h("div", { class: "dealer", "data-testid": "dealer" },
    h("span", { class: "dealer-label" }, "Dealer"),
    cards.length
      ? cardRow(cards, { testid: "dealer-cards" })
      : h("div", { class: "cards placeholder", "data-testid": "dealer-cards" },
        [0, 1, 2, 3, 4].map(() => h("div", { class: "card slot" }))),
    h("div", { class: `dealer-hand${showdown ? (q ? " qualifies" : " not-qualified") : ""}`,
      "data-testid": "dealer-hand" },
    showdown ? `${d.hand.label} — ${q ? "qualifies" : "does not qualify"}` : ""));
}

function message(v) {
  const { snap, seated } = v;
  const people = snap.seats.filter(Boolean);
  const players = new Set(people.map((s) => s.player_id));
  switch (snap.phase) {
    case "waiting":
      return seated
        ? "Pick a chip, click your circle to bet (right-click removes), then Deal."
        : people.length ? "Waiting for the first ante." : "The table is open: take a seat.";
    case "betting": {
      const ready = new Set(people.filter((s) => s.ready).map((s) => s.player_id));
      return `Betting is open — ${ready.size} of ${players.size} player${players.size === 1 ? "" : "s"} ready.`;
    }
    case "deciding":
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

function emptySeat(v, i, style) {
  const canSit = v.mine.length < v.maxSeats;
  return h("div", { class: "seat empty", style, "data-testid": `seat-${i}`, "data-seat": i },
    h("div", { class: "seat-ring" }, h("span", {}, `${i + 1}`)),
    canSit
      ? h("button", { class: "btn small sit", "data-action": "sit", "data-seat": i, "data-testid": `sit-${i}`,
        title: v.seated ? "Play one more hand from this seat" : "Take this seat" },
      v.seated ? "+ Hand" : "Sit here")
      : null);
}

/** Can the viewer still build the ante of this seat (their seat, no ante yet, bets open)? */
function buildable(v, seat) {
  const { phase } = v.snap;
  return seat.player_id === v.me?.player_id && seat.ante === 0 && !seat.ready
    && (phase === "waiting" || phase === "betting") && !v.busy;
}

function seatEl(v, seat, i, style) {
  const { snap } = v;
  const mine = seat.player_id === v.me?.player_id;
  const result = seat.result;
  const classes = ["seat"];
  if (mine) classes.push("mine");
  if (!seat.connected) classes.push("away");
  if (seat.decision === "fold") classes.push("folded");
  if (result) classes.push(`result-${result.outcome}`);
  return h("div", { class: classes.join(" "), style, "data-testid": `seat-${i}`, "data-seat": i,
    "data-player": seat.player_id },
  h("div", { class: "nameplate", "data-testid": `seat-${i}-name` },
    h("span", { class: `dot${seat.connected ? " on" : ""}`,
      title: seat.connected ? "connected" : "disconnected" }),
    h("span", { class: "name" }, seat.name),
    mine ? h("span", { class: "you" }, "you") : null,
    h("span", { class: "seat-no" }, `#${i + 1}`)),
  seat.cards
    ? cardRow(seat.cards, { small: true, testid: `seat-${i}-cards` })
    : h("div", { class: "cards none", "data-testid": `seat-${i}-cards` }),
  h("div", { class: "hand-label", "data-testid": `seat-${i}-hand` }, seat.hand?.label ?? ""),
  bettingSpot(v, seat, i, mine),
  h("div", { class: "seat-status", "data-testid": `seat-${i}-status` }, statusText(snap, seat)),
  mine ? seatActions(v, seat, i) : null,
  result ? resultEl(seat, i) : h("div", { class: "result none", "data-testid": `seat-${i}-result` }));
}

function statusText(snap, seat) {
  if (seat.decision === "fold") return seat.auto ? "Folded (time)" : "Folded";
  if (seat.decision === "raise") return "Raised";
  if (snap.phase === "deciding" && seat.cards) return "Deciding…";
  if (snap.phase === "betting" && seat.ready) return seat.ante > 0 ? "Ready" : "Sitting out";
  if (!seat.connected) return "Away";
  return "";
}

/** The ante circle (chips), the raise spot, and the progressive light in front. */
function bettingSpot(v, seat, i, mine) {
  const build = mine ? v.build(i) : { amount: 0, progressive: false };
  const editable = mine && buildable(v, seat);
  const placed = seat.ante > 0;
  const shown = placed ? seat.ante : editable ? build.amount : 0;
  const lit = placed ? seat.progressive : editable && build.progressive;
  const raised = seat.decision === "raise";
  const circleClass = ["ante-circle", editable ? "buildable" : "", !placed && shown > 0 ? "unplaced" : ""]
    .filter(Boolean).join(" ");
  const circleProps = {
    class: circleClass, "data-testid": `ante-${i}`, "data-cents": shown,
    title: editable ? "Click to add the selected chip · right-click to remove it" : null,
  };
  if (editable) {
    Object.assign(circleProps, { "data-action": "add-chip", "data-seat": i, role: "button",
      tabindex: 0, "aria-label": `Ante for seat ${i + 1}: ${dollars(shown)}. Click to add, right-click to remove.` });
  }
  const progressive = editable
    ? h("button", { class: `prog-light${lit ? " on" : ""}`, "data-action": "toggle-progressive",
      "data-seat": i, "data-testid": `progressive-${i}`, "aria-pressed": lit ? "true" : "false",
      title: `Progressive jackpot bet (${dollars(v.snap.progressive_stake)})` }, "JP")
    : h("span", { class: `prog-light${lit ? " on" : ""}`, "data-testid": `progressive-${i}`,
      "aria-pressed": lit ? "true" : "false", title: lit ? "Progressive bet placed" : "No progressive bet" }, "JP");
  return h("div", { class: "spot" },
    progressive,
    h("div", circleProps,
      shown > 0 ? chipStack(shown) : h("span", { class: "circle-label" }, "ANTE"),
      h("span", { class: "amount", "data-testid": `ante-${i}-amount` }, shown > 0 ? dollars(shown, { short: true }) : "")),
    h("div", { class: `raise-spot${raised ? " filled" : ""}`, "data-testid": `raise-spot-${i}` },
      raised ? chipStack(RAISE_MULTIPLE * seat.ante) : h("span", { class: "circle-label" }, "RAISE"),
      raised ? h("span", { class: "amount" }, dollars(RAISE_MULTIPLE * seat.ante, { short: true })) : null));
}

/** Fold / Raise during decisions; take back, clear or stand between rounds. */
function seatActions(v, seat, i) {
  const { phase } = v.snap;
  const buttons = [];
  if (phase === "deciding" && seat.cards && !seat.decision) {
    buttons.push(
      h("button", { class: "btn fold", "data-action": "fold", "data-seat": i, "data-testid": `fold-${i}`,
        disabled: v.busy }, "Fold"),
      h("button", { class: "btn raise", "data-action": "raise", "data-seat": i, "data-testid": `raise-${i}`,
        disabled: v.busy }, `Raise ${dollars(RAISE_MULTIPLE * seat.ante, { short: true })}`),
    );
  } else if (phase === "betting" && seat.ante > 0) {
    buttons.push(h("button", { class: "btn small", "data-action": "withdraw", "data-seat": i,
      "data-testid": `withdraw-${i}`, disabled: v.busy }, "Take back"));
  } else if (buildable(v, seat) && v.build(i).amount > 0) {
    buttons.push(h("button", { class: "btn small", "data-action": "clear", "data-seat": i,
      "data-testid": `clear-${i}` }, "Clear"));
  }
  if (seat.ante === 0) {
    buttons.push(h("button", { class: "btn small ghost", "data-action": "stand", "data-seat": i,
      "data-testid": `stand-${i}`, disabled: v.busy }, "Stand up"));
  }
  return h("div", { class: "seat-actions" }, buttons);
}

function resultEl(seat, i) {
  const r = seat.result;
  const prize = progressivePaid(r.progressive_prize);
  return h("div", { class: `result ${r.outcome}`, "data-testid": `seat-${i}-result`,
    "data-outcome": r.outcome, "data-net": r.net },
  h("span", { class: "outcome" }, OUTCOMES[r.outcome] ?? r.outcome),
  h("span", { class: "net", "data-testid": `seat-${i}-net`, "data-cents": r.net }, signedDollars(r.net)),
  prize ? h("span", { class: "prize", "data-testid": `seat-${i}-prize`, "data-cents": prize },
    `Progressive ${dollars(prize)}`) : null);
}

/** The player's rack: chip values, limits, and the one Deal button for all their hands. */
function controls(v) {
  const { snap } = v;
  const seats = v.mine.map((i) => snap.seats[i]);
  const open = snap.phase === "waiting" || snap.phase === "betting";
  const ready = seats.some((s) => s.ready);
  const toPlace = v.mine.filter((i) => snap.seats[i].ante === 0 && v.build(i).amount > 0);
  const placed = seats.some((s) => s.ante > 0);
  const canDeal = open && !ready && !v.busy && (toPlace.length > 0 || placed);
  const total = toPlace.reduce((sum, i) => sum + v.build(i).amount
    + (v.build(i).progressive ? snap.progressive_stake : 0), 0);
  return h("div", { class: "controls", "data-testid": "controls" },
    h("div", { class: "rack", role: "radiogroup", "aria-label": "Chip value" },
      CHIPS.map((chip) => h("button", {
        class: `rack-chip${v.chip === chip.cents ? " selected" : ""}`, "data-action": "chip",
        "data-cents": chip.cents, "data-testid": `chip-${chip.cents}`, role: "radio",
        "aria-checked": v.chip === chip.cents ? "true" : "false",
        title: `Select the ${dollars(chip.cents, { short: true })} chip`,
      }, chipFace(chip)))),
    h("div", { class: "rules" },
      h("div", {}, `Ante ${dollars(snap.min_ante, { short: true })} to ${dollars(snap.max_ante, { short: true })}`
        + ` · raise is ${RAISE_MULTIPLE}× the ante · progressive ${dollars(snap.progressive_stake)}`),
      h("div", { class: "muted" },
        `Your hands: ${v.mine.map((i) => `#${i + 1}`).join(", ")}`
        + (v.mine.length < v.maxSeats ? ` · play up to ${v.maxSeats} with “+ Hand” on a free seat` : ""))),
    h("button", { class: "btn deal", "data-action": "deal", "data-testid": "deal", disabled: !canDeal },
      open && ready ? "Waiting for others…" : total > 0 ? `Deal · ${dollars(total)}` : "Deal"));
}

function spectatorBar(v) {
  const free = v.snap.seats.some((s) => s === null);
  return h("div", { class: "controls spectating", "data-testid": "spectator-bar" },
    h("span", {}, "You are watching this table."),
    h("button", { class: "btn primary", "data-action": "take-seat", "data-testid": "take-seat",
      disabled: !free }, free ? "Take a seat" : "Table full"));
}

function sidePanel(v) {
  const variant = v.row?.variant;
  return h("aside", { class: "side" },
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
    h("p", { class: "fine" }, "The dealer needs Ace-King or better. Not qualified: the ante pays 1:1 and "
      + "the raise is returned. Qualified: a better hand wins the ante 1:1 and the raise at the paytable; "
      + "a worse hand loses both; an exact tie pushes."));
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
      h("dd", { class: "hex", "data-testid": "fair-commitment", "data-commitment": commitment ?? "",
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
          h("br"), `Client seeds “${proof.client_seeds}”`)
        : h("p", { class: "fine" }, last ? "This deal was not made by the provably fair shuffler." : ""),
      verdictEl(fair.verdict, "fair-verdict")));
}

/** "alpha-466c3655c1e87273" -> "alpha-466c…7273" (the whole id goes in a title). */
function shortRound(id) {
  const text = String(id ?? "");
  return text.length > 20 ? `${text.slice(0, 10)}…${text.slice(-4)}` : text;
}
