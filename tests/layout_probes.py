"""What the layout tests measure in the page: small scripts run by `page.evaluate`,
each returning what it found wrong (or the boxes it measured). Kept apart from the
tests that use them (tests/test_web_layout.py)."""

from __future__ import annotations

# Every seat's boxes as drawn, and the pairs of seats that share any area.
MEASURE = """() => {
  const boxes = [];
  for (let n = 0; n < 9; n++) {
    for (const id of [`seat-${n}-cards`, `seat-${n}-name`, `seat-${n}-bet`, `ante-${n}`,
                      `raise-spot-${n}`, `seat-${n}-result`, `seat-${n}`]) {
      const el = document.querySelector(`[data-testid="${id}"]`);
      if (!el) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      boxes.push({n, id, x: r.x, y: r.y, w: r.width, h: r.height});
    }
  }
  const pairs = [];
  for (const a of boxes) for (const b of boxes) {
    if (a.n >= b.n) continue;
    const ix = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
    const iy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
    if (ix > 0.5 && iy > 0.5) pairs.push(`${a.id} and ${b.id}`);
  }
  // inside each seat: its rows (name, cards, hand and status, spot, foot) apart
  const inside = [];
  const rows = [".nameplate", ".cards .card", ".hand-label", ".seat-status", ".spot",
                ".seat-foot > *"];
  for (const seat of document.querySelectorAll('[data-testid^="seat-"].seat')) {
    const parts = [];
    rows.forEach((sel, row) => {
      for (const el of seat.querySelectorAll(sel)) {
        const r = el.getBoundingClientRect();
        if (r.width >= 1 && r.height >= 1) parts.push({row, sel, r});
      }
    });
    for (const a of parts) for (const b of parts) {
      if (a.row >= b.row) continue;
      const ix = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const iy = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (ix > 0.5 && iy > 0.5) inside.push(`${seat.dataset.testid}: ${a.sel} and ${b.sel}`);
    }
  }
  const seats = new Set(boxes.map((b) => b.n));
  return {pairs, inside: [...new Set(inside)], seats: seats.size,
          scrollWidth: document.documentElement.scrollWidth, innerWidth, innerHeight};
}"""

# The own controls that are drawn now, and where they are (at the top of the page).
CONTROLS = """(ids) => {
  window.scrollTo(0, 0);
  const out = [];
  for (const el of document.querySelectorAll(ids)) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    out.push({id: el.dataset.testid, x: r.x, y: r.y, right: r.right, bottom: r.bottom,
              w: r.width, h: r.height});
  }
  return out;
}"""

# The visible parts of the top bar, the table's head and the rack that overlap each
# other or run off the screen.
CHROME = """() => {
  window.scrollTo(0, 0);
  const bad = [];
  for (const sel of [".topbar", ".table-head", ".controls", ".wallet"]) {
    const host = document.querySelector(sel);
    if (!host) continue;
    const parts = [...host.children].map((el) => [el, el.getBoundingClientRect()])
      .filter(([, r]) => r.width >= 1 && r.height >= 1);
    for (const [el, r] of parts) {
      if (r.left < 0 || r.right > innerWidth) bad.push(`${sel} ${el.className} runs off screen`);
    }
    for (let i = 0; i < parts.length; i++) for (let j = i + 1; j < parts.length; j++) {
      const [a, ra] = parts[i]; const [b, rb] = parts[j];
      const ix = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const iy = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      const name = (el) => el.className || el.id;
      if (ix > 0.5 && iy > 0.5) bad.push(`${sel}: ${name(a)} and ${name(b)}`);
    }
  }
  return bad;
}"""

# Records every card that appears in a seat's or the dealer's row, as batches: the
# cards that came in one redraw (a busy machine may draw two steps of the deal at once).
WATCH_DEAL = """() => {
  window.dealSeen = []; window.dealingSeen = false;
  let batch = null;
  const known = new Set();
  const note = (el) => {
    if (!(el instanceof Element) || !el.classList.contains("card")) return;
    const row = el.closest('[data-testid$="-cards"]');
    if (!row) return;
    const who = row.dataset.testid.replace(/^seat-/, "").replace(/-cards$/, "");
    const key = `${who}:${[...row.children].indexOf(el)}`;
    if (!known.has(key)) batch.push(key);
    known.add(key);
  };
  new MutationObserver((records) => {
    batch = [];
    for (const r of records) {
      if (r.type === "attributes" && r.attributeName === "data-dealing"
          && r.target.dataset.dealing === "true") window.dealingSeen = true;
      if (r.type === "attributes" && r.attributeName === "class") note(r.target);
      for (const n of r.addedNodes ?? []) note(n);
    }
    if (batch.length) window.dealSeen.push(batch);
  }).observe(document.body, {subtree: true, childList: true, attributes: true,
                             attributeFilter: ["class", "data-dealing"]});
}"""

