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
//
// A big screen (past 1440x800) draws the table bigger by `ui` (uiScale): the
// felt is never zoomed, its seats are laid out in its own px with every size they
// reserve (rows, cards, circles, the words in them) grown by the seat's scale,
// which is `ui` where the seat is wide enough and less where the felt's width is
// shared by many seats (a seat as wide as 145 px per unit of scale holds its words
// as a laptop's 145 px seat does). A long name gets the seat's whole width: its size
// follows the width, so 23 letters read whole in a 168 px seat. The frame around the
// felt (top bar, head, rack, side panel) grows by frameScale, from a bigger window
// on and less, so the felt keeps the room its nine seats need.

export const MIN_SEAT_W = 92; // below this an arc seat cannot show five readable cards
export const MAX_SEAT_W = 196;
const MARGIN = 10; // px kept clear inside the rail
const GAP = 8; // px at least between two seat boxes
const MIN_CARD_W = 28;
const MAX_CARD_W = 46;
const CARD_RATIO = 1.42;
const WIDE_W = 145; // px: a seat this wide holds its words (Fold and Raise $20) at a laptop's size
const LONG_NAME_W = 168; // px: the seat a long name (23 letters) reads whole in at 12 px
const BASE = { width: 1440, height: 800 }; // the biggest window drawn at a laptop's size
const MAX_UI = 2;

const hundredths = (x) => Math.round(x * 100) / 100;

/** How much bigger than a laptop's the table is drawn in a window `width` x `height`:
 * 1 up to 1440x800, then as the window's smaller ratio to that (1.33 at 1920x1080). */
export function uiScale(width, height) {
  return hundredths(Math.min(MAX_UI, Math.max(1, Math.min(width / BASE.width, height / BASE.height))));
}

/** The frame around the felt (top bar, the table's head, the rack, the side panel, the
 * lobby): 1 up to scale 1.15, then growing 0.9 as fast as the felt's contents (1.16 at
 * 1920x1080, 1.57 at 2560x1440), 1.6 at most. Grown from scale 1, a 1680x1050 window's
 * wider side panel took from the felt the 3 px that kept nine seats out of their narrow
 * form (their names said YOU #n, their words a size smaller). */
export function frameScale(ui) {
  return hundredths(Math.min(1.6, Math.max(1, 1 + (ui - 1.15) * 0.9)));
}

// Fixed rows of an arc seat, px (table.css uses the same numbers through `vars`).
export const ROWS = {
  name: 22,
  info: 30, // hand label and status, one line each
  actions: 44, // Fold/Raise, Clear/Stand, or the result at showdown (.seat-foot)
  gap: 3,
};

/** The seat box and what goes in it, for a seat width `w` on a table drawn `ui` times a
 * laptop's size: `s` scales its words and rows, `nameFont` is a long name's size (px). */
export function seatBox(w, ui = 1) {
  const s = hundredths(Math.max(1, Math.min(ui, w / WIDE_W)));
  // a big screen fans the cards closer to draw them bigger: each still shows 44 % of its
  // face, room for a 10's corner (at 40 % the next card cut its 0)
  const fan = Math.max(2.76, 2.9 / ui);
  const cardW = Math.round(Math.min(MAX_CARD_W * ui, Math.max(MIN_CARD_W, (w - 6) / fan)));
  const cardH = Math.round(cardW * CARD_RATIO);
  // how far each card of the fan is moved right of the one below it (all five fit in w)
  const step = Math.floor(Math.min(cardW + 3, (w - 6 - cardW) / 4) * 10) / 10;
  const circle = Math.round(Math.min(64 * ui, Math.max(40, w * 0.42)));
  const raise = Math.max(Math.round(40 * s), Math.round(circle * 0.72)); // 40: the word RAISE fits inside
  const spot = circle + Math.round(12 * s); // the circle, its amount tag and the badges around it
  const rows = { name: ROWS.name * s, info: ROWS.info * s, actions: ROWS.actions * s };
  const h = Math.ceil(rows.name + ROWS.gap + cardH + ROWS.gap + rows.info + ROWS.gap + spot + ROWS.gap + rows.actions);
  const cardsY = rows.name + ROWS.gap + cardH / 2; // the middle of the cards, from the box's top
  const nameFont = ui > 1 ? hundredths(Math.max(11.5, Math.min(12 * ui, (12 * w) / LONG_NAME_W))) : 12;
  return { w, h, cardW, cardH, step, circle, raise, spot, cardsY, s, nameFont };
}

/** The dealer's cards and the table message at the top of the felt (`ui`: as seatBox). */
export function dealerBox(width, height, ui = 1) {
  const cardW = Math.round(Math.min(60 * ui, Math.max(36, Math.min(width / 16, height / 10.5))));
  const cardH = Math.round(cardW * CARD_RATIO);
  const cards = 5 * cardW + 4 * 6;
  const message = Math.min(460 * ui, width - 40);
  // label 16, cards, hand line 24, message two lines of 20 + padding 8, gaps
  const h = Math.ceil(8 + 16 * ui + 4 + cardH + 4 + 24 * ui + 6 + 48 * ui + 8);
  const cardsY = 8 + 16 * ui + 4 + cardH / 2;
  return { cardW, cardH, w: Math.max(cards, message), h, message, cardsY, s: ui };
}

/**
 * The layout of `n` seats on a felt whose inside is `width` x `height` px.
 * Returns {mode: "arc"|"flow", seat, dealer, positions: [{x, y, w, h}]} with
 * positions as the top-left corners of the seat boxes (arc only), and `vars`,
 * the CSS custom properties the boxes are drawn with.
 */
export function seatLayout(n, width, height, ui = 1) {
  const W = Math.floor(width);
  const H = Math.floor(height);
  const slot = n > 0 ? (W - 2 * MARGIN - (n - 1) * GAP) / n : MAX_SEAT_W;
  if (n < 1 || slot < MIN_SEAT_W) return { mode: "flow", positions: [], vars: {} };
  // the biggest seat (and dealer) that fits, shrinking the seats first, then the dealer
  for (let w = Math.min(Math.round(MAX_SEAT_W * ui), Math.floor(slot)); w >= MIN_SEAT_W; w -= 4) {
    const seat = seatBox(w, ui);
    for (const shrink of [1, 0.85, 0.7]) {
      const dealer = dealerBox(W * shrink, H * shrink, ui);
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
    "--seat-s": String(seat.s), "--felt-s": String(dealer.s), "--name-long": `${seat.nameFont}px`,
  };
}

/** Do two boxes {x, y, w, h} share any area? (Touching edges do not count.) */
export function overlaps(a, b) {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}
