// Where the seats go on the felt: pure arithmetic on the felt's measured size,
// no DOM, so it is tested by Node (clients/web/test/layout.test.mjs) for every
// seat count at every screen size the page supports.
//
// Two layouts:
//  - "arc": the seats stand on the curve of a half-moon table, below the
//    dealer, seat 0 at the dealer's left (the players' right). Every seat gets
//    the same box, sized so that no two boxes meet: the boxes are spaced at
//    least their width apart, and the seats under the dealer stay below the
//    dealer's cards and the table message. The boxes' contents (cards, the
//    betting spot, buttons, the result) are sized from the box by the CSS
//    variables `vars` gives, so what is drawn fits what was reserved.
//  - "flow": too narrow for an arc (a phone, or a narrow window with many
//    seats): the page flows; the player's own seats are drawn large with their
//    buttons, the others as compact tiles (CSS does that; no positions here).

export const MIN_SEAT_W = 92; // below this an arc seat cannot show five readable cards
export const MAX_SEAT_W = 196;
const MARGIN = 10; // px kept clear inside the rail
const GAP = 8; // px at least between two seat boxes
const MIN_CARD_W = 28;
const MAX_CARD_W = 46;
const CARD_RATIO = 1.42;

// Fixed rows of an arc seat, px (styles.css uses the same numbers through `vars`).
export const ROWS = {
  name: 22,
  info: 30, // hand label and status, one line each
  actions: 44, // Fold/Raise, Clear/Stand, or the result at showdown (.seat-foot)
  gap: 3,
};

/** The seat box and what goes in it, for a seat width `w`. */
export function seatBox(w) {
  const cardW = Math.round(Math.min(MAX_CARD_W, Math.max(MIN_CARD_W, (w - 6) / 2.9)));
  const cardH = Math.round(cardW * CARD_RATIO);
  // how far each card of the fan is moved right of the one below it (all five fit in w)
  const step = Math.floor(Math.min(cardW + 3, (w - 6 - cardW) / 4) * 10) / 10;
  const circle = Math.round(Math.min(64, Math.max(40, w * 0.42)));
  const raise = Math.max(40, Math.round(circle * 0.72)); // 40: the word RAISE fits inside
  const spot = circle + 12; // the circle, its amount tag and the badges around it
  const h = ROWS.name + ROWS.gap + cardH + ROWS.gap + ROWS.info + ROWS.gap + spot + ROWS.gap + ROWS.actions;
  const cardsY = ROWS.name + ROWS.gap + cardH / 2; // the middle of the cards, from the box's top
  return { w, h, cardW, cardH, step, circle, raise, spot, cardsY };
}

/** The dealer's cards and the table message at the top of the felt. */
export function dealerBox(width, height) {
  const cardW = Math.round(Math.min(60, Math.max(36, Math.min(width / 16, height / 10.5))));
  const cardH = Math.round(cardW * CARD_RATIO);
  const cards = 5 * cardW + 4 * 6;
  const message = Math.min(460, width - 40);
  // label 16, cards, hand line 24, message two lines of 20 + padding 8, gaps
  const h = 8 + 16 + 4 + cardH + 4 + 24 + 6 + 48 + 8;
  const cardsY = 8 + 16 + 4 + cardH / 2;
  return { cardW, cardH, w: Math.max(cards, message), h, message, cardsY };
}

/**
 * The layout of `n` seats on a felt whose inside is `width` x `height` px.
 * Returns {mode: "arc"|"flow", seat, dealer, positions: [{x, y, w, h}]} with
 * positions as the top-left corners of the seat boxes (arc only), and `vars`,
 * the CSS custom properties the boxes are drawn with.
 */