# Text drawn smaller than 10 px (elements with text of their own, on screen; 0 px is
# text deliberately not drawn, as a light shown as a dot).
SMALL_TEXT = """() => {
  const out = new Set();
  for (const el of document.querySelectorAll("body *")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    const text = el.textContent.trim().slice(0, 20);
    if (size > 0 && size < 10) out.add(`${el.className || el.tagName} ${size}px "${text}"`);
  }
  return [...out];
}"""

# A betting circle's word (ANTE, RAISE) wider than the inside of its circle, so that it
# runs over the circle's line.
WORDS_PAST_CIRCLES = """() => {
  const out = [];
  for (const word of document.querySelectorAll(".circle-label")) {
    const circle = word.parentElement;
    const r = word.getBoundingClientRect();
    if (r.width < 1) continue;
    const inside = circle.clientWidth;
    if (r.width > inside) out.push(`${word.textContent} ${r.width}>${inside}`);
  }
  return out;
}"""

# A seat's own buttons (Clear, Stand, Take back, Fold, Raise) reaching past its box on the
# arc (at 1024 px Clear and Stand side by side were 110 px in a 98 px seat).
BUTTONS_PAST_SEATS = """() => {
  const out = [];
  for (const seat of document.querySelectorAll(".seat.arc")) {
    const box = seat.getBoundingClientRect();
    for (const b of seat.querySelectorAll(".seat-actions .btn")) {
      const r = b.getBoundingClientRect();
      if (r.width && (r.left < box.left - 1 || r.right > box.right + 1)) {
        const where = `${r.left}-${r.right} in ${box.left}-${box.right}`;
        out.push(`${seat.dataset.testid} ${b.textContent} ${where}`);
      }
    }
  }
  return out;
}"""

# The selected seat's ▼ (its ::before) and its status line, in page px.
MARK_AND_STATUS = """() => {
  const seat = document.querySelector(".seat.arc.selected");
  const status = seat.querySelector(".seat-status").getBoundingClientRect();
  const mark = getComputedStyle(seat, "::before");
  const top = seat.getBoundingClientRect().top + parseFloat(mark.top);
  const height = parseFloat(mark.height) || parseFloat(mark.lineHeight);
  return {markTop: top, markBottom: top + height, statusTop: status.top, status: status.bottom};
}"""

# Each seat's result box against the rack and the window: over two lines, any part of it
# under the rack, or off the bottom of the window (the showdown's few seconds go by
# before a scroll).
RESULTS_IN_VIEW = """() => {
  const rack = document.querySelector('[data-testid="controls"]')?.getBoundingClientRect();
  const out = [];
  for (let n = 0; n < 9; n++) {
    const el = document.querySelector(`[data-testid="seat-${n}-result"]`);
    if (!el) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    // two lines at most (the outcome, the net): a taller box runs over what is below it
    const tall = r.height > 44;
    if (tall || r.bottom > innerHeight || (rack && r.bottom > rack.top && r.top < rack.bottom)) {
      out.push(`seat-${n}-result ${Math.round(r.top)}-${Math.round(r.bottom)}${tall ? " tall" : ""}`
        + ` (rack from ${rack ? Math.round(rack.top) : "-"}, window ${innerHeight})`);
    }
  }
  // the felt's foot under the rack (stuck to the screen's foot below 1100 px): only the
  // slack under the lowest result (the rail, the margin, a foot's empty line) kept it in
  // view, and one more row of top bar or head took that
  const felt = document.querySelector('#table .felt.arc')?.getBoundingClientRect();
  if (felt && rack && felt.bottom > rack.top + 0.5) {
    out.push(`felt ${Math.round(felt.top)}-${Math.round(felt.bottom)} under the rack`
      + ` (from ${Math.round(rack.top)})`);
  }
  return out;
}"""

TOAST_CLEAR = """() => {
  const box = (el) => el.getBoundingClientRect();
  const hit = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const toasts = [...document.querySelectorAll("#errors .toast")].map(box);
  const head = ["leave", "phase", "jackpot-meter", "fairness"]
    .map((id) => [id, document.querySelector(`[data-testid="${id}"]`)])
    .filter(([, el]) => el && el.getClientRects().length);
  const dealer = document.querySelector('[data-testid="dealer-cards"]');
  const decisions = 'button[data-action="fold"], button[data-action="raise"]';
  for (const b of document.querySelectorAll(decisions)) {
    if (!b.disabled) head.push([b.dataset.testid, b]);
  }
  const out = [];
  for (const t of toasts) {
    for (const [id, el] of head) {
      const b = box(el);
      if (b.bottom > 0 && b.top < innerHeight && hit(t, b)) out.push(id);
    }
    if (dealer && hit(t, box(dealer))) out.push("dealer-cards");
    if (t.top < 0 || t.bottom > innerHeight) out.push("off screen");
  }
  return {toasts: toasts.length, covered: out};
}"""

