/** Test helpers for the catalog and dataset screens: the network mocked at `fetch`, the
 *  whole app's routes rendered in memory at a path. Used by component tests only. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { vi } from 'vitest';

import { installErrorInterceptor } from '../../api/errors';
import type { Dataset, Role } from '../../api/gen/types.gen';
import { client } from '../../api/gen/client.gen';
import { configureClient } from '../../api/session';
import { routes } from '../../app/App';

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

export type Handler = (call: Call) => Response | undefined | Promise<Response | undefined>;

export function json(status: number, body: unknown): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

export const ME = { id: 'u-me', email: 'me@example.com', name: 'Mia Me', is_active: true, provider: 'local', created_at: '2026-01-01T00:00:00Z' };

/** Every request goes to `handler`; sign-in and "who am I" are answered for a person
 *  with `roles`. Returns the calls made (the API's, not the session's). */
export function mockApi(handler: Handler, roles: Role[] = ['editor']): Call[] {
  const calls: Call[] = [];
  configureClient();
  // Node's Request wants absolute URLs (the browser resolves '' against the page).
  client.setConfig({ baseUrl: 'http://localhost' });
  installErrorInterceptor();
  vi.spyOn(window, 'fetch').mockImplementation(async (input, init) => {
    const request = input instanceof Request ? input : new Request(new URL(String(input), 'http://localhost'), init);
    const url = new URL(request.url);
    const text = request.method === 'GET' ? '' : await request.clone().text();
    const call = { method: request.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : undefined };
    if (url.pathname === '/api/v1/auth/refresh') return json(200, { access_token: 'token' });
    if (url.pathname === '/api/v1/auth/me') return json(200, { ...ME, roles });
    if (url.pathname === '/api/v1/events/stream') return json(404, { detail: 'Not found' });
    calls.push(call);
    return (await handler(call)) ?? json(404, { detail: `Not mocked: ${request.method} ${url.pathname}` });
  });
  return calls;
}

/** The app at `path` (as /app/<path>), with a fresh query cache. */
export function renderApp(path: string) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const view = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...view, router, queryClient };
}

export function makeDataset(overrides: Partial<Dataset> = {}): Dataset {
  return {
    id: 1,
    name: 'Weather',
    description: 'Daily **weather** in Oslo.',
    tags: ['climate'],
    owner_id: 'u-owner',
    visibility: 'internal',
    created_at: '2026-01-02T10:00:00Z',
    updated_at: '2026-01-03T10:00:00Z',
    current_version: 1,
    file: {
      filename: 'weather.csv',
      content_type: 'text/csv',
      sha256: 'abc',
      size_bytes: 2048,
      uploaded_at: '2026-01-03T10:00:00Z',
    },
    capabilities: { write: true, manage: true },
    readme: '',
    stats: { downloads_30d: 0, views_30d: 0 },
    schema: null,
    ...overrides,
  };
}

export function page<T>(items: T[], total = items.length, limit = 20, offset = 0) {
  return { items, total, limit, offset };
}
