// Accounts in the browser: sign up, sign in, change the password, sign out
// (PROTOCOL.md section 3).
//
// A guest's token stays per tab in sessionStorage (tabstore.js). An account's token
// is kept in localStorage too, so every tab of this origin and every reload
// goes on signed in: `accountToken()` is what frames.js says hello with first.
// Only one tab plays at a time (the server keeps one connection per player);
// the others offer "Play here". Signing out in one tab revokes the
// token on the server, and the other tabs of the origin go back to the start,
// saying why. A tab that gave its connection to another has nothing to send a
// sign-out on: it asks the tab of this browser that plays to do it (which may be
// refused there, the account seated: both tabs say so, the game stays where it
// is); with none here (another device took it) it takes the connection back. A password change signs out every other
// device (the server closes their connections); this tab goes on.
//
// The password is read from the form when it is sent and never stored.

import { OfflineError } from "./connection.js";
import { errorText } from "./format.js";

const ACCOUNT = "stud.account"; // localStorage: {token, username} of the signed-in account
const SESSION = { token: "stud.token", name: "stud.name", table: "stud.table" }; // tabstore.js's keys
const NOTICE = "stud.notice"; // sessionStorage: a word for the page after a restart

let app = null; // {conn, welcome, showError}
let me = null; // the last welcome's {username} (null before one)
/** The username of the account whose token the server refused here (`forgetAccount`):
 * a sign-in as it refused too means it is gone, if the password was right. */
let endedAs = null;
let onWelcome = null; // a sign-out waiting for its connection back (`takeBack`)
const TAKE_BACK_MS = 10000;
// this browser's tabs of the origin: a replaced tab's sign-out is done by the tab that plays
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel("stud.account") : null;
const ASK_TAB_MS = 1500; // no answer by then: no tab of this browser plays
let asked = null; // {id, done(), refused(text)} of this tab's sign-out request
let signingOut = false; // this tab asked for a sign-out: the account's removal is its own

const $ = (id) => document.getElementById(id);