#: Whether the side panel holds more than it shows, says so while it does, and stops
#: saying so once scrolled to its end (then it is scrolled back).
SIDE_MORE = """async () => {
  const side = document.querySelector("#table .side");
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  const frames = () => frame().then(frame);
  if (!side || !side.getClientRects().length) return null;
  const hint = () => getComputedStyle(side, "::after").content;
  const scrolls = side.scrollHeight > side.clientHeight + 2;
  const before = {marked: side.dataset.more === "true", hint: hint()};
  side.scrollTop = side.scrollHeight;
  await frames();
  const after = {marked: side.dataset.more === "true", hint: hint()};
  side.scrollTop = 0;
  await frames();
  return {scrolls, before, after, back: side.dataset.more === "true"};
}"""

# Parts of the seats (nameplate, cards, betting spot, result, buttons) that reach past
# the felt's green inside onto its wooden rail: each corner of each part must lie inside
# the felt's padding box, rounded as the rail is (its corner radii less the rail's width).
SEATS_ON_FELT = """() => {
  const felt = document.querySelector('#table .felt.arc');
  if (!felt) return [];
  const cs = getComputedStyle(felt);
  const outer = felt.getBoundingClientRect();
  const bw = parseFloat(cs.borderLeftWidth);
  const inner = {left: outer.left + bw, top: outer.top + bw, right: outer.right - bw,
                 bottom: outer.bottom - bw};
  const radius = (prop) => {
    const [h, v = h] = cs[prop].split(" ");
    const px = (s, of) => s.endsWith("%") ? parseFloat(s) / 100 * of : parseFloat(s);
    return [Math.max(0, px(h, outer.width) - bw), Math.max(0, px(v, outer.height) - bw)];
  };
  const corners = {
    tl: radius("borderTopLeftRadius"), tr: radius("borderTopRightRadius"),
    bl: radius("borderBottomLeftRadius"), br: radius("borderBottomRightRadius"),
  };
  const inside = (x, y) => {
    if (x < inner.left - 0.5 || x > inner.right + 0.5 || y < inner.top - 0.5
        || y > inner.bottom + 0.5) return false;
    const left = x < (inner.left + inner.right) / 2;
    const top = y < (inner.top + inner.bottom) / 2;
    const [rx, ry] = corners[(top ? "t" : "b") + (left ? "l" : "r")];
    if (!rx || !ry) return true;
    const cx = left ? inner.left + rx : inner.right - rx;
    const cy = top ? inner.top + ry : inner.bottom - ry;
    if ((left ? x >= cx : x <= cx) || (top ? y >= cy : y <= cy)) return true;
    return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1.02;
  };
  const out = [];
  const parts = ".nameplate, .cards .card, .spot, .prog-light, .chip-remove, .result:not(.none), "
    + ".seat-actions .btn, .hand-label:not(:empty)";
  for (const seat of felt.querySelectorAll(".seat.arc")) {
    for (const el of seat.querySelectorAll(parts)) {
      const r = el.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      const off = [[r.left, r.top], [r.right, r.top], [r.left, r.bottom], [r.right, r.bottom]]
        .filter(([x, y]) => !inside(x, y));
      if (off.length) {
        out.push(`${seat.dataset.testid} ${el.className.split(" ")[0]} at `
          + off.map(([x, y]) => `${Math.round(x)},${Math.round(y)}`).join(" "));
      }
    }
  }
  return [...new Set(out)];
}"""

#: Hand categories and seat statuses cut short ("O..", "D…"), and results whose words
#: run past their box (a big win with a progressive prize at a narrow seat).
CUT_WORDS = """() => {
  const out = [];
  const words = "#table .hand-label, #table .seat-status, #table .result:not(.none)";
  for (const el of document.querySelectorAll(words)) {
    if (!el.getClientRects().length || !el.textContent.trim()) continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      const seat = el.closest("[data-testid^='seat-']")?.dataset.testid ?? "?";
      out.push(`${seat}: ${el.textContent} (${el.clientWidth} of ${el.scrollWidth} px)`);
    }
  }
  return out;
}"""

#: The seats' results (at the showdown) a toast covers.
RESULTS_UNDER_TOASTS = """() => {
  const toasts = [...document.querySelectorAll("#errors .toast")]
    .map((t) => t.getBoundingClientRect());
  const hit = (a, b) => a.left < b.right && b.left < a.right
    && a.top < b.bottom && b.top < a.bottom;
  const out = [];
  for (const r of document.querySelectorAll('#table [data-testid$="-result"]:not(.none)')) {
    const box = r.getBoundingClientRect();
    if (box.height && toasts.some((t) => hit(t, box))) out.push(r.dataset.testid);
  }
  return {toasts: toasts.length, covered: out};
}"""
