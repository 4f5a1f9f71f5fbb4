// Seat layout (js/layout.js): for every seat count at the felt sizes the page
// has on laptops and desktops, no two seat boxes meet, every box stays on the
// felt, and the seats under the dealer stay below the dealer's cards and message.
// Run: node --test clients/web/test/

import assert from "node:assert/strict";
import { test } from "node:test";

import { MIN_SEAT_W, dealerBox, frameScale, overlaps, seatBox, seatLayout, uiScale } from "../js/layout.js";

// The felt's inside as measured in the page at 1280x800, 1366x768, 1440x900, 1536x864,
// 1920x1080 and 1024x768 (the side panel under the felt), and two narrower ones.
const FELTS = [[956, 561], [1042, 529], [1116, 661], [1212, 625], [1596, 841], [972, 550], [800, 520], [640, 440]];

// A big screen's felts, with the scale of their window: 1920x1080 and 2560x1440, and
// 1680x1050 and 3840x2160 (scale 2, the most).
const BIG_FELTS = [[1552, 822, 1.33], [2135, 1117, 1.78], [1345, 800, 1.17], [3200, 1700, 2]];

for (const [w, h, ui] of [...FELTS.map(([fw, fh]) => [fw, fh, 1]), ...BIG_FELTS]) {
  test(`seats on a ${w}x${h} felt at scale ${ui} never meet and stay on it`, () => {
    for (let n = 1; n <= 9; n++) {
      const layout = seatLayout(n, w, h, ui);
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

test("a laptop's window draws at scale 1, a big screen's bigger, the frame from 1680 px on", () => {
  for (const [w, h] of [[1024, 768], [1280, 800], [1366, 768], [1440, 900], [390, 844]]) {
    assert.equal(uiScale(w, h), 1, `${w}x${h}`);
  }
  assert.equal(uiScale(1920, 1080), 1.33);
  assert.equal(uiScale(2560, 1440), 1.78);
  assert.equal(uiScale(7680, 4320), 2);
  assert.equal(frameScale(1), 1);
  assert.equal(frameScale(uiScale(1680, 1050)), 1.02); // the felt keeps its nine seats' width
  assert.equal(frameScale(1.33), 1.16);
  assert.equal(frameScale(1.78), 1.57);
  assert.equal(frameScale(2), 1.6);
});

test("a big screen's seat grows its cards and words only as far as its width allows", () => {
  for (const ui of [1.17, 1.33, 1.78, 2]) {
    for (let w = MIN_SEAT_W; w <= Math.round(196 * ui); w += 4) {
      const box = seatBox(w, ui);
      const laptop = seatBox(w);
      assert.ok(box.cardW + 4 * box.step <= w, `scale ${ui}, width ${w}: the fan overflows`);
      assert.ok(box.step >= 0.44 * box.cardW - 0.5, `scale ${ui}, width ${w}: cards too covered to read`);
      assert.ok(box.cardW >= laptop.cardW && box.h >= laptop.h, `scale ${ui}, width ${w}`);
      assert.ok(box.s >= 1 && box.s <= ui && box.s * 145 <= Math.max(w, 145) + 1, `scale ${ui}, width ${w}: words ${box.s}`);
      // a long name: 12 px in a 168 px seat, in proportion to the width (11.5 at least)
      assert.ok(box.nameFont <= Math.max(11.5, (12 * w) / 168) + 0.01, `scale ${ui}, width ${w}: name ${box.nameFont}`);
    }
  }
  // nine seats at 1920x1080: the cards a fifth bigger than the biggest a laptop draws
  assert.ok(seatLayout(9, 1552, 822, 1.33).seat.cardW >= 46 * 1.2);
});
