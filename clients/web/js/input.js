// The player's input: clicks (dispatched by each element's data-action), the table's
// keys (keys.js) and Escape, a right-click or a long press on a betting circle, and the
// focus (Tab through the own seats; focusing a seat selects it). The handlers are
// added by app.js.

import {
  addChip, clearBuilds, deal, lessChip, rebet, removeChip, selectChip, sitOut, toggleProgressive,
} from "./bets.js";
import { $ } from "./dom.js";
import { keyCommand } from "./keys.js";
import { disarmLeave, leaveTable } from "./leaving.js";
import { conn } from "./link.js";
import { placeToasts, showError } from "./notices.js";
import {
  decideByClick, decideByKey, nextSeat, openTable, selectSeat, tableRequest, takeSeat,
} from "./play.js";
import { loadHistory, toggleHistory, verifyDeal, verifyHistory } from "./rounds.js";
import { lettingGo, mySeats, render, selectedSeat, setCurrent, state } from "./state.js";
import { goRemote } from "./tabstore.js";

const LONG_PRESS_MS = 500; // holding a betting circle this long takes a chip off (touch screens)

/** Clicks anywhere in the page, dispatched by the element's data-action. */
export function onClick(event) {
  const el = event.target.closest("[data-action]");
  if (!el || el.disabled) return;
  if (longPressed && el.dataset.action === "add-chip") {
    longPressed = false; // the click that ends a long press: the chip is already off
    return;
  }
  const seat = el.dataset.seat === undefined ? undefined : Number(el.dataset.seat);
  switch (el.dataset.action) {
    case "play": openTable(el.dataset.table, { sit: true }); break;
    case "watch": openTable(el.dataset.table); break;
    case "open-table": openTable(el.dataset.table); break;
    case "leave": leaveTable(); break;
    case "sit": tableRequest("sit", seat); break;
    case "take-seat": takeSeat(); break;
    case "stand":
      if (state.current) lettingGo(state.current, [seat]);
      tableRequest("stand", seat);
      break;
    case "withdraw": tableRequest("withdraw", seat); break;
    case "fold": decideByClick("fold", seat); break;
    case "raise": decideByClick("raise", seat); break;
    case "deal": deal(); break;
    case "sit-out": sitOut(); break;
    case "chip": selectChip(Number(el.dataset.cents)); break;
    case "add-chip": addChip(seat); break;
    case "remove-chip": removeChip(seat); break;
    case "toggle-progressive": toggleProgressive(seat); break;
    case "clear-seat": clearBuilds(seat); break;
    case "clear": clearBuilds(); break;
    case "rebet": rebet(); break;
    case "select-seat": selectSeat(seat); break;
    case "toggle-side": state.sideOpen = el.getAttribute("aria-expanded") !== "true"; render(); break;
    case "to-side": document.querySelector("#table .side")?.scrollIntoView({ block: "start" }); break;
    case "toggle-pays":
      state.paysOpen[el.dataset.table] = el.getAttribute("aria-expanded") !== "true";
      render();
      break;
    case "open-remote": goRemote(el.dataset.href); break;
    case "stop-awaiting": state.awaiting = null; setCurrent(null); render(); break;
    case "dismiss":
      if (el.closest(".toast")?.dataset.code === "leave-confirm") {
        disarmLeave(); // the warning waved away: the head's button no longer leaves at once
        render();
      } else el.closest(".toast, .banner")?.remove();
      break;
    case "toggle-toast": {
      const toast = el.closest(".toast");
      toast?.classList.toggle("collapsed");
      // opened by the player: not folded again to make room (notices.js foldOlder)
      if (toast) toast.dataset.opened = String(!toast.classList.contains("collapsed"));
      toast?.querySelector(".more")?.setAttribute("aria-expanded", String(!toast.classList.contains("collapsed")));
      placeToasts();
      break;
    }
    case "reconnect": conn.start(); break;
    case "retry-now": conn.retryNow(); break;
    case "verify-deal": verifyDeal(el.dataset.table); break;
    case "verify-history": verifyHistory(el.dataset.round); break;
    case "history": toggleHistory(); break;
    case "history-close": toggleHistory(false); break;
    case "history-refresh": loadHistory(); break;
    default: break;
  }
}

/**
 * Right-click on a betting circle reduces its bet by the selected chip's value (the
 * rules' words). (A touch screen sends `contextmenu` for a long press too: that press
 * reduces it once, whichever of the two comes first.)
 */
export function onContextMenu(event) {
  const el = event.target.closest('[data-action="add-chip"]');
  if (!el) return;
  event.preventDefault();
  if (pressType === "touch") longPress(Number(el.dataset.seat));
  else lessChip(Number(el.dataset.seat));
}

