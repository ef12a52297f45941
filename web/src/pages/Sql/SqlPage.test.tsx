import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { EditorView } from '@codemirror/view';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { QueryResult } from '../../api/gen/types.gen';
import { json, makeDataset, mockApi, page, renderApp } from '../../components/catalog/testing';
import type { Call } from '../../components/catalog/testing';

// jsdom lays nothing out: CodeMirror's measuring asks ranges for rectangles it lacks.
if (typeof Range !== 'undefined' && !Range.prototype.getClientRects) {
  Range.prototype.getClientRects = () => [] as unknown as DOMRectList;
  Range.prototype.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0);
}

const CITIES = makeDataset({ id: 3, name: 'cities', current_version: 2 });
const SALES = makeDataset({ id: 5, name: 'Sales 2025', current_version: 1 });
const EMPTY = makeDataset({ id: 7, name: 'no file yet', current_version: null, file: null });

const COLUMNS = {
  version: 2,
  columns: [
    { name: 'city', type: 'VARCHAR', description: '' },
    { name: 'population', type: 'BIGINT', description: '' },
  ],
};

function answer(overrides: Partial<QueryResult> = {}): QueryResult {
  return {
    columns: [
      { name: 'city', type: 'VARCHAR' },
      { name: 'population', type: 'BIGINT' },
    ],
    rows: Array.from({ length: 120 }, (_, index) => [`City ${index + 1}`, index === 0 ? null : index * 1000]),
    truncated: false,
    elapsed_ms: 12.4,
    inputs: [{ dataset_id: 3, name: 'cities', version: 2 }],
    pipeline: { source_dataset_id: 3, steps: [{ op: 'sql', query: 'WITH cities AS (SELECT * FROM input)\nSELECT * FROM (\nSELECT * FROM cities\n)' }] },
    ...overrides,
  };
}

type QueryAnswer = (call: Call) => Response | Promise<Response>;

function api(onQuery: QueryAnswer = () => json(200, answer())) {
  return mockApi((call) => {
    if (call.path === '/api/v1/datasets/') return json(200, page([CITIES, EMPTY, SALES], 3, 100));
    if (call.path === '/api/v1/datasets/3/columns') return json(200, COLUMNS);
    if (call.path === '/api/v1/datasets/3') return json(200, CITIES);
    if (call.path === '/api/v1/datasets/3/versions') return json(200, page([{ version: 2, message: null }]));
    if (call.path === '/api/v1/query/') return onQuery(call);
    return undefined;
  });
}

const queries = (calls: Call[]) => calls.filter((call) => call.path === '/api/v1/query/');

async function editor() {
  return screen.findByRole('textbox', { name: 'SQL query' });
}

/** Writes `text` in the editor (jsdom cannot type into CodeMirror: it loses keys), then
 *  leaves the focus there. */
