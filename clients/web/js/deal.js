// The deal, card by card, as the table deals it (PROTOCOL.md section 6): one
// card at a time to each seat with an ante, in seat order, then the dealer,
// five times. When the tab sees the cards come out (the snapshot before had
// none) it shows them in that order, one step apart; a page opened in the
// middle of a round, or one whose user asked for reduced motion, shows them
// all at once. Pure functions of the snapshot and the clock (tested by Node).

export const DEALER = "dealer";
// The deciding clock runs from the deal: the whole show, to its last card landed, takes
// at most SHOW_MS whatever the seat count (a full table's 50 cards took 2 s of a
// phone's 20), so it never eats much of a player's time.
const SHOW_MS = 800;
const STEP_MAX_MS = 150; // a short deal's cards still come one by one, this far apart at most

/** The deal order: [{to: seat index | "dealer", card: 0..4}], as the cards leave the deck. */
export function dealOrder(snap) {
  const seats = (snap?.seats ?? [])
    .map((s, i) => (s && Array.isArray(s.cards) ? i : -1))
    .filter((i) => i >= 0);
  const order = [];
  for (let card = 0; card < 5; card++) {
    for (const to of seats) order.push({ to, card });
    order.push({ to: DEALER, card });
  }
  return order;
}

/** Did the cards come out between these two snapshots of a table (so the deal is shown)? */
export function justDealt(before, after) {
  if (!before || !after || before.table !== after.table) return false;
  const had = Array.isArray(before.dealer?.cards);
  const has = Array.isArray(after.dealer?.cards);
  return !had && has && after.phase === "deciding" && Boolean(after.round_id);
}

/** A deal to show, starting at `now` (ms). */
export function startDeal(snap, now) {
  const order = dealOrder(snap);
  // the last card leaves at (count - 1) steps and lands FLY_MS later
  const step = Math.max(1, Math.min(STEP_MAX_MS, Math.floor((SHOW_MS - FLY_MS) / Math.max(1, order.length - 1))));
  const index = new Map(order.map((o, i) => [`${o.to}:${o.card}`, i]));
  return { round_id: snap.round_id, t0: now, step, count: order.length, index };
}

/** How many cards are out at `now`. */
export function dealtCount(deal, now) {
  if (!deal) return Infinity;
  return Math.min(deal.count, Math.floor((now - deal.t0) / deal.step) + 1);
}

export function dealDone(deal, now) {
  return !deal || dealtCount(deal, now) >= deal.count;
}

/** Is card `card` of `to` (a seat index or "dealer") on the table yet? */
export function isDealt(deal, now, to, card) {
  if (!deal) return true;
  const at = deal.index.get(`${to}:${card}`);
  return at === undefined || at < dealtCount(deal, now);
}

/** Milliseconds until the next card goes out (for the redraw timer), or null when done. */
export function nextCardIn(deal, now) {
  if (dealDone(deal, now)) return null;
  return Math.max(0, deal.t0 + dealtCount(deal, now) * deal.step - now);
}

/** How long a card flies in once dealt, ms (table.css: `.card.dealt`, its deal-in). */
export const FLY_MS = 260;

/** Has card `card` of `to` landed at `now`: out, and its flight over (drawn whole)? */
export function hasLanded(deal, now, to, card) {
  return isDealt(deal, now - FLY_MS, to, card);
}

/** Has the deal's last card landed (the show of the deal over)? */
export function dealLanded(deal, now) {
  return dealDone(deal, now - FLY_MS);
}

/** Milliseconds until the show needs its next redraw (a card out, or the last one
 * landed), or null when it is over. */
export function nextDealFrameIn(deal, now) {
  const card = nextCardIn(deal, now);
  if (card !== null) return card;
  if (dealLanded(deal, now)) return null;
  return Math.max(0, deal.t0 + (deal.count - 1) * deal.step + FLY_MS - now);
}

/**
 * The snapshot as it stood when its cards came out, for as long as the deal is shown:
 * decisions that arrived meanwhile (everyone decided quickly) wait until the last card
 * is out. Own hands (`mine`: seat indexes) keep their cards. Only a deciding snapshot is
 * held back: a showdown is never shown as a deal (the felt said "Dealing…" beside the
 * head's "Next round 6s" and the revealed proof); it ends the show (table.js).
 */
export function asDealt(snap, mine = []) {
  if (snap.phase !== "deciding") return snap;
  const up = snap.dealer?.cards?.[4] ?? null;
  const hidden = snap.hands !== "open";
  return {
    ...snap,
    phase: "deciding",
    dealer: { cards: snap.dealer?.cards ? [null, null, null, null, up] : null, hand: null, qualifies: null },
    seats: snap.seats.map((s, i) => s && {
      ...s,
      // a hand of the viewer's, decided as soon as its cards showed, stays decided
      decision: mine.includes(i) ? s.decision : null,
      auto: mine.includes(i) ? s.auto : false,
      result: null,
      cards: s.cards && hidden && !mine.includes(i) ? [null, null, null, null, null] : s.cards,
      hand: hidden && !mine.includes(i) ? null : s.hand,
    }),
  };
}
