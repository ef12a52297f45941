/**
 * For the admin and account component tests: a fake service at `fetch` (the network, not
 * the generated functions) and a screen rendered at a path with the app's providers.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createMemoryRouter, Outlet, RouterProvider } from 'react-router';
import type { RouteObject } from 'react-router';
import { vi } from 'vitest';

import { installErrorInterceptor } from '../../api/errors';
import { client } from '../../api/gen/client.gen';
import { configureClient } from '../../api/session';
import { makeQueryClient } from '../../app/queryClient';
import { SessionProvider } from '../../app/session';
import { AnnouncerProvider } from '../Announcer';

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export interface Answer {
  status?: number;
  body?: unknown;
}

/** "GET /api/v1/auth/sessions" → what the fake service answers (a function gets the call). */
export type Routes = Record<string, Answer | ((call: Call) => Answer)>;

export const ME = {
  id: 'u-me',
  email: 'ada@example.com',
  name: 'Ada Admin',
  roles: ['admin'],
  provider: 'local',
  is_active: true,
  created_at: '2026-01-02T10:00:00Z',
};

let installed = false;

function installClient(): void {
  if (installed) return;
  configureClient();
  installErrorInterceptor();
  // Node's Request wants an absolute URL; in the browser the base is the page's origin.
  client.setConfig({ baseUrl: 'http://localhost' });
  // jsdom has <dialog> but not its modal methods.
  if (!HTMLDialogElement.prototype.showModal) {
    HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
      this.open = true;
    };
  }
  installed = true;
}

async function readCall(input: RequestInfo | URL, init?: RequestInit): Promise<Call> {
  const request = input instanceof Request ? input : new Request(new URL(String(input), 'http://localhost'), init);
  const url = new URL(request.url);
  const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
  return { method: request.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : null };
}

/** Answers every request from `routes` (plus a signed-in session as ME); records the calls. */
export function fakeService(routes: Routes, me: Record<string, unknown> = ME): Call[] {
  installClient();
  const calls: Call[] = [];
  const all: Routes = {
    'POST /api/v1/auth/refresh': { body: { access_token: 'token', token_type: 'bearer' } },
    'GET /api/v1/auth/me': { body: me },
    ...routes,
  };
  vi.spyOn(window, 'fetch').mockImplementation(async (input, init) => {
    const call = await readCall(input as RequestInfo, init);
    calls.push(call);
    const route = all[`${call.method} ${call.path}`];
    const answer = typeof route === 'function' ? route(call) : (route ?? { status: 404, body: { detail: 'Not Found' } });
    const status = answer.status ?? 200;
    const body = status === 204 ? null : JSON.stringify(answer.body ?? {});
    return new Response(body, { status, headers: { 'Content-Type': 'application/json' } });
  });
  return calls;
}

/** The screen at `path` among `routes`, as the app renders it (signed in). */
export function renderAt(path: string, routes: RouteObject[]) {
  const router = createMemoryRouter(
    [
      {
        element: (
          <SessionProvider>
            <AnnouncerProvider>
              <Outlet />
            </AnnouncerProvider>
          </SessionProvider>
        ),
        children: [...routes, { path: 'sign-in', element: <h1>Sign in</h1> }],
      },
    ],
    { initialEntries: [path] },
  );
  const queryClient = makeQueryClient();
  const view = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...view, router };
}
