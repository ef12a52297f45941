/** Component tests of the dataset tabs: the network mocked at `fetch`, the generated client
 *  pointed at it, a tab rendered inside a dataset's <Outlet context>, and a fake XHR for
 *  uploads. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { configure, render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, Outlet, RouterProvider } from 'react-router';
import { vi } from 'vitest';

import { installErrorInterceptor } from '../../../api/errors';
import { client } from '../../../api/gen/client.gen';
import type { Dataset } from '../../../api/gen/types.gen';
import { AnnouncerProvider } from '../../../components/Announcer';

let ready = false;

// A loaded machine runs many test files at once: wait up to 4 s for what a screen shows.
configure({ asyncUtilTimeout: 4000 });

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

export type Handler = (call: Call) => [number, unknown] | undefined;

/** Answers requests with `handler` (404 for what it leaves out); returns the calls made. */
export function mockApi(handler: Handler): Call[] {
  if (!ready) {
    installErrorInterceptor();
    ready = true;
  }
  client.setConfig({ baseUrl: 'http://localhost', fetch: (input, init) => window.fetch(input, init), throwOnError: true });
  const calls: Call[] = [];
  vi.spyOn(window, 'fetch').mockImplementation(async (input) => {
    const request = input as Request;
    const url = new URL(request.url);
    const text = request.method === 'GET' ? '' : await request.text();
    const call = { method: request.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : undefined };
    calls.push(call);
    const [status, body] = handler(call) ?? [404, { detail: 'Not found' }];
    return new Response(status === 204 ? null : JSON.stringify(body), {
      status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  return calls;
}

export const DATASET: Dataset = {
  id: 7,
  name: 'cities',
  description: '',
  tags: [],
  owner_id: 'u-owner',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-02T00:00:00Z',
  current_version: 2,
  file: null,
  visibility: 'internal',
  capabilities: { write: true, manage: true },
  readme: '',
  stats: { downloads_30d: 0, views_30d: 0 },
  schema: null,
};

export function page(items: unknown[]) {
  return { items, total: items.length, limit: 20, offset: 0 };
}

/** Renders a tab at `path` (its route `pattern`, under /datasets/:datasetId) with `dataset`. */
export function renderTab(element: ReactElement, dataset: Dataset, path: string, pattern = '*') {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const router = createMemoryRouter(
    [
      {
        path: '/datasets/:datasetId',
        element: <Outlet context={{ dataset }} />,
        children: [{ path: pattern, element }],
      },
      { path: '*', element: <p>Elsewhere</p> },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={queryClient}>
      <AnnouncerProvider>
        <RouterProvider router={router} />
      </AnnouncerProvider>
    </QueryClientProvider>,
  );
  return router;
}

/** An XMLHttpRequest the test drives: progress, load, abort. */
export class FakeXhr {
  static last: FakeXhr | null = null;
  method = '';
  url = '';
  body: unknown = null;
  status = 0;
  responseText = '';
  aborted = false;
  upload: { onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = {
    onprogress: null,
  };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;

  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader() {}
  getResponseHeader() {
    return null;
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total });
  }
  respond(status: number, body: unknown) {
    this.status = status;
    this.responseText = JSON.stringify(body);
    this.onload?.();
  }
}
