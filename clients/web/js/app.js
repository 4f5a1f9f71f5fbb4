// The browser client: its wiring and start-up.
//
// State comes from the server only: `welcome`, `lobby`, `table` snapshots,
// `hand` (the player's own cards of a private deal), `balance`, `jackpot`.
// Each table snapshot is the whole public state of a table and is drawn as is,
// with the player's own cards of a private deal filled in (hands.js). The tab
// keeps a few things of its own in sessionStorage (per tab, kept across
// reloads): the session token and name, the table on screen, the chip
// selected, the bets being built with chips before they are placed, and last
// round's bets. A placed bet is not built again by itself: after a round the
// betting circle starts empty, and Rebet (a) puts last round's ante and
// progressive back on the player's seats, Clear (x) takes the built chips off.
// For the provably fair deal it also keeps the client seed of each table (sent
// again after every join, so after a reconnect too) and, per round, the
// commitment seen before the deal and the seed in force then, which a Verify
// compares with the proof.
//
// One job a module: tabstore.js (what the tab keeps, and an arrival from another
// server of the fleet), state.js (the shared state, `render`, `hooks`), link.js (the
// connection), frames.js (the greeting and the frames taken in), fleet.js (a table
// followed to its new host), play.js (the moves at a table), bets.js (the bets built
// with chips), leaving.js (leaving and its warnings), unseen.js (what happened out of
// sight), rounds.js (the provably fair deal, the history), buying.js (buying chips),
// input.js (clicks, keys, pointer, focus), notices.js (toasts and the banner),
// draw.js (the views) and frame.js (the top bar, the frame's and felt's sizes, the
// tick). This one hands the calls that go up the graph to `hooks`, adds the page's
// listeners and starts.

import { setupAccount } from "./account.js";
import { onBuy, purchases } from "./buying.js";
import { $ } from "./dom.js";
import { draw } from "./draw.js";
import * as fairness from "./fairness.js";
import { fitFelt, markHeadAway, markSidePanel, sizeFrame, tick } from "./frame.js";
import { absorb, hello, linkStatus, welcome } from "./frames.js";
import {
  onClick, onContextMenu, onFocusIn, onFocusOut, onKeyDown, onPointerDown, onPointerEnd,
} from "./input.js";
import { conn } from "./link.js";
import { dismissMomentToasts, otherTable, placeToasts, showError } from "./notices.js";
import { loadHistory, setSeed, verifyDeal, verifyHistory } from "./rounds.js";
import { hooks, render, state } from "./state.js";
import { KEYS } from "./tabstore.js";


// calls up the module graph, which would otherwise import each other
hooks.draw = draw;
hooks.tableChanged = (table) => {
  dismissMomentToasts();
  otherTable(table); // the read news of the tables left behind goes
};
hooks.hello = hello;
hooks.absorb = absorb;
hooks.linkStatus = linkStatus;
hooks.sidePanelResized = markSidePanel;

window.addEventListener("scroll", placeToasts, { passive: true });
window.addEventListener("resize", placeToasts);
window.addEventListener("scroll", markHeadAway, { passive: true });
window.addEventListener("resize", markHeadAway);
document.addEventListener("scroll", (e) => {
  if (e.target instanceof Element && e.target.matches("#table .side")) markSidePanel();
}, { capture: true, passive: true });
window.addEventListener("resize", markSidePanel);
sizeFrame();
window.addEventListener("resize", sizeFrame);
window.addEventListener("resize", () => { if (state.current) fitFelt(); });

/** The longest name the server takes (PROTOCOL.md `hello`), counted as it counts:
 * in code points (an emoji is one), of the name without the spaces around it. */
const NAME_MAX = 24;

/** The name field's count, said while typing; the button waits until the name fits
 * (a name of 30 was refused only once sent). */
function checkName() {
  const count = [...$("name-input").value.trim()].length;
  const over = count > NAME_MAX;
  const note = $("name-count");
  note.textContent = over ? `Too long: ${count} of ${NAME_MAX} characters, ${count - NAME_MAX} to take off`
    : count ? `${count} of ${NAME_MAX} characters` : `Up to ${NAME_MAX} characters`;
  note.dataset.over = String(over);
  if (over) $("name-input").setAttribute("aria-invalid", "true");
  else $("name-input").removeAttribute("aria-invalid");
  document.querySelector('#login-form [data-testid="enter"]').disabled = over;
  return !over;
}
$("name-input").addEventListener("input", checkName);
checkName();

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("name-input").value.trim();
  if (!checkName()) return;
  if (!name) { // spaces alone pass the field's `required`: say what is missing
    showError("Enter a name for the table: letters or digits, not spaces alone.", { code: "name", about: "name" });
    $("name-input").focus();
    return;
  }
  sessionStorage.setItem(KEYS.name, name);
  state.needName = false;
  render();
  if (conn.open) hello();
});

$("buy").addEventListener("submit", onBuy);

document.addEventListener("submit", (event) => {
  const form = event.target.closest?.('[data-form="seed"]');
  if (!form) return;
  event.preventDefault();
  setSeed(form);
});
document.addEventListener("click", onClick);
document.addEventListener("contextmenu", onContextMenu);
document.addEventListener("keydown", onKeyDown);
document.addEventListener("focusout", onFocusOut);
document.addEventListener("focusin", onFocusIn);
document.addEventListener("pointerdown", onPointerDown);
for (const type of ["pointerup", "pointercancel", "pointerleave", "pointermove"]) {
  document.addEventListener(type, (event) => onPointerEnd(type, event));
}
window.addEventListener("online", () => conn.retryNow());
setInterval(tick, 200);

// A handle for debugging from the console (and for the browser tests).
window.stud = { state, conn, purchases, fairness, verifyDeal, verifyHistory, loadHistory, absorb };

setupAccount({ conn, welcome, showError, render });
render();
conn.start();
