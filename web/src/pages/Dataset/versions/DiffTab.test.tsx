import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { DiffTab } from './DiffTab';
import { DATASET, mockApi, renderTab } from './testing';

const DIFF = {
  from: 1,
  to: 2,
  columns: ['id', 'city'],
  schema: { added: [{ name: 'city', type: 'VARCHAR' }], removed: [{ name: 'zip', type: 'BIGINT' }], changed: [{ name: 'id', from: 'BIGINT', to: 'VARCHAR' }] },
  rows: { added: 1, removed: 2, changed: 1, unchanged: 40 },
  sample: {
    added: [[3, 'Lima']],
    removed: [[4, 'Rome'], [5, null]],
    changed: [{ key: [1], from: [1, 'Oslo'], to: [1, 'Bergen'] }],
  },
  profile: null as unknown,
};

const DRIFT = [
  { name: 'id', null_fraction: { from: 0, to: 0 }, distinct: { from: 40, to: 40 }, mean: { from: null, to: null }, new_values: [], missing_values: [] },
  { name: 'city', null_fraction: { from: 0, to: 0.4 }, distinct: { from: 3, to: 2 }, mean: { from: null, to: null }, new_values: ['Lima'], missing_values: ['Rome'] },
];

describe('the diff of two versions', () => {
  it('shows the column changes, the row counts and labelled sample rows', async () => {
    const calls = mockApi((call) => (call.path === '/api/v1/datasets/7/diff' ? [200, DIFF] : undefined));
    renderTab(<DiffTab />, DATASET, '/datasets/7/versions/compare?from=1&to=2', 'versions/compare');
    expect(await screen.findByRole('heading', { name: 'Changes from version 1 to version 2' })).toBeInTheDocument();
    expect(await screen.findByText('40')).toBeInTheDocument();
    expect(screen.getByText('rows unchanged')).toBeInTheDocument();
    expect(screen.getByText('row added')).toBeInTheDocument();
    const columns = screen.getByRole('table', { name: 'Column changes' });
    expect(within(columns).getByRole('row', { name: /\+ added city VARCHAR/ })).toBeInTheDocument();
    expect(within(columns).getByRole('row', { name: /− removed zip BIGINT/ })).toBeInTheDocument();
    expect(within(columns).getByRole('row', { name: /type changed id BIGINT → VARCHAR/ })).toBeInTheDocument();
    const rows = screen.getByRole('table', { name: 'Sample of the rows that differ' });
    expect(within(rows).getByRole('row', { name: /\+ added 3 Lima/ })).toBeInTheDocument();
    expect(within(rows).getAllByRole('rowheader', { name: '− removed' })).toHaveLength(2);
    expect(within(rows).getByRole('row', { name: /changed \(before\) 1 Oslo/ })).toBeInTheDocument();
    expect(within(rows).getByRole('row', { name: /changed \(after\) 1 Bergen/ })).toBeInTheDocument();
    expect(calls[0].query.get('from')).toBe('1');
    expect(calls[0].query.get('key')).toBeNull();
  });

  it('shows the drift of the columns once both versions are profiled', async () => {
    mockApi((call) => (call.path === '/api/v1/datasets/7/diff' ? [200, { ...DIFF, profile: DRIFT }] : undefined));
    renderTab(<DiffTab />, DATASET, '/datasets/7/versions/compare?from=1&to=2', 'versions/compare');
    const drift = await screen.findByRole('table', { name: "Drift of the columns' statistics" });
    expect(within(drift).getByRole('row', { name: 'city nulls 0.0% → 40.0%; distinct 3 → 2; new: Lima; gone: Rome' })).toBeInTheDocument();
    expect(within(drift).queryByRole('rowheader', { name: 'id' })).not.toBeInTheDocument();
  });

  it('says the drift comes once both versions are profiled, and asks again on request', async () => {
    let asked = 0;
    const calls = mockApi((call) => {
      if (call.path !== '/api/v1/datasets/7/diff') return undefined;
      asked += 1;
      return [200, asked === 1 ? DIFF : { ...DIFF, profile: DRIFT }];
    });
    renderTab(<DiffTab />, DATASET, '/datasets/7/versions/compare?from=1&to=2', 'versions/compare');
    expect(await screen.findByText('Shown once a worker has computed the statistics of both versions.')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Check again' }));
    const drift = await screen.findByRole('table', { name: "Drift of the columns' statistics" });
    expect(within(drift).getByRole('rowheader', { name: 'city' })).toBeInTheDocument();
    expect(calls.filter((call) => call.path === '/api/v1/datasets/7/diff')).toHaveLength(2);
    expect(calls[1].query.get('from')).toBe('1');
  });

  it('sends the key columns and shows a refused key at the key field', async () => {
    const calls = mockApi((call) =>
      call.query.get('key') === 'nope'
        ? [422, { detail: "Key column 'nope' is not a column of both versions" }]
        : [200, DIFF],
    );
    const user = userEvent.setup();
    renderTab(<DiffTab />, DATASET, '/datasets/7/versions/compare?from=1&to=2', 'versions/compare');
    await screen.findByText('40');
    const key = screen.getByLabelText('Key columns');
    await user.type(key, ' nope ');
    await user.click(screen.getByRole('button', { name: 'Compare by key' }));
    expect(await screen.findByText("Key column 'nope' is not a column of both versions")).toBeInTheDocument();
    expect(key).toHaveAttribute('aria-invalid', 'true');
    expect(key).toHaveAccessibleDescription(/Key column 'nope' is not a column/);
    expect(calls.at(-1)!.query.get('key')).toBe('nope');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
