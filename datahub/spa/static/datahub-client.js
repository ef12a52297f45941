/**
 * datahub-client.js: a small browser client for the datahub API, written to be copied
 * into any single-page app (an ES module, no dependencies, no build step).
 *
 *   import { DatahubClient } from "./datahub-client.js";
 *   const api = new DatahubClient("https://datahub.example.com", {
 *     onSessionEnd: () => showLogin(),       // the refresh cookie was refused
 *   });
 *   if (!(await api.restore())) await api.login(email, password);
 *   const me = await api.get("/api/v1/auth/me");
 *
 *   // or, in a script, a personal access token (Tokens page) instead of a login:
 *   const bot = new DatahubClient("https://datahub.example.com", { token: "dhp_..." });
 *
 * How it behaves (the contract's client guidance, parts 5.7 and 7.4):
 *
 * - The access token is kept in this object's memory only: never in localStorage,
 *   sessionStorage or a cookie, where injected script or another tab could read it.
 *   A reload loses it; `restore()` gets a new one through the refresh cookie.
 * - The refresh token is an HttpOnly cookie the browser keeps (JavaScript never sees it).
 *   Only login, refresh and logout, the endpoints that set, use or delete that cookie, are
 *   sent with `credentials: "include"` (login too: on another origin the browser would
 *   otherwise ignore the cookie it sets). Every other request uses `credentials: "omit"`
 *   and carries the access token as `Authorization: Bearer`. With the `token` option (a
 *   personal access token) that token is the bearer and there is no cookie, no refresh:
 *   a 401 is final (the token expired or was revoked).
 * - A 401 on a request made with a token refreshes and repeats the request once. One
 *   refresh is in flight at a time: concurrent requests that fail together all wait for
 *   the same refresh (each refresh rotates the cookie, so parallel refreshes would race).
 *   If the refresh is refused, the session is over: the token is dropped, `onSessionEnd`
 *   is called and the request fails with the service's 401.
 * - Retries: only 500, 502, 503 and 504 answers (and network failures), at most 3 times,
 *   after 1, 2 and 4 seconds (or a longer `Retry-After`), and only for idempotent methods
 *   (GET, HEAD, PUT, DELETE, OPTIONS). POST and PATCH are never repeated automatically.
 * - Errors are thrown as `DatahubError` with `status` and `detail` (the service's
 *   `{"detail": ...}`; a list for 422). Network failures have status 0.
 * - With double-submit CSRF turned on in the service, the value from the `X-CSRF-TOKEN`
 *   response header is kept in memory and sent back on refresh and logout.
 */

const RETRY_STATUSES = new Set([500, 502, 503, 504]);
const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
const AUTH = "/api/v1/auth";

export class DatahubError extends Error {
  constructor(status, detail) {
    super(DatahubError.describe(detail));
    this.name = "DatahubError";
    this.status = status;
    this.detail = detail;
  }

  /** A readable message; 422 details become "field: message; ...". */
  static describe(detail) {
    if (Array.isArray(detail)) {
      return detail.map((item) => `${(item.loc || []).slice(1).join(".") || "body"}: ${item.msg}`)
        .join("; ");
    }
    return String(detail);
  }
}

export class DatahubClient {
  /**
   * @param {string} baseUrl  the service, e.g. "https://datahub.example.com" ("" = this origin)
   * @param {object} options  retryDelays (ms, default [1000, 2000, 4000]),
   *                          onSessionEnd() (called when a refresh is refused),
   *                          token (a personal access token, "dhp_...", instead of a login),
   *                          fetch (for tests; default window.fetch)
   */
  constructor(baseUrl = "", options = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.retryDelays = options.retryDelays || [1000, 2000, 4000];
    this.onSessionEnd = options.onSessionEnd || (() => {});
    this._fetch = options.fetch || ((...args) => window.fetch(...args));
    this._token = options.token || null; // a personal access token: never refreshed
    this._accessToken = this._token; // in memory only
    this._csrf = null;
    this._refreshing = null; // the one refresh in flight, shared
  }

  get isLoggedIn() {
    return this._accessToken !== null;
  }

  // -- session -----------------------------------------------------------------------

  async login(email, password) {
    const response = await this._send("POST", `${AUTH}/login`, {
      json: { email, password }, credentials: "include",
    });
    this._keep(response.headers);
    this._accessToken = (await response.json()).access_token;
  }

  /** The ways to log in: {password: true, oidc: {name, login_url} or null}. */
  async providers() {
    return (await this._send("GET", `${AUTH}/providers`)).json();
  }

  /** Where to send the browser for a login at the OIDC provider; it comes back to
   *  ``next`` (a path of this site) with the refresh cookie set. */
  oidcLoginUrl(provider, next) {
    return `${this.baseUrl}${provider.login_url}?next=${encodeURIComponent(next)}`;
  }

