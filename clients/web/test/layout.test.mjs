// Seat layout (js/layout.js): for every seat count at the felt sizes the page
// has on laptops and desktops, no two seat boxes meet, every box stays on the
// felt, and the seats under the dealer stay below the dealer's cards and message.
// Run: node --test clients/web/test/

import assert from "node:assert/strict";
import { test } from "node:test";

import { MIN_SEAT_W, dealerBox, overlaps, seatBox, seatLayout } from "../js/layout.js";

// The felt's inside as measured in the page at 1280x800, 1366x768, 1440x900, 1536x864,
// 1920x1080 and 1024x768 (the side panel under the felt), and two narrower ones.
const FELTS = [[956, 561], [1042, 529], [1116, 661], [1212, 625], [1596, 841], [972, 550], [800, 520], [640, 440]];

for (const [w, h] of FELTS) {
  test(`seats on a ${w}x${h} felt never meet and stay on it`, () => {
    for (let n = 1; n <= 9; n++) {
      const layout = seatLayout(n, w, h);
      if (layout.mode === "flow") {
        assert.ok((w - 20 - (n - 1) * 8) / n < MIN_SEAT_W, `${n} seats flow though they fit`);
        continue;
      }
      const ps = layout.positions;
      assert.equal(ps.length, n);
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) assert.ok(!overlaps(ps[i], ps[j]), `${n} seats: ${i} and ${j} meet`);
        assert.ok(ps[i].x >= 0 && ps[i].x + ps[i].w <= w, `${n} seats: seat ${i} off the felt sideways`);
        assert.ok(ps[i].y >= 0 && ps[i].y + ps[i].h <= h, `${n} seats: seat ${i} off the felt`);
        const dealer = { x: (w - layout.dealer.w) / 2, y: 0, w: layout.dealer.w, h: layout.dealer.h };
        assert.ok(!overlaps(ps[i], dealer), `${n} seats: seat ${i} under the dealer's cards`);
      }
      // seat 0 is at the dealer's left: the players' right
      if (n > 1) assert.ok(ps[0].x > ps[n - 1].x);
    }
  });
}

test("nine seats get an arc on the laptop, with cards at least 28 px wide", () => {
  const layout = seatLayout(9, 956, 561);
  assert.equal(layout.mode, "arc");
  assert.ok(layout.seat.cardW >= 28);
  // the ends of the arc rise beside the dealer
  assert.ok(layout.positions[0].y < layout.positions[4].y);
});

test("a phone's felt flows", () => {
  assert.equal(seatLayout(9, 370, 600).mode, "flow");
});

test("a seat box holds its five cards side by side", () => {
  for (let w = MIN_SEAT_W; w <= 196; w += 4) {
    const box = seatBox(w);
    assert.ok(box.cardW + 4 * box.step <= w, `width ${w}`);
    assert.ok(box.step >= 12, `width ${w}: cards too covered to read`);
  }
  assert.ok(dealerBox(958, 556).h < 220);
});
