import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import type { Call } from '../../../components/catalog/testing';
import { json, makeDataset, mockApi, page, renderApp } from '../../../components/catalog/testing';

const VERSIONS = [
  { version: 2, state: 'quarantined', sha256: 'b', size_bytes: 10, filename: 's.csv', content_type: 'text/csv', format: 'csv', created_at: '2026-11-29T10:00:00Z', created_by: null, run_id: null, message: null, pinned: false },
  { version: 1, state: 'published', sha256: 'a', size_bytes: 10, filename: 's.csv', content_type: 'text/csv', format: 'csv', created_at: '2026-11-28T10:00:00Z', created_by: null, run_id: null, message: null, pinned: false },
];
const RESULTS = {
  state: 'quarantined',
  checked_at: '2026-11-29T10:00:01Z',
  published_by: null,
  results: [
    { name: 'ids', type: 'unique', severity: 'error', status: 'failed', failing_rows: 2, message: '2 row(s) share a key', sample: [[1, 2]] },
    { name: 'rows', type: 'row_count', severity: 'warn', status: 'passed', failing_rows: null, message: '2 rows', sample: [] },
  ],
};

function checksApi(put: (body: unknown) => Response | undefined = () => undefined, write = true) {
  let checks: unknown[] = [{ name: 'ids', type: 'unique', columns: ['id'], severity: 'error' }];
  return mockApi((call: Call) => {
    if (call.path === '/api/v1/datasets/1') return json(200, makeDataset({ capabilities: { write, manage: write } }));
    if (call.path === '/api/v1/users/directory/') return json(200, page([]));
    if (call.path === '/api/v1/datasets/1/checks' && call.method === 'PUT') {
      const refused = put(call.body);
      if (refused) return refused;
      checks = (call.body as { checks: unknown[] }).checks;
      return json(200, { checks });
    }
    if (call.path === '/api/v1/datasets/1/checks') return json(200, { checks });
    if (call.path === '/api/v1/datasets/1/versions') return json(200, page(VERSIONS));
    if (call.path === '/api/v1/datasets/1/versions/2/checks') return json(200, RESULTS);
    return undefined;
  });
}

describe('the Checks tab', () => {
  it('a writer adds a check of a type, with its fields, and saves them all', async () => {
    const calls = checksApi();
    renderApp('/datasets/1/checks');
    const ids = await screen.findByRole('group', { name: 'ids' });
    expect(within(ids).getByRole('textbox', { name: 'Columns' })).toHaveValue('id');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Add a check' }));
    const added = screen.getByRole('group', { name: 'Check 2' });
    await user.type(within(added).getByRole('textbox', { name: 'Name' }), 'amounts');
    await user.selectOptions(within(added).getByRole('combobox', { name: 'Type' }), 'Range');
    const group = screen.getByRole('group', { name: 'amounts' });
    await user.type(within(group).getByRole('textbox', { name: 'Column' }), 'amount');
    await user.type(within(group).getByRole('textbox', { name: 'At least' }), '0');
    await user.selectOptions(within(group).getByRole('combobox', { name: 'When it fails' }), 'warn');
    await user.click(screen.getByRole('button', { name: 'Save checks' }));
    await waitFor(() =>
      expect(calls.find((call) => call.method === 'PUT')?.body).toEqual({
        checks: [
          { name: 'ids', type: 'unique', severity: 'error', columns: ['id'] },
          { name: 'amounts', type: 'range', severity: 'warn', column: 'amount', min: 0 },
        ],
      }),
    );
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
  });

  it('shows a refused check at its field', async () => {
    checksApi(() => json(422, { detail: [{ loc: ['body', 'checks', 0, 'columns'], msg: 'ensure this value has at least 1 characters', type: 'value_error' }] }));
    renderApp('/datasets/1/checks');
    const ids = await screen.findByRole('group', { name: 'ids' });
    const user = userEvent.setup();
    await user.clear(within(ids).getByRole('textbox', { name: 'Columns' }));
    await user.click(screen.getByRole('button', { name: 'Save checks' }));
    const columns = within(ids).getByRole('textbox', { name: 'Columns' });
    await waitFor(() => expect(columns).toHaveAttribute('aria-invalid', 'true'));
    expect(columns).toHaveAccessibleDescription(/ensure this value has at least 1 characters/);
  });

  it('shows the newest version’s state and each result with its failing rows', async () => {
    checksApi(undefined, false);
    renderApp('/datasets/1/checks');
    expect(await screen.findByText(/Version 2 is quarantined/)).toBeInTheDocument();
    const table = screen.getByRole('table', { name: 'Results of the checks of version 2' });
    expect(within(table).getByRole('row', { name: /ids failed 2 2 row\(s\) share a key/ })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save checks' })).not.toBeInTheDocument();
    expect(screen.getByText(/Unique, error/)).toBeInTheDocument();
  });
});