  /** After a reload: get an access token through the refresh cookie. False if none. */
  async restore() {
    if (this._token) return true;
    try {
      await this.refresh();
      return true;
    } catch (error) {
      if (error instanceof DatahubError && error.status === 401) return false;
      throw error;
    }
  }

  /** Renew the access token. Concurrent callers share one request. */
  refresh() {
    if (!this._refreshing) {
      this._refreshing = this._doRefresh().finally(() => { this._refreshing = null; });
    }
    return this._refreshing;
  }

  async _doRefresh() {
    try {
      const response = await this._send("POST", `${AUTH}/refresh`, {
        credentials: "include", headers: this._csrfHeader(),
      });
      this._keep(response.headers);
      this._accessToken = (await response.json()).access_token;
    } catch (error) {
      if (error instanceof DatahubError && error.status === 401) {
        this._accessToken = null;
        this._csrf = null;
      }
      throw error;
    }
  }

  async logout() {
    if (this._token) { // nothing to end on the service: the token stays valid until revoked
      this._token = this._accessToken = null;
      return;
    }
    // A refresh in flight (a stream reopened, say) would set a new cookie after this one.
    if (this._refreshing) await this._refreshing.catch(() => {});
    const headers = this._csrfHeader();
    if (this._accessToken) headers.Authorization = `Bearer ${this._accessToken}`;
    try {
      await this._send("POST", `${AUTH}/logout`, { credentials: "include", headers });
    } finally {
      this._accessToken = null;
      this._csrf = null;
    }
  }

  // -- requests ----------------------------------------------------------------------

  /**
   * An authenticated request; resolves to the Response (2xx/3xx) or throws DatahubError.
   * options: json (a value to send as JSON), body (anything fetch takes), headers, signal
   * (an AbortSignal: aborting rejects with its AbortError, never retried).
   */
  async request(method, path, options = {}) {
    if (!this._accessToken) await this._renewOrEnd();
    const sentWith = this._accessToken;
    try {
      return await this._send(method, path, this._withToken(options));
    } catch (error) {
      if (!(error instanceof DatahubError) || error.status !== 401 || this._token) throw error;
      // Another request may have renewed the token meanwhile: then just use the new one.
      if (this._accessToken === sentWith) await this._renewOrEnd();
      return this._send(method, path, this._withToken(options));
    }
  }

  /** Refresh (shared); a refused refresh ends the session and tells the app. */
  async _renewOrEnd() {
    try {
      await this.refresh();
    } catch (error) {
      if (error instanceof DatahubError && error.status === 401) this.onSessionEnd(error);
      throw error;
    }
  }

  async get(path) {
    return (await this.request("GET", path)).json();
  }

  async post(path, json) {
    return (await this.request("POST", path, { json })).json();
  }

  async patch(path, json) {
    return (await this.request("PATCH", path, { json })).json();
  }

  async put(path, options = {}) {
    const response = await this.request("PUT", path, options);
    return response.status === 204 ? null : response.json();
  }

  async delete(path) {
    const response = await this.request("DELETE", path);
    return response.status === 204 ? null : response.json();
  }

  // -- resources (a few conveniences over request) ------------------------------------

  me() {
    return this.get(`${AUTH}/me`);
  }

  // sort: "name", "created_at" or "updated_at", "-" first for descending (default: by id).
  listDatasets({ q, tag, owner, sort, limit = 20, offset = 0 } = {}) {
    const query = new URLSearchParams({ limit, offset });
    for (const [key, value] of Object.entries({ q, tag, owner, sort })) {
      if (value) query.set(key, value);
    }
    return this.get(`/api/v1/datasets/?${query}`);
  }

  getDataset(datasetId) {
    return this.get(`/api/v1/datasets/${datasetId}`);
  }

  /** visibility: "private" or "internal" (default: the service's). */
  createDataset({ name, description = "", tags = [], visibility }) {
    return this.post("/api/v1/datasets/", { name, description, tags, visibility });
  }

  /** Upload a File or Blob as the dataset's file (the raw body, its type kept): its new,
   *  current version, with `message` as its note if given. */
  uploadDatasetFile(datasetId, file, { message } = {}) {
    const query = new URLSearchParams();
    if (file.name) query.set("filename", file.name);
    if (message) query.set("message", message);
    const search = String(query);
    return this.put(`/api/v1/datasets/${datasetId}/file${search ? `?${search}` : ""}`, {
      body: file, headers: { "Content-Type": file.type || "application/octet-stream" },
    });
  }

  /** The dataset's file as a Blob. */
  async downloadDatasetFile(datasetId) {
    return (await this.request("GET", `/api/v1/datasets/${datasetId}/file`)).blob();
  }

