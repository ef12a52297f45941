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
};

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
