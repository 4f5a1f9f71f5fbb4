// What the tab keeps of its own in sessionStorage (per tab, kept across reloads): the
// keys it keeps them under and reading them back. An address from another server of
// the fleet hands over a token and a table: they are put there as this module loads,
// before state.js reads the table on screen, and goRemote hands them on the same way.
// Apart from state.js so that the arrival is taken before any state is.

export const KEYS = {
  token: "stud.token", name: "stud.name", table: "stud.table", builds: "stud.builds", chip: "stud.chip",
  seeds: "stud.seeds", rounds: "stud.rounds", lastBets: "stud.lastbets", lastDeal: "stud.lastdeal",
};

/**
 * A lobby's "Open" on a table of another server process comes here as
 * `/?table=ID#token=TOKEN`: the token (sessionStorage is per origin, and a
 * fragment never reaches the server) resumes the same player, whose wallet
 * the servers share; the table is joined right after `welcome`. Both are taken
 * once and removed from the address bar.
 */
function takeArrival() {
  const url = new URL(location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const token = fragment.get("token");
  const table = url.searchParams.get("table");
  if (token) sessionStorage.setItem(KEYS.token, token);
  if (table) sessionStorage.setItem(KEYS.table, table);
  if (token || table) {
    url.hash = "";
    url.searchParams.delete("table");
    history.replaceState(history.state, "", url.pathname + url.search);
  }
}
takeArrival(); // at once: state.js reads the table on screen from the tab

/** Go to another server's page (a lobby row's or an error's `url`), taking the player along. */
export function goRemote(href) {
  const token = sessionStorage.getItem(KEYS.token);
  location.assign(token ? `${href}#token=${encodeURIComponent(token)}` : href);
}

/** A value the tab kept as JSON, or `fallback` when it kept none (or garbled). */
export function loadJSON(key, fallback) {
  try {
    return JSON.parse(sessionStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}
