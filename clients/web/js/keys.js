// The table's keys, the same as the terminal client's (README, "Clients"):
// s sit, 1-5 add a $1/$5/$10/$25/$100 chip, Backspace take one off, p progressive,
// a rebet (last round's bets again), x clear the bets being built, d deal,
// f/r fold/raise the selected seat, Tab the next of your seats, b buy chips,
// h history, l leave. Nothing fires while the player types in a field, or with
// Ctrl, Alt or Meta held (the browser's own shortcuts).

export const CHIP_KEYS = { 1: 100, 2: 500, 3: 1000, 4: 2500, 5: 10000 };

const SIMPLE = {
  s: "sit", p: "progressive", a: "rebet", x: "clear", d: "deal", f: "fold", r: "raise",
  b: "buy", h: "history", l: "leave", Backspace: "unchip", Delete: "unchip",
};

/** Every key, for the help line's tooltip. */
export const KEY_HELP = "Keys: 1–5 chip · ⌫ take one off · p progressive · a rebet · x clear · d deal · "
  + "f fold · r raise · Tab next seat · s sit · b buy · h history · l leave";

/**
 * The help line under the rack: the keys that do something now, short enough for one
 * line of a laptop's rack beside "Sit this round out" (every key is in its tooltip,
 * `KEY_HELP`). `undecided`: the player has a hand to fold or raise (in the decision);
 * `paused`: the snapshot's `paused`, while none of the player's antes is in.
 * Once the bets are closed and nothing is left to decide, the keys that still act.
 */
export function keyHelp(phase, { undecided = true, paused = null } = {}) {
  const open = phase === "waiting" || phase === "betting";
  // a table the casino paused (or a server shutting down) takes no ante: no chip, no d
  // (the terminal's keys line says as much)
  if (open && paused) {
    return paused.shutdown ? "Keys: closing, no new bets · h history · b buy · l leave"
      : "Keys: paused by the casino, no ante · h history · b buy";
  }
  if (open) return "Keys: 1–5 chip · p progressive · a rebet · d deal";
  if (phase === "deciding" && undecided) return "Keys: f fold · r raise · Tab next seat · h history";
  return "Keys: Tab next seat · h history · b buy · l leave";
}

/** Is the event aimed at something the player types in (where every key is theirs)? */
export function typing(target) {
  const el = target;
  if (!el || typeof el.closest !== "function") return false;
  return Boolean(el.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']"));
}

/**
 * The command for a keydown, or null: {cmd: "chip", cents} | {cmd: "next-seat"} |
 * {cmd: "sit"} | ... (`SIMPLE`'s names).
 */
export function keyCommand(event) {
  if (event.ctrlKey || event.altKey || event.metaKey || event.isComposing) return null;
  if (typing(event.target)) return null;
  const { key } = event;
  if (key === "Tab") return event.shiftKey ? null : { cmd: "next-seat" };
  if (CHIP_KEYS[key] !== undefined) return { cmd: "chip", cents: CHIP_KEYS[key] };
  const name = SIMPLE[key] ?? SIMPLE[key.length === 1 ? key.toLowerCase() : key];
  return name ? { cmd: name } : null;
}

/** The hand to select once `seat` is decided: of the hands still `waiting`, the next
 * after it in seat order, else the first, so f and r go down a player's hands in turn. */
export function nextWaiting(waiting, seat) {
  const rest = waiting.filter((i) => i !== seat);
  return rest.find((i) => i > seat) ?? rest[0];
}

/** Whether a key's notice about a hand already decided ("Seat #9 has raised already;
 * nothing sent. Selected now: #8") is out of date in the table's snapshot `snap`: no
 * decision is due any more, or the hand it selected (`seat`, null for none) has been
 * decided (it stayed up through the showdown into the next round's betting). */
export function choiceNoticeStale(seat, snap) {
  if (snap.phase !== "deciding") return true;
  if (seat === null) return false;
  const hand = snap.seats?.[seat];
  return !hand?.cards || Boolean(hand.decision);
}
