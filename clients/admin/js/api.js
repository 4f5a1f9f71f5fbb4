// The console's API (docs/ADMIN_API.md) over fetch, with the operator's bearer
// token. No cookie is used: the token lives in this tab's sessionStorage and
// goes in the Authorization header of each request.

const TOKEN_KEY = "stud.console.token";
const OPERATOR_KEY = "stud.console.operator";

export class ApiError extends Error {
  constructor(status, data) {
    super(data?.message ?? `HTTP ${status}`);
    this.status = status;
    this.data = data ?? {};
  }
}

/** A fresh action id for one act (the console applies an id at most once). */
export function actionId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `web-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export class Api {
  constructor({ onSignedOut } = {}) {
    this.token = sessionStorage.getItem(TOKEN_KEY) ?? "";
    this.operator = sessionStorage.getItem(OPERATOR_KEY) ?? "";
    // "admin" (every act) or "viewer" (reads only), as the API said it at sign-in or at
    // whoAmI (never kept in the tab: a reloaded page asks again); "" until then
    this.role = "";
    this.onSignedOut = onSignedOut ?? (() => {});
  }

  get signedIn() {
    return Boolean(this.token);
  }

  async signIn(name, password) {
    const data = await this.call("POST", "/api/session", { name, password }, { auth: false });
    this.token = data.token;
    this.operator = data.operator;
    this.role = data.role ?? "";
    sessionStorage.setItem(TOKEN_KEY, this.token);
    sessionStorage.setItem(OPERATOR_KEY, this.operator);
    return data;
  }

  /** Who the token signs in, and their role now (a tab kept from an earlier sign-in). */
  async whoAmI() {
    const data = await this.get("/api/session");
    this.operator = data.operator;
    this.role = data.role ?? "";
    sessionStorage.setItem(OPERATOR_KEY, this.operator);
    return data;
  }

  async signOut() {
    try {
      await this.call("DELETE", "/api/session");
    } finally {
      this.forget();
    }
  }

  forget() {
    this.token = "";
    this.operator = "";
    this.role = "";
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(OPERATOR_KEY);
  }

  get(path) {
    return this.call("GET", path);
  }

  /** One act: a fresh action id and the reason, plus the act's own fields. */
  act(path, reason, fields = {}) {
    return this.call("POST", path, { action_id: actionId(), reason, ...fields });
  }

  async call(method, path, body, { auth = true } = {}) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (auth && this.token) headers.Authorization = `Bearer ${this.token}`;
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
    });
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = { message: text };
    }
    if (response.status === 401 && auth) {
      this.forget();
      this.onSignedOut(data?.message ?? "signed out");
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  /** The audit log as JSON lines, downloaded (the bearer token rules out a plain link). */
  async exportAudit() {
    const response = await fetch("/api/audit.jsonl", { headers: { Authorization: `Bearer ${this.token}` } });
    if (!response.ok) throw new ApiError(response.status, null);
    return response.text();
  }
}