async function typeQuery(user: ReturnType<typeof userEvent.setup>, text: string) {
  const content = await editor();
  await user.click(content);
  const view = EditorView.findFromDOM(content)!;
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

beforeEach(() => window.sessionStorage.clear());
afterEach(() => vi.restoreAllMocks());

describe('the SQL console', { timeout: 30_000 }, () => {
  it('is in the main navigation', async () => {
    api();
    const user = userEvent.setup();
    renderApp('/');
    await user.click(await screen.findByRole('link', { name: 'SQL' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'SQL console' })).toBeInTheDocument();
  });

  it('runs with Ctrl+Enter and shows the rows a page at a time, types, NULL, time and inputs', async () => {
    const calls = api();
    const user = userEvent.setup();
    renderApp('/sql');
    await typeQuery(user, 'SELECT * FROM cities');
    await user.keyboard('{Control>}{Enter}{/Control}');

    const table = await screen.findByRole('table', { name: 'Query result, rows 1–50 of 120' });
    expect(queries(calls)[0].body).toEqual({ sql: 'SELECT * FROM cities', limit: 1000 });
    expect(within(table).getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['city VARCHAR', 'population BIGINT']);
    const first = within(table).getAllByRole('row')[1];
    expect(within(first).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['City 1', 'NULL']);
    expect(within(first).getByText('NULL')).toHaveClass('sql-null');
    expect(screen.getByText(/120 rows, 2 columns, in 12 ms/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'cities@2' })).toHaveAttribute('href', '/datasets/3');
    expect(screen.queryByText(/Showing the first/)).toBeNull();

    const pages = screen.getByRole('navigation', { name: 'Result pages' });
    await user.click(within(pages).getByRole('button', { name: 'Next' }));
    expect(screen.getByRole('table', { name: 'Query result, rows 51–100 of 120' })).toHaveTextContent('City 51');
    await user.click(within(pages).getByRole('button', { name: 'Next' }));
    expect(within(pages).getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(screen.getByRole('table', { name: 'Query result, rows 101–120 of 120' })).toBeInTheDocument();
  });

  it('runs with the Run button and the rows limit chosen, and says when the rows are cut', async () => {
    const calls = api(() => json(200, answer({ rows: [['Oslo', 1]], truncated: true })));
    const user = userEvent.setup();
    renderApp('/sql');
    await typeQuery(user, 'SELECT 1');
    await user.selectOptions(screen.getByLabelText('Rows to show'), '100');
    await user.click(screen.getByRole('button', { name: 'Run' }));
    expect(await screen.findByText('Showing the first 1 row: the result has more. Export it for all of them.')).toBeInTheDocument();
    expect(queries(calls)[0].body).toEqual({ sql: 'SELECT 1', limit: 100 });
    expect(screen.queryByRole('navigation', { name: 'Result pages' })).toBeNull();
  });

  it('cancels a query that is running', async () => {
    api(() => new Promise<Response>(() => undefined));
    const user = userEvent.setup();
    renderApp('/sql');
    await typeQuery(user, 'SELECT count(*) FROM range(1000000000)');
    await user.click(screen.getByRole('button', { name: 'Run' }));
    expect(await screen.findByText('Running the query…')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByText('Running the query…')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(screen.getByText('Write a query and run it: its rows show here.')).toBeInTheDocument();
  });

  it('shows a 422 detail and a validation list with the shared error notice', async () => {
    let next: Response = json(422, { detail: 'Dataset not found: nope' });
    api(() => next);
    const user = userEvent.setup();
    renderApp('/sql');
    await typeQuery(user, 'SELECT * FROM nope');
    await user.click(screen.getByRole('button', { name: 'Run' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The query failed: Dataset not found: nope');

    next = json(422, {
      detail: [
        { loc: ['body', 'sql'], msg: 'Only one SELECT statement is allowed', type: 'value_error' },
        { loc: ['body', 'limit'], msg: 'Must be between 1 and 10000.', type: 'value_error' },
      ],
    });
    await user.click(screen.getByRole('button', { name: 'Run' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('sql: Only one SELECT statement is allowed'));
    expect(within(screen.getByRole('alert')).getAllByRole('listitem')).toHaveLength(2);
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('exports the whole result at the versions it read, as a download', async () => {
    const created = vi.fn((blob: Blob) => {
      void blob;
      return 'blob:query';
    });
    Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() });
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const calls = api((call) =>
      call.query.get('format') ? new Response('city,population\nOslo,709000\n', { headers: { 'Content-Type': 'text/csv' } }) : json(200, answer()),
    );
    const user = userEvent.setup();
    renderApp('/sql');
    await typeQuery(user, 'SELECT * FROM cities');
    await user.click(screen.getByRole('button', { name: 'Run' }));
    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));

    await waitFor(() => expect(clicked).toHaveBeenCalled());
    const exported = queries(calls)[1];
    expect(exported.method).toBe('POST');
    expect(exported.query.get('format')).toBe('csv');
    expect(exported.body).toEqual({ sql: 'SELECT * FROM cities', pins: [{ dataset_id: 3, version: 2 }] });
    expect(await created.mock.calls[0][0].text()).toBe('city,population\nOslo,709000\n');
    expect((clicked.mock.contexts[0] as HTMLAnchorElement).download).toBe('query.csv');
    expect(screen.getByRole('button', { name: 'Export Parquet' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Export JSON lines' })).toBeEnabled();
  });

  it('shares a link with the versions pinned, which runs pinned when opened and can be unpinned', async () => {
    const calls = api();
    const user = userEvent.setup();
    const first = renderApp('/sql');
    await typeQuery(user, 'SELECT * FROM cities');
    await user.click(screen.getByRole('button', { name: 'Run' }));
    const link = (await screen.findByLabelText('Link to this query')) as HTMLInputElement;
    const url = new URL(link.value);
    expect(url.pathname).toBe('/sql');
    expect(url.searchParams.get('sql')).toBe('SELECT * FROM cities');
    expect(url.searchParams.get('pins')).toBe('3@2');
    await user.click(screen.getByRole('button', { name: 'Copy link' }));
    expect(await navigator.clipboard.readText()).toBe(link.value);
    first.unmount();

    renderApp(`${url.pathname}${url.search}`);
    expect(await screen.findByRole('table', { name: /Query result/ })).toBeInTheDocument();
    expect(queries(calls)[1].body).toEqual({ sql: 'SELECT * FROM cities', limit: 1000, pins: [{ dataset_id: 3, version: 2 }] });
    expect(await editor()).toHaveTextContent('SELECT * FROM cities');
    const pinned = screen.getByRole('group', { name: /Versions pinned/ });
    expect(pinned).toHaveTextContent('cities@2');
    await user.click(within(pinned).getByRole('button', { name: 'Unpin: run against the current versions' }));
    await waitFor(() => expect(queries(calls)).toHaveLength(3));
    expect(queries(calls)[2].body).toEqual({ sql: 'SELECT * FROM cities', limit: 1000 });
    expect(screen.queryByRole('group', { name: /Versions pinned/ })).toBeNull();
  });

  it('makes a query of one dataset a pipeline: the builder opens with its source and SQL step', async () => {
    api();
    const user = userEvent.setup();
    renderApp('/sql');
    await typeQuery(user, 'SELECT * FROM cities');
    await user.click(screen.getByRole('button', { name: 'Run' }));
    await user.click(await screen.findByRole('button', { name: 'Make this a pipeline' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'New pipeline' })).toBeInTheDocument();
    expect(screen.getByText(/Filled in from the SQL console/)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('Source dataset')).toHaveValue('3'));
    const step = await screen.findByRole('textbox', { name: 'SQL query of step 1' });
    expect(step).toHaveTextContent('WITH cities AS (SELECT * FROM input)');
  });

  it('says why a query of several datasets is not offered as a pipeline', async () => {
    api(() =>
      json(200, answer({ pipeline: null, inputs: [{ dataset_id: 3, name: 'cities', version: 2 }, { dataset_id: 5, name: 'Sales 2025', version: 1 }] })),
    );
    const user = userEvent.setup();
    renderApp('/sql');
    await typeQuery(user, 'SELECT * FROM cities, "Sales 2025"');
    await user.click(screen.getByRole('button', { name: 'Run' }));
    const button = await screen.findByRole('button', { name: 'Make this a pipeline' });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription(/This query reads 2 datasets: a pipeline reads one source dataset/);
  });

  it('lists the datasets with a file; a name and a column insert themselves into the query', async () => {
    api();
    const user = userEvent.setup();
    renderApp('/sql');
    const list = await screen.findByRole('list', { name: 'Datasets' });
    expect(within(list).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['▸cities', '▸Sales 2025']);
    await user.click(within(list).getByRole('button', { name: 'Insert Sales 2025' }));
    await waitFor(async () => expect(await editor()).toHaveTextContent('"Sales 2025"'));

    const toggle = within(list).getByRole('button', { name: 'Columns of cities' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const columns = await screen.findByRole('list', { name: 'Columns of cities' });
    expect(columns).toHaveTextContent('population BIGINT');
    await user.click(within(columns).getByRole('button', { name: 'Insert column population' }));
    await waitFor(async () => expect(await editor()).toHaveTextContent('"Sales 2025" population'));

    await user.type(screen.getByLabelText('Filter datasets'), 'sales');
    expect(within(list).getAllByRole('listitem')).toHaveLength(1);
  });
});
