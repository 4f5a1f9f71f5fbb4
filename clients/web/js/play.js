// The player's moves at a table: one table action at a time (`act`), joining and
// sitting, the fold or raise sent (by a click or a key), and the seat of theirs that
// the keys act on (selected, focused, the next one with Tab).

import { OfflineError } from "./connection.js";
import { fitFelt } from "./frame.js";
import { nextWaiting } from "./keys.js";
import { conn } from "./link.js";
import { showError } from "./notices.js";
import { sendSeed } from "./rounds.js";
import { mySeats, render, selectedSeat, setCurrent, state } from "./state.js";

/** Run a table action: one at a time, errors shown in words; none while the server is
 * silent (its buttons are off then, and a key sends nothing either). */
export async function act(fn) {
  if (state.busy) return;
  if (conn.quiet) {
    showError("No answer from the server for a few seconds: nothing sent. Try again once it "
      + "answers.", { code: "quiet", tone: "warn" });
    return;
  }
  state.busy = true;
  render();
  try {
    await fn();
  } catch (err) {
    showError(err);
  } finally {
    state.busy = false;
    render();
  }
}

export async function openTable(tableId, { sit = false } = {}) {
  await act(async () => {
    try {
      await conn.request("join", { table: tableId });
    } catch (err) {
      throw Object.assign(err, { table: tableId }); // an unknown_table error may say where it is
    }
    sendSeed(tableId);
    setCurrent(tableId);
    if (sit) await conn.request("sit", { table: tableId });
  });
}

/** A request for one of our seats, with the snapshot it was made on (`seq`: see `deal`). */
export const tableRequest = (t, seat) => act(() => conn.request(t, {
  table: state.current, seat, ...seqOf(t),
}));

/** `{seq}` of the table on screen for a bet or decision, which the server refuses once
 * the round it was made for has moved on; nothing for other requests. */
function seqOf(t) {
  const seq = state.tables[state.current]?.seq;
  return ["withdraw", "fold", "raise"].includes(t) && seq !== undefined ? { seq } : {};
}

/** A fold or raise. One whose answer the link lost may have got there or not: the
 * table tells; if its clock then folds that hand, the page says the decision sent
 * never reached the server (`lostDecisionsNote`), not only that the clock ran out. */
async function sendDecision(decision, table, seat) {
  const roundId = state.tables[table]?.round_id;
  const seq = state.tables[table]?.seq;
  try {
    await conn.request(decision, { table, seat, ...(seq === undefined ? {} : { seq }) });
  } catch (err) {
    if (err instanceof OfflineError && roundId) state.lostDecisions[`${roundId}:${seat}`] = decision;
    throw err;
  }
}

/** " Your raise for seat #1 never reached the server …" for the seats of `roundId` the
 * clock folded after a decision sent for them was lost with the link; forgets them. */
export function lostDecisionsNote(roundId, seats) {
  const lost = seats.map((i) => [i, state.lostDecisions[`${roundId}:${i}`]]).filter(([, d]) => d);
  for (const key of Object.keys(state.lostDecisions)) {
    if (!key.startsWith(`${roundId}:`)) delete state.lostDecisions[key]; // older rounds: done
  }
  for (const [i] of lost) delete state.lostDecisions[`${roundId}:${i}`];
  return lost.map(([i, d]) => ` Your ${d} for seat #${i + 1} never reached the server: `
    + "the connection was down when it was sent.").join("");
}

export function takeSeat() {
  act(() => conn.request("sit", { table: state.current }));
}

export function selectSeat(seat, { focus = false } = {}) {
  const snap = state.tables[state.current];
  if (!snap || !mySeats(snap).includes(seat)) return;
  state.selected[snap.table] = seat;
  render();
  if (focus) {
    queueMicrotask(() => document.querySelector(`[data-testid="seat-${seat}"]`)?.focus({ preventScroll: false }));
  } else revealSeat(seat);
}

/** A phone's hand selected is brought whole into view, clear of the rack stuck to the
 * bottom of the screen (narrow.css: the page's scroll padding is the rack's height, and
 * the sticky dealer row's on top): the third hand's − and Progressive were under it. */
function revealSeat(seat) {
  const el = document.querySelector(`#table.layout-flow [data-testid="seat-${seat}"]`);
  if (!el) return;
  fitFelt(); // the rack's height as drawn now
  el.scrollIntoView({ block: "nearest", behavior: "instant" });
}

const decisionShown = {}; // table id -> the round whose decision a phone was scrolled to

/** A phone's decision: once the cards are down, the selected hand waiting for it is
 * scrolled whole into view, under the dealer's sticky row (the page's scroll padding),
 * once per round. Dealt with the page scrolled down, that hand's cards sat under the
 * row, a stray Fold/Raise showing, while a seat sitting the round out was in view. */
export function revealDecision(snap, dealing) {
  if (snap.phase !== "deciding" || dealing || decisionShown[snap.table] === snap.round_id) return;
  const seat = selectedSeat(snap);
  const waiting = seat !== null && snap.seats[seat].cards && !snap.seats[seat].decision;
  if (!waiting || !document.querySelector("#table.layout-flow")) return;
  decisionShown[snap.table] = snap.round_id;
  revealSeat(seat);
}

const showdownShown = {}; // table id -> the round whose showdown a phone was checked for