  /** The first `limit` rows (1 to 1000) of the dataset's file read as a table (CSV,
   *  Parquet or JSON lines): {format, columns: [{name, type}], rows: [[...]]}. */
  previewDataset(datasetId, limit = 50) {
    return this.get(`/api/v1/datasets/${datasetId}/preview?${new URLSearchParams({ limit })}`);
  }

  // Versions: every upload, run output and restore is a numbered, immutable version.

  /** A dataset's versions, newest first: {items, total, limit, offset}. */
  listVersions(datasetId, { limit = 20, offset = 0 } = {}) {
    const query = new URLSearchParams({ limit, offset });
    return this.get(`/api/v1/datasets/${datasetId}/versions?${query}`);
  }

  getVersion(datasetId, version) {
    return this.get(versionPath(datasetId, version));
  }

  /** Change `pinned` (retention keeps a pinned version) and/or `message` (null removes it). */
  updateVersion(datasetId, version, { pinned, message } = {}) {
    const changes = {};
    if (pinned !== undefined) changes.pinned = pinned;
    if (message !== undefined) changes.message = message;
    return this.patch(versionPath(datasetId, version), changes);
  }

  /** A new, current version with this version's content (a POST: never retried). Its
   *  message is `message`, else "Restored from version N". */
  restoreVersion(datasetId, version, { message } = {}) {
    const query = message ? `?${new URLSearchParams({ message })}` : "";
    return this.post(`${versionPath(datasetId, version)}/restore${query}`);
  }

  /** 409 "Version is current", or "Version is used by a run" unless `force` (admins). */
  deleteVersion(datasetId, version, { force = false } = {}) {
    return this.delete(`${versionPath(datasetId, version)}${force ? "?force=true" : ""}`);
  }

  /** A version's file as a Blob. */
  async downloadVersionFile(datasetId, version) {
    return (await this.request("GET", `${versionPath(datasetId, version)}/file`)).blob();
  }

  /** What changed from version `from` to version `to`: {from, to, schema, rows, sample,
   *  columns}. With `key` (column names), rows are matched by those columns. */
  diffVersions(datasetId, from, to, { key = [] } = {}) {
    const query = new URLSearchParams({ from, to });
    if (key.length) query.set("key", key.join(","));
    return this.get(`/api/v1/datasets/${datasetId}/diff?${query}`);
  }

  /** The runs and versions around a version (default: the current one): {nodes, edges}.
   *  direction: "upstream", "downstream" or "both"; depth: 1 to 10 runs away. */
  getLineage(datasetId, { direction = "both", depth = 3, version } = {}) {
    const query = new URLSearchParams({ direction, depth });
    if (version) query.set("version", version);
    return this.get(`/api/v1/datasets/${datasetId}/lineage?${query}`);
  }

  getPipeline(pipelineId) {
    return this.get(`/api/v1/pipelines/${pipelineId}`);
  }

  listPipelines({ q, owner, sort, limit = 20, offset = 0 } = {}) {
    const query = new URLSearchParams({ limit, offset });
    for (const [key, value] of Object.entries({ q, owner, sort })) {
      if (value) query.set(key, value);
    }
    return this.get(`/api/v1/pipelines/?${query}`);
  }

  /** A pipeline's runs, newest first. */
  listRuns(pipelineId, { limit = 20, offset = 0 } = {}) {
    const query = new URLSearchParams({ limit, offset });
    return this.get(`/api/v1/pipelines/${pipelineId}/runs?${query}`);
  }

  /** The live events (GET /api/v1/events/stream): resolves to the Response once the
   *  stream is open; its body is the text/event-stream to read (the web app's live.js
   *  reads it). `type` and `datasetId` filter; `lastEventId` resumes after that event;
   *  `signal` (an AbortSignal) ends it. A 401 renews the token as for any request; the
   *  stream ends when the token it was opened with expires: open it again then. */
  openEventStream({ type, datasetId, lastEventId, signal } = {}) {
    const query = new URLSearchParams();
    if (type) query.set("type", type);
    if (datasetId !== undefined && datasetId !== null) query.set("dataset_id", datasetId);
    const headers = { Accept: "text/event-stream" };
    if (lastEventId !== undefined && lastEventId !== null) {
      headers["Last-Event-ID"] = String(lastEventId);
    }
    const search = String(query);
    return this.request("GET", `/api/v1/events/stream${search ? `?${search}` : ""}`, {
      headers, signal,
    });
  }

  // Access: `kind` is "dataset", "collection" or "pipeline"; the owner (an editor) or an
  // admin sees and changes a row's visibility and grants.

  /** "private" (owner, grantees, admins) or "internal" (every user); the changed row. */
  setVisibility(kind, id, visibility) {
    return this.patch(rowPath(kind, id), { visibility });
  }

