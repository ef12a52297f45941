/**
 * The session: the only hand-written part of the API client (the rest is generated into
 * ./gen from the service's OpenAPI document).
 *
 * - The access token lives in this module's memory only (never in storage or a cookie);
 *   a reload gets a new one through the HttpOnly refresh cookie (`restore`).
 * - A 401 on a request renews the token once (one refresh in flight, shared by every
 *   request that failed together) and repeats the request.
 * - When the refresh is refused, `onSignInNeeded` is asked to sign the person in again
 *   (a dialog over the current screen, so nothing typed is lost); the request is then
 *   repeated once more with the new token, or fails with the 401.
 * - With double-submit CSRF on, the `X-CSRF-TOKEN` answer header is kept in memory and
 *   sent back on refresh and logout.
 */
import { client } from './gen/client.gen';

const AUTH = '/api/v1/auth';

let accessToken: string | null = null;
let csrfToken: string | null = null;
let refreshing: Promise<boolean> | null = null;
let signInNeeded: (() => Promise<boolean>) | null = null;
const listeners = new Set<() => void>();

export function isSignedIn(): boolean {
  return accessToken !== null;
}

export function currentAccessToken(): string | null {
  return accessToken;
}

/** Called when the session ends and a person must sign in again; resolves to true once
 *  signed in (the failed request is then repeated), false if they gave up. */
export function onSignInNeeded(handler: (() => Promise<boolean>) | null): void {
  signInNeeded = handler;
}

/** Called whenever the access token appears or disappears. */
export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setToken(token: string | null): void {
  const changed = (token === null) !== (accessToken === null);
  accessToken = token;
  if (token === null) csrfToken = null;
  if (changed) listeners.forEach((listener) => listener());
}

function keepCsrf(response: Response): void {
  const value = response.headers.get('X-CSRF-TOKEN');
  if (value) csrfToken = value;
}

function csrfHeaders(): Record<string, string> {
  return csrfToken ? { 'X-CSRF-TOKEN': csrfToken } : {};
}

async function authPost(path: string, init: RequestInit = {}): Promise<Response> {
  return window.fetch(`${AUTH}${path}`, {
    method: 'POST',
    credentials: 'include',
    ...init,
    headers: { ...csrfHeaders(), ...(init.headers as Record<string, string> | undefined) },
  });
}

/** Sign in with a password. Resolves to the failed Response (401, 429...) or null. */
export async function signIn(email: string, password: string): Promise<Response | null> {
  const response = await authPost('/login', {
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (!response.ok) return response;
  keepCsrf(response);
  setToken(((await response.json()) as { access_token: string }).access_token);
  return null;
}

/** Take the access token an answer gave (a password change voids the others). */
export function acceptAccessToken(token: string): void {
  setToken(token);
}

/** Renew the access token through the refresh cookie; concurrent callers share one
 *  request (each refresh rotates the cookie, so two at once would race). */
export function refresh(): Promise<boolean> {
  if (!refreshing) {
    refreshing = (async () => {
      const response = await authPost('/refresh');
      if (response.status === 401) {
        setToken(null);
        return false;
      }
      if (!response.ok) throw new Error(`refresh answered ${response.status}`);
      keepCsrf(response);
      setToken(((await response.json()) as { access_token: string }).access_token);
      return true;
    })().finally(() => {
      refreshing = null;
    });
  }
  return refreshing;
}

/** After a reload: a session from the refresh cookie, if there is one. */
export async function restore(): Promise<boolean> {
  if (accessToken) return true;
  return refresh();
}

/** End this session (`everywhere`: every session of the user). */
export async function signOut(everywhere = false): Promise<void> {
  if (refreshing) await refreshing.catch(() => false);
  const headers: Record<string, string> = {};
  if (accessToken) headers.Authorization = `Bearer ${accessToken}`;
  try {
    if (everywhere) {
      await window.fetch('/api/v1/auth/logout-all', { method: 'POST', headers });
    }
    await authPost('/logout', { headers });
  } finally {
    setToken(null);
  }
}

function withToken(request: Request): Request {
  const headers = new Headers(request.headers);
  if (accessToken) headers.set('Authorization', `Bearer ${accessToken}`);
  return new Request(request, { headers });
}

/** The fetch the generated client uses: the bearer token, one renewal on 401, then a
 *  second sign-in if the renewal is refused. */
export async function sessionFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const original = new Request(input, init);
  if (!accessToken) await refresh().catch(() => false);
  const sentWith = accessToken;
  const response = await window.fetch(withToken(original.clone()));
  if (response.status !== 401) return response;
  let renewed = accessToken !== sentWith || (await refresh().catch(() => false));
  if (!renewed && signInNeeded) renewed = await signInNeeded();
  if (!renewed) return response;
  return window.fetch(withToken(original));
}

/** Authorization headers for requests the generated client does not make (uploads with
 *  progress, the event stream). */
export function bearer(): Record<string, string> {
  return accessToken ? { Authorization: `Bearer ${accessToken}` } : {};
}

export function configureClient(): void {
  client.setConfig({ baseUrl: '', fetch: sessionFetch, throwOnError: true });
}