/** A phone's showdown: the dealer's sticky row grows by its hand in words ("One Pair —
 * qualifies"), and the browser keeps the hand in view where it was (scroll anchoring),
 * so that row covered its header (YOU #N, the hand, the result). Once per round, when
 * the showdown is drawn, an own hand in view (more of it below the row than under it)
 * whose top is under the row is scrolled clear of it, by that much; the page moves no
 * further. Measured once the frame is drawn: the browser's anchoring comes with it. */
export function revealShowdown(snap) {
  if (snap.phase !== "showdown" || showdownShown[snap.table] === snap.round_id) return;
  if (!document.querySelector("#table.layout-flow")) return;
  showdownShown[snap.table] = snap.round_id;
  const seats = mySeats(snap);
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const bar = document.querySelector("#table.layout-flow .felt.flow .dealer");
    if (!bar || state.tables[snap.table]?.round_id !== snap.round_id) return;
    const edge = bar.getBoundingClientRect().bottom;
    for (const i of seats) {
      const box = document.querySelector(`#table.layout-flow [data-testid="seat-${i}"]`)?.getBoundingClientRect();
      if (!box || box.top >= edge || box.bottom - edge <= edge - box.top) continue;
      window.scrollBy({ top: box.top - edge, behavior: "instant" });
      return;
    }
  }));
}

/**
 * Tab: the next of our seats, selected and focused; while deciding, the next of those
 * still waiting (Tab went through hands decided already, and from the last seat off
 * to the rack, so three hands' keyboard player never got back to a waiting #1). From
 * nothing focused: the one after the selected seat, round to the first. From one of
 * our seats: the next one; from a decided hand, round to the first waiting; from the
 * last (waiting) one none (false), so the focus moves on to the rack as usual: the
 * keyboard is never kept in the seats.
 */
export function nextSeat(fromSeat = null) {
  const snap = state.tables[state.current];
  if (!snap) return false;
  const mine = mySeats(snap);
  const waiting = snap.phase === "deciding" ? undecidedSeats(snap) : [];
  const ring = waiting.length ? waiting : mine;
  if (!ring.length) return false;
  const from = fromSeat ?? selectedSeat(snap);
  let next = ring.find((i) => i > from);
  if (next === undefined && (fromSeat === null || !ring.includes(fromSeat))) next = ring[0];
  if (next === undefined) return false;
  selectSeat(next, { focus: true });
  return true;
}

/** Our hands dealt and still waiting for fold or raise. */
function undecidedSeats(snap) {
  return mySeats(snap).filter((i) => snap.seats[i].cards && !snap.seats[i].decision);
}

/** A Fold or Raise clicked: once sent, the selection (what the rack line and the keys
 * act on) moves on from that hand to the next one still waiting, as a key's does. */
export function decideByClick(decision, seat) {
  const table = state.current;
  const snap = state.tables[table];
  const later = snap ? nextWaiting(undecidedSeats(snap), seat) : undefined;
  act(async () => {
    await sendDecision(decision, table, seat);
    if (later !== undefined && selectedSeat(state.tables[table]) === seat) state.selected[table] = later;
  });
}

/** f / r: the selected seat, and only it: the one the ring, the ▼ and the rack line
 * show. The selection stays on it once decided, as in the terminal: a key pressed twice
 * (a bounce, impatience) folded or raised the next hand too, one never chosen. A
 * selected hand already decided is told, never swapped for another one: the key sends
 * nothing, and the selection moves to a hand still waiting, for the next. */
export function decideByKey(decision) {
  const snap = state.tables[state.current];
  if (!snap) return;
  if (snap.phase !== "deciding") {
    showError("No decision is due now.", { tone: "warn" });
    return;
  }
  const undecided = undecidedSeats(snap);
  const seat = selectedSeat(snap);
  if (!undecided.length) {
    // the only hand (or every one) decided while others still decide: name it, as below
    const mine = seat === null ? null : snap.seats[seat];
    if (mine?.decision) {
      showError(`Seat #${seat + 1} has ${mine.decision === "raise" ? "raised" : "folded"} already; `
        + "nothing sent.", { code: "decided", tone: "warn", table: snap.table, round: snap.round_id });
    } else {
      showError("None of your hands is waiting for a decision.", { tone: "warn" });
    }
    return;
  }
  if (!undecided.includes(seat)) {
    const mine = snap.seats[seat];
    const done = !mine?.cards ? "no hand this round"
      : mine.decision === "raise" ? "raised already" : "folded already";
    const next = nextWaiting(undecided, seat);
    const also = undecided.filter((i) => i !== next).map((i) => `#${i + 1}`);
    showError(`Seat #${seat + 1} has ${done}; nothing sent. Selected now: #${next + 1}, waiting`
      + `${also.length ? ` (and ${also.join(", ")})` : ""}: press f or r again for it.`,
    { code: "decided", tone: "warn", table: snap.table, round: snap.round_id, seat: next });
    selectSeat(next, { focus: focusFollows() });
    return;
  }
  act(() => sendDecision(decision, snap.table, seat));
}

/** Whether a decision key's new selection takes the focus too: from nothing focused,
 * from the table's title (where a reload or a table just opened puts it: after a
 * reload mid-decision the ring stayed there while r and f went on seat by seat) and
 * from anything on the felt (a seat, its circle); a control elsewhere (the rack, the
 * side panel, the top bar) keeps it, as the player put it there. */
function focusFollows() {
  const focused = document.activeElement;
  return !focused || focused === document.body
    || focused.matches?.('#table [data-testid="table-title"]')
    || focused.closest?.('#table [data-testid="felt"]') !== null;
}