// A long press on a betting circle (a finger held still) reduces it by the selected chip.
let pressTimer = null;
let longPressed = false;
let pressType = "mouse";

function longPress(seat) {
  clearTimeout(pressTimer);
  if (longPressed) return;
  longPressed = true;
  lessChip(seat);
}

export function onPointerDown(event) {
  const el = event.target.closest?.('[data-action="add-chip"]');
  clearTimeout(pressTimer);
  longPressed = false;
  pressType = event.pointerType || "mouse";
  if (!el || event.button !== 0 || pressType === "mouse") return;
  const seat = Number(el.dataset.seat);
  pressTimer = setTimeout(() => longPress(seat), LONG_PRESS_MS);
}

function cancelPress() {
  clearTimeout(pressTimer);
}

/** The table's keys (keys.js), and Escape for the history panel. */
export function onKeyDown(event) {
  if (event.key === "Escape" && state.history.open) {
    toggleHistory(false);
    return;
  }
  // Enter/Space on a focused betting circle adds the selected chip (it is a button).
  const circle = event.target.closest?.('[data-action="add-chip"]');
  if (circle && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    addChip(Number(circle.dataset.seat));
    return;
  }
  const command = keyCommand(event);
  if (!command) return;
  const snap = state.current ? state.tables[state.current] : null;
  if (command.cmd === "history") {
    if (state.me) toggleHistory();
    return;
  }
  if (!snap || state.needName) return; // the other keys are the table's
  if (command.cmd === "next-seat") {
    // Tab selects the next own seat from nothing focused or from an own seat; from
    // anything else (a button, the top bar, the paytable, the history), and from the
    // last own seat, it moves the focus as usual.
    const active = document.activeElement;
    const onSeat = active?.matches?.(".felt-wrap .seat[data-seat]") ? Number(active.dataset.seat) : null;
    // from the page's end, Tab goes round to the top bar as usual (it never got there)
    const onBody = (!active || active === document.body) && !tabbedOffTheEnd;
    if ((onBody || onSeat !== null) && !state.history.open && nextSeat(onSeat)) event.preventDefault();
    return;
  }
  if ((event.key === " " || event.key === "Enter") && event.target.closest?.("button, a")) return;
  event.preventDefault();
  const seat = selectedSeat(snap);
  switch (command.cmd) {
    case "sit": takeSeat(); break;
    case "chip":
      selectChip(command.cents);
      if (seat === null) showError("Take a seat first (s).", { code: "not_seated" });
      else addChip(seat, command.cents);
      break;
    case "unchip": removeChip(seat); break;
    case "progressive": toggleProgressive(seat); break;
    case "rebet": rebet(); break;
    case "clear": clearBuilds(); break;
    case "deal": deal(); break;
    case "fold": decideByKey("fold"); break;
    case "raise": decideByKey("raise"); break;
    case "buy": $("buy").requestSubmit(); break;
    case "leave": leaveTable(); break;
    default: break;
  }
}

// Tab from the last control leaves the focus on nothing: the next Tab is the browser's
// (round to the top bar), not a seat's. A click on the felt leaves it on nothing too,
// and there Tab still selects a seat.
let tabbedOffTheEnd = false;
export function onFocusOut(event) {
  tabbedOffTheEnd = !event.relatedTarget && event.target === lastTabbable();
}

export function onFocusIn(event) {
  tabbedOffTheEnd = false;
  // anything of an own seat taking the focus (Tab, Shift+Tab, a click) selects that seat,
  // so a key acts where the focus ring is: with #9 selected, Shift+Tab onto #1's ante
  // circle and "3" put the chip on #9
  const seat = event.target.closest?.(".felt-wrap .seat.mine[data-seat]");
  const snap = state.current ? state.tables[state.current] : null;
  if (!seat || !snap) return;
  const n = Number(seat.dataset.seat);
  if (selectedSeat(snap) !== n && mySeats(snap).includes(n)) {
    state.selected[snap.table] = n;
    render();
  }
}

function lastTabbable() {
  const all = document.querySelectorAll(
    'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])');
  for (let i = all.length - 1; i >= 0; i -= 1) {
    const el = all[i];
    if (el.tabIndex >= 0 && !el.closest("[hidden]") && el.getClientRects().length) return el;
  }
  return null;
}

/** A finger lifted, gone, or moved more than a few pixels: no long press. */
export function onPointerEnd(type, event) {
  if (type !== "pointermove" || Math.hypot(event.movementX, event.movementY) > 6) cancelPress();
}