function stored() {
  try {
    const value = JSON.parse(localStorage.getItem(ACCOUNT));
    return value && typeof value.token === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The signed-in account's token, if this origin has one: frames.js resumes with it first. */
export function accountToken() {
  return stored()?.token ?? null;
}

/** The signed-in account's username, or null (a guest, or not welcomed yet). */
export function accountUsername() {
  return me?.username ?? null;
}

/** The account's token was refused (revoked elsewhere): forget it, go on as a guest. */
export function forgetAccount() {
  try {
    endedAs = JSON.parse(localStorage.getItem(ACCOUNT) ?? "null")?.username ?? endedAs;
  } catch {
    // an unreadable entry names no account
  }
  localStorage.removeItem(ACCOUNT);
}

/** Every welcome goes through here: an account's token is kept for every tab. */
export function accountWelcomed(w) {
  me = { username: w.username ?? null };
  if (w.username) localStorage.setItem(ACCOUNT, JSON.stringify({ token: w.token, username: w.username }));
  drawBar();
  onWelcome?.();
}

/** Wire the buttons and the dialog; `hooks` are app.js's connection and functions. */
export function setupAccount(hooks) {
  app = hooks;
  $("account-bar").addEventListener("click", (event) => {
    const action = event.target.closest("[data-account]")?.dataset.account;
    if (action === "signup" || action === "signin" || action === "password") openDialog(action);
    if (action === "signout") signOut();
  });
  tabs?.addEventListener("message", (event) => heardFromTab(event.data));
  $("signin-start").addEventListener("click", () => openDialog("signin"));
  $("account-cancel").addEventListener("click", () => $("account-dialog").close());
  $("account-form").addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
  window.addEventListener("storage", (event) => {
    // Another tab signed out (or found itself signed out): this one goes back to the
    // start too, and says why there
    if (event.key === ACCOUNT && !event.newValue && me?.username) {
      if (signingOut) restart(); // this tab's own sign-out, done by the tab that plays
      else {
        restart(`Signed out of ${me.username} in another tab of this browser (a sign-out, `
          + "or the password changed on another device). Sign in again to play with it.");
      }
    }
  });
  drawBar();
  const notice = sessionStorage.getItem(NOTICE);
  if (notice) {
    sessionStorage.removeItem(NOTICE);
    app.showError(notice, { code: "signed-out", tone: "info", sticky: true });
  }
}

function drawBar() {
  const bar = $("account-bar");
  if (!bar) return;
  bar.hidden = me === null;
  bar.replaceChildren();
  if (me === null) return;
  const button = (action, text) => {
    const el = Object.assign(document.createElement("button"), { type: "button", className: "btn small", textContent: text });
    el.dataset.account = action;
    el.dataset.testid = action;
    return el;
  };
  if (me.username) {
    const name = Object.assign(document.createElement("span"), { className: "account-name", textContent: me.username });
    name.dataset.testid = "account-name";
    name.title = me.username; // for screen readers and tests: the bar's name shows it (frame.js)
    const out = button("signout", "Sign out");
    out.title = `Signed in as ${me.username}: sign out`;
    bar.append(name, button("password", "Password"), out);
  } else {
    bar.append(button("signup", "Sign up"), button("signin", "Sign in"));
  }
}

const DIALOGS = {
  signup: ["Sign up: keep your chips", "Your chips, history and seats stay yours, on any device. "
    + "Usernames: 3 to 24 letters, digits or _. Passwords: 10 to 128 characters.", "Create my account"],
  signin: ["Sign in", "Sign in to your account from this device.", "Sign in"],
  password: ["Change password", "Every other device signed in to this account is signed out; "
    + "this one goes on. Passwords: 10 to 128 characters, not the username.", "Change password"],
};

function openDialog(mode) {
  const dialog = $("account-dialog");
  dialog.dataset.mode = mode;
  const [title, note, action] = DIALOGS[mode];
  $("account-title").textContent = title;
  $("account-note").textContent = note;
  $("account-submit").textContent = action;
  const changing = mode === "password";
  for (const id of ["account-username", "account-username-label"]) $(id).hidden = changing;
  for (const id of ["account-new", "account-new-label"]) $(id).hidden = !changing;
  $("account-username").required = !changing;
  $("account-new").required = changing;
  $("account-password-label").textContent = changing ? "Current password" : "Password";
  $("account-password").autocomplete = mode === "signup" ? "new-password" : "current-password";
  $("account-password").value = $("account-new").value = "";
  $("account-error").textContent = "";
  dialog.showModal();
  $(changing ? "account-password" : "account-username").focus();
}

async function submit() {
  const dialog = $("account-dialog");
  const username = $("account-username").value.trim();
  const password = $("account-password").value;
  const button = $("account-submit");
  button.disabled = true;
  $("account-error").textContent = "";
  try {
    if (dialog.dataset.mode === "password") {
      await app.conn.request("change_password", { old: password, new: $("account-new").value });
      app.showError("Password changed: your other devices are signed out.",
        { code: "password-changed", tone: "ok" });
    } else if (dialog.dataset.mode === "signup") {
      const ok = await app.conn.request("register", { username, password });
      const token = sessionStorage.getItem(SESSION.token);
      if (token) localStorage.setItem(ACCOUNT, JSON.stringify({ token, username: ok.username }));
      me = { username: ok.username };
      drawBar();
      app.render?.(); // the top bar names the account now
    } else {
      // from the start screen the connection is not welcomed yet: `login` welcomes it
      // itself, so no guest is made (and counted against this address) to sign in
      const w = await app.conn.request("login", { username, password });
      app.welcome(w);
    }
    $("account-password").value = $("account-new").value = "";
    dialog.close();
  } catch (err) {
    // the account signed out here, refused by name and password: a server that lost its
    // data lost it too (the page cannot tell that from a wrong password: it says both)
    const gone = err?.frame?.code === "bad_credentials" && dialog.dataset.mode === "signin"
      && endedAs !== null && username === endedAs;
    $("account-error").textContent = !gone ? errorText(err)
      : `${errorText(err).replace(/\.?$/, ".")} If the password is right, the account ${username} `
        + "no longer exists: the casino's data was reset. Sign up to make an account again.";
  } finally {
    button.disabled = false;
  }
}

async function signOut() {
  signingOut = true;
  try {
    if (app.conn.status.state === "replaced") {
      if (await askPlayingTab()) { // that tab signed out (its storage event may come first)
        restart();
        return;
      }
      await takeBack();
    }
    await app.conn.request("logout");
  } catch (err) {
    signingOut = false;
    app.showError(err);
    return;
  }
  forgetAccount();
  restart();
}

/** Ask the tab of this browser that plays to sign out: true once it did; false when
 * none answered; throws its refusal (seated, say). */
function askPlayingTab() {
  if (!tabs) return Promise.resolve(false);
  return new Promise((resolve, reject) => {
    const id = `${Date.now()}-${Math.random()}`;
    const timer = setTimeout(() => settle(() => resolve(false)), ASK_TAB_MS);
    const settle = (then) => {
      clearTimeout(timer);
      asked = null;
      then();
    };
    asked = { id, done: () => settle(() => resolve(true)),
      refused: (text) => settle(() => reject(new Error(text))) };
    tabs.postMessage({ type: "signout", id });
  });
}

async function heardFromTab(msg) {
  if (msg?.type === "signout" && me?.username && app.conn.status.state === "open") {
    try {
      await app.conn.request("logout");
    } catch (err) {
      tabs.postMessage({ type: "signout-refused", id: msg.id, text: errorText(err) });
      app.showError(err);
      return;
    }
    tabs.postMessage({ type: "signout-done", id: msg.id });
    const name = me.username;
    forgetAccount();
    restart(`Signed out of ${name}, as asked in another tab of this browser.`);
  } else if (msg?.id !== undefined && msg.id === asked?.id) {
    if (msg.type === "signout-done") asked.done();
    if (msg.type === "signout-refused") asked.refused(msg.text);
  }
}

/** Connect again, as "Play here" does, and wait for the welcome: a tab that another
 * tab or device took the connection from has none to sign out on. */
function takeBack() {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      onWelcome = null;
      reject(new OfflineError("Could not reach the server to sign out: try again."));
    }, TAKE_BACK_MS);
    onWelcome = () => {
      onWelcome = null;
      clearTimeout(timer);
      resolve();
    };
    app.conn.start();
  });
}

/** Back to the start: no token, no name, a fresh page (that says `notice`, if given). */
function restart(notice = null) {
  for (const key of Object.values(SESSION)) sessionStorage.removeItem(key);
  if (notice) sessionStorage.setItem(NOTICE, notice);
  location.reload();
}
