/** Component tests of the Pipelines screens: the network mocked at `fetch`, the generated
 *  client pointed at it, and a screen rendered with its providers. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';

import { installErrorInterceptor } from '../../api/errors';
import { client } from '../../api/gen/client.gen';
import { SessionProvider } from '../../app/session';
import { AnnouncerProvider } from '../../components/Announcer';

let ready = false;

// jsdom lays nothing out: CodeMirror's measuring asks ranges for rectangles it lacks.
if (typeof Range !== 'undefined' && !Range.prototype.getClientRects) {
  Range.prototype.getClientRects = () => [] as unknown as DOMRectList;
  Range.prototype.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0);
}
// jsdom has <dialog> but not its modal methods.
if (typeof HTMLDialogElement !== 'undefined' && !HTMLDialogElement.prototype.showModal) {
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
    this.removeAttribute('open');
  };
}

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

type Answer = [number, unknown];
export type Handler = (call: Call) => Answer | undefined;

function json(status: number, body: unknown): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** Answers requests with `handler` (404 for what it leaves out); returns the calls made. */
export function mockApi(handler: Handler): Call[] {
  if (!ready) {
    installErrorInterceptor();
    ready = true;
  }
  client.setConfig({ baseUrl: 'http://localhost', fetch: (input, init) => window.fetch(input, init), throwOnError: true });
  const calls: Call[] = [];
  vi.spyOn(window, 'fetch').mockImplementation(async (input, init) => {
    const request = input instanceof Request ? input : new Request(new URL(String(input), 'http://localhost'), init);
    const url = new URL(request.url);
    const text = request.method === 'GET' ? '' : await request.text();
    const call = { method: request.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : undefined };
    calls.push(call);
    const [status, body] = handler(call) ?? [404, { detail: 'Not found' }];
    return json(status, body);
  });
  return calls;
}

/** The signed-in person (through the refresh cookie) with these roles. */
export function signedInAs(roles: string[]): Handler {
  return (call) => {
    if (call.path === '/api/v1/auth/refresh') return [200, { access_token: 'token' }];
    if (call.path === '/api/v1/auth/me') return [200, { id: 'u1', email: 'p@example.com', name: 'P', roles }];
    return undefined;
  };
}

export function renderAt(element: ReactElement, path = '/', { session = false } = {}) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const router = createMemoryRouter([{ path: '*', element: session ? <SessionProvider>{element}</SessionProvider> : element }], {
    initialEntries: [path],
  });
  return render(
    <QueryClientProvider client={queryClient}>
      <AnnouncerProvider>
        <RouterProvider router={router} />
      </AnnouncerProvider>
    </QueryClientProvider>,
  );
}

export const DATASET = {
  id: 3,
  name: 'cities',
  description: '',
  tags: [],
  owner_id: 'u1',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  current_version: 2,
  file: null,
  visibility: 'internal',
  capabilities: { write: true, manage: true },
};

export function page(items: unknown[]) {
  return { items, total: items.length, limit: 20, offset: 0 };
}

/** The catalogue the builder's pickers read. */
export const datasets: Handler = (call) => {
  if (call.path === '/api/v1/datasets/') return [200, page([DATASET])];
  if (call.path === `/api/v1/datasets/${DATASET.id}`) return [200, DATASET];
  if (call.path === `/api/v1/datasets/${DATASET.id}/versions`) {
    return [200, page([{ version: 2, message: 'second' }, { version: 1, message: null }])];
  }
  return undefined;
};