export function seatLayout(n, width, height) {
  const W = Math.floor(width);
  const H = Math.floor(height);
  const slot = n > 0 ? (W - 2 * MARGIN - (n - 1) * GAP) / n : MAX_SEAT_W;
  if (n < 1 || slot < MIN_SEAT_W) return { mode: "flow", positions: [], vars: {} };
  // the biggest seat (and dealer) that fits, shrinking the seats first, then the dealer
  for (let w = Math.min(MAX_SEAT_W, Math.floor(slot)); w >= MIN_SEAT_W; w -= 4) {
    const seat = seatBox(w);
    for (const shrink of [1, 0.85, 0.7]) {
      const dealer = dealerBox(W * shrink, H * shrink);
      const positions = arc(n, W, H, seat, dealer);
      if (positions) return arcLayout(W, H, seat, dealer, positions);
    }
  }
  // too low for an arc at any size: the smallest seats in a straight row under the dealer
  const seat = seatBox(MIN_SEAT_W);
  const dealer = dealerBox(W * 0.7, H * 0.7);
  return arcLayout(W, H, seat, dealer, row(n, W, seat, dealer.h));
}

function arcLayout(W, H, seat, dealer, positions) {
  // the table's name is printed on the felt between the dealer and the seats below, if there is room
  const below = positions.filter((p) => Math.abs(p.x + p.w / 2 - W / 2) < p.w / 2 + 120).map((p) => p.y);
  const room = (below.length ? Math.min(...below) : H) - dealer.h;
  const printTop = room >= 34 ? Math.round(dealer.h + (room - 26) / 2) : null;
  return { mode: "arc", width: W, height: H, seat, dealer, positions, printTop, vars: cssVars(seat, dealer) };
}

/** Seat boxes on a parabola under the dealer, or null when the lowest seat would not fit. */
function arc(n, W, H, seat, dealer) {
  const bottom = H - MARGIN - seat.h; // the top of the lowest seat
  const limitTop = dealer.h; // seats beneath the dealer stay under the message
  const spacing = n === 1 ? 0 : Math.min((W - 2 * MARGIN - seat.w) / (n - 1), seat.w * 1.4);
  const centre = W / 2;
  const half = (n - 1) / 2;
  const xs = Array.from({ length: n }, (_, i) => centre + (half - i) * spacing); // seat 0 on the right
  const us = Array.from({ length: n }, (_, i) => (half === 0 ? 0 : (half - i) / half));
  const underDealer = xs.map((x) => Math.abs(x - centre) < dealer.w / 2 + seat.w / 2 + GAP);
  // how high the ends of the arc may rise: seats under the dealer stay below it, the
  // others below the top margin; and no more than 40 % of the felt's height
  let rise = H * 0.4;
  for (let i = 0; i < n; i++) {
    const top = underDealer[i] ? limitTop : MARGIN;
    if (bottom < top) return null;
    const f = us[i] * us[i];
    if (f > 0) rise = Math.min(rise, (bottom - top) / f);
  }
  return xs.map((x, i) => ({
    x: Math.round(x - seat.w / 2), y: Math.round(bottom - rise * us[i] * us[i]), w: seat.w, h: seat.h,
  }));
}

/** Seats side by side under the dealer (a felt too low for the arc; the page scrolls). */
function row(n, W, seat, top) {
  const spacing = n === 1 ? 0 : Math.min((W - 2 * MARGIN - seat.w) / (n - 1), seat.w * 1.4);
  const half = (n - 1) / 2;
  return Array.from({ length: n }, (_, i) => ({
    x: Math.round(W / 2 + (half - i) * spacing - seat.w / 2), y: Math.round(top), w: seat.w, h: seat.h,
  }));
}

function cssVars(seat, dealer) {
  return {
    "--seat-w": `${seat.w}px`, "--seat-h": `${seat.h}px`,
    "--seat-card-w": `${seat.cardW}px`, "--seat-card-h": `${seat.cardH}px`, "--seat-card-step": `${seat.step}px`,
    "--circle": `${seat.circle}px`, "--raise": `${seat.raise}px`, "--spot-h": `${seat.spot}px`,
    "--stack-scale": String(Math.round((seat.circle / 64) * 100) / 100),
    "--dealer-card-w": `${dealer.cardW}px`, "--dealer-card-h": `${dealer.cardH}px`,
    "--dealer-h": `${dealer.h}px`, "--message-w": `${dealer.message}px`,
  };
}

/** Do two boxes {x, y, w, h} share any area? (Touching edges do not count.) */
export function overlaps(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
