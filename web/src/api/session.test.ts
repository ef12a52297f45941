import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { onSignInNeeded, sessionFetch, signIn, signOut } from './session';

const BASE = 'http://localhost';
const at = (path: string) => `${BASE}${path}`;

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

describe('the session wrapper', () => {
  let calls: { url: string; auth: string | null }[];
  let tokens: string[];
  let refreshStatus: number;

  beforeEach(async () => {
    calls = [];
    tokens = ['first', 'second', 'third'];
    refreshStatus = 200;
    vi.spyOn(window, 'fetch').mockImplementation(async (input, init) => {
      const request = input instanceof Request ? input : new Request(new URL(String(input), BASE), init);
      const url = new URL(request.url).pathname;
      calls.push({ url, auth: request.headers.get('Authorization') });
      if (url === '/api/v1/auth/login') return json(200, { access_token: tokens.shift() });
      if (url === '/api/v1/auth/refresh') {
        return refreshStatus === 200 ? json(200, { access_token: tokens.shift() }) : json(401, { detail: 'Not authenticated' });
      }
      if (url.startsWith('/api/v1/auth/logout')) return new Response(null, { status: 204 });
      const valid = request.headers.get('Authorization') === `Bearer ${'second'}` || request.headers.get('Authorization') === 'Bearer third';
      return valid ? json(200, { ok: true }) : json(401, { detail: 'Token has expired' });
    });
    await signIn('a@example.com', 'pw');
  });

  afterEach(async () => {
    onSignInNeeded(null);
    await signOut();
  });

  it('keeps the token in memory only and sends it as a bearer', async () => {
    expect(window.localStorage.length).toBe(0);
    expect(document.cookie).toBe('');
    await sessionFetch(at('/api/v1/datasets/'));
    expect(calls.find((c) => c.url === '/api/v1/datasets/')?.auth).toBe('Bearer first');
  });

  it('renews once on 401 and repeats the request; requests failing together share one refresh', async () => {
    const answers = await Promise.all([sessionFetch(at('/api/v1/datasets/')), sessionFetch(at('/api/v1/collections/'))]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(calls.filter((c) => c.url === '/api/v1/auth/refresh')).toHaveLength(1);
  });

  it('asks to sign in again when the renewal is refused, then repeats the request', async () => {
    refreshStatus = 401;
    const ask = vi.fn(async () => {
      await signIn('a@example.com', 'pw'); // "second"
      return true;
    });
    onSignInNeeded(ask);
    const answer = await sessionFetch(at('/api/v1/datasets/'), { method: 'POST', body: '{"name":"kept"}' });
    expect(ask).toHaveBeenCalledTimes(1);
    expect(answer.status).toBe(200);
  });

  it('gives the 401 back when the person does not sign in again', async () => {
    refreshStatus = 401;
    onSignInNeeded(async () => false);
    expect((await sessionFetch(at('/api/v1/datasets/'))).status).toBe(401);
  });
});