  /** {items: [{id, principal, permission, created_at}], total, limit, offset}. */
  listGrants(kind, id, { limit = 100, offset = 0 } = {}) {
    return this.get(`${rowPath(kind, id)}/grants?${new URLSearchParams({ limit, offset })}`);
  }

  /** principal: "user:<uuid>", "user:<email>" (kept as the id) or "group:<id>"; permission: "read" or "write". */
  addGrant(kind, id, { principal, permission = "read" }) {
    return this.post(`${rowPath(kind, id)}/grants`, { principal, permission });
  }

  removeGrant(kind, id, grantId) {
    return this.delete(`${rowPath(kind, id)}/grants/${grantId}`);
  }

  /** Groups (any user): {items: [{id, name, description, source, member_ids}], ...}. */
  listGroups({ limit = 100, offset = 0 } = {}) {
    return this.get(`/api/v1/groups/?${new URLSearchParams({ limit, offset })}`);
  }

  /** Users whose email or name contains `q` (admins only). */
  listUsers({ q, limit = 20, offset = 0 } = {}) {
    const query = new URLSearchParams({ limit, offset });
    if (q) query.set("q", q);
    return this.get(`/api/v1/users/?${query}`);
  }

  // Personal access tokens (made with a login; a token cannot make tokens).

  /** scopes: ["read"] or ["read", "write"]; expiresInDays: 1 to 365 (default 30). The
   *  answer's `token` ("dhp_...") is the secret: shown this once, never again. */
  createToken({ name, scopes = ["read", "write"], expiresInDays }) {
    const body = { name, scopes };
    if (expiresInDays !== undefined) body.expires_in_days = expiresInDays;
    return this.post(`${AUTH}/tokens`, body);
  }

  /** The user's tokens, without their secrets. */
  listTokens({ limit = 100, offset = 0 } = {}) {
    return this.get(`${AUTH}/tokens?${new URLSearchParams({ limit, offset })}`);
  }

  revokeToken(tokenId) {
    return this.delete(`${AUTH}/tokens/${encodeURIComponent(tokenId)}`);
  }

  // -- internals ---------------------------------------------------------------------

  _withToken(options) {
    return {
      ...options,
      credentials: "omit",
      headers: { ...(options.headers || {}), Authorization: `Bearer ${this._accessToken}` },
    };
  }

  _csrfHeader() {
    return this._csrf ? { "X-CSRF-TOKEN": this._csrf } : {};
  }

  _keep(headers) {
    const csrf = headers.get("X-CSRF-TOKEN");
    if (csrf) this._csrf = csrf;
  }

  /** One request with the retry policy; throws DatahubError for every non-2xx/3xx. */
  async _send(method, path, { json, body, headers = {}, credentials = "omit", signal } = {}) {
    const init = { method, credentials, headers: { ...headers } };
    if (signal) init.signal = signal;
    if (json !== undefined) {
      init.body = JSON.stringify(json);
      init.headers["Content-Type"] = "application/json";
    } else if (body !== undefined) {
      init.body = body;
    }
    const retryable = IDEMPOTENT.has(method.toUpperCase());
    for (let attempt = 0; ; attempt += 1) {
      let response;
      try {
        response = await this._fetch(this.baseUrl + path, init);
      } catch (networkError) {
        if (signal && signal.aborted) throw networkError; // the caller ended it
        if (!retryable || attempt >= this.retryDelays.length) {
          throw new DatahubError(0, `Cannot reach the service: ${networkError.message}`);
        }
        await sleep(this.retryDelays[attempt]);
        continue;
      }
      if (response.ok || (response.status >= 300 && response.status < 400)) return response;
      if (retryable && RETRY_STATUSES.has(response.status) && attempt < this.retryDelays.length) {
        await sleep(Math.max(this.retryDelays[attempt], retryAfter(response)));
        continue;
      }
      throw new DatahubError(response.status, await detailOf(response));
    }
  }
}

const KINDS = new Set(["dataset", "collection", "pipeline"]);

function rowPath(kind, id) {
  if (!KINDS.has(kind)) throw new TypeError(`kind must be dataset, collection or pipeline`);
  return `/api/v1/${kind}s/${id}`;
}

function versionPath(datasetId, version) {
  return `/api/v1/datasets/${datasetId}/versions/${version}`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function retryAfter(response) {
  const value = response.headers.get("Retry-After");
  if (!value) return 0;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(0, date - Date.now());
}

async function detailOf(response) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    if (body && "detail" in body) return body.detail;
  } catch (ignored) {
    // not JSON: a proxy's page, say
  }
  return text.slice(0, 500) || response.statusText || `HTTP ${response.status}`;
}
