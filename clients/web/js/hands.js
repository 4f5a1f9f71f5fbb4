// Private hands (PROTOCOL.md, the `hand` frame): with `hands: "private"` a
// table snapshot shows every dealt hand face down until the showdown, even to
// its own player, because one snapshot is encoded for every viewer. Each
// player's own cards come in a small `hand` frame sent only to them. The tab
// keeps that frame per table and round, and draws those cards face up on the
// player's own seats while the snapshot of the same round shows them face
// down; a snapshot of another round drops it. In "open" mode (and from a
// server that sends no `hands` field) the snapshot's cards are drawn as they are.
//
// No DOM here: clients/web/test/hands.test.mjs feeds it frames under Node.

/** True for a dealt hand shown face down: five entries, none of them a card. */
export function faceDown(cards) {
  return Array.isArray(cards) && cards.length > 0 && cards.every((c) => c === null || c === undefined);
}

/**
 * Keep a `hand` frame: `store` maps table id -> {round_id, seats: {seat: {cards, hand}}}.
 * A frame of the round already kept adds to it (one comes again after a join,
 * a sit or a reconnect); a frame of another round replaces it.
 */
export function absorbHand(store, frame) {
  if (!frame || typeof frame.table !== "string" || !frame.round_id) return;
  const kept = store[frame.table];
  const seats = kept && kept.round_id === frame.round_id ? { ...kept.seats } : {};
  for (const entry of Array.isArray(frame.seats) ? frame.seats : []) {
    if (Number.isInteger(entry?.seat) && Array.isArray(entry.cards)) {
      seats[entry.seat] = { cards: entry.cards, hand: entry.hand ?? null };
    }
  }
  store[frame.table] = { round_id: frame.round_id, seats };
}

/** A new round (or none) at the table: the cards kept for an earlier one are no use. */
export function forgetStaleHands(store, snap) {
  const kept = store[snap?.table];
  if (kept && kept.round_id !== snap.round_id) delete store[snap.table];
}

/**
 * The snapshot as this player sees it: their own face-down hands of this
 * round replaced by the cards of their `hand` frame. The snapshot itself is
 * never changed; one with nothing to fill in is returned as it is.
 */
export function withOwnHands(snap, store, playerId) {
  const kept = store[snap?.table];
  if (!kept || !snap.round_id || kept.round_id !== snap.round_id || !playerId) return snap;
  let seats = null;
  snap.seats.forEach((seat, i) => {
    const mine = kept.seats[i];
    if (!mine || !seat || seat.player_id !== playerId || !faceDown(seat.cards)) return;
    seats ??= [...snap.seats];
    seats[i] = { ...seat, cards: mine.cards, hand: mine.hand ?? seat.hand ?? null };
  });
  return seats ? { ...snap, seats } : snap;
}

/** Is the table dealing hands face down until the showdown? */
export function privateHands(snap) {
  return snap?.hands === "private";
}
