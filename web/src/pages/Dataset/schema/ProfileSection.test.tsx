import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { json, makeDataset, mockApi, page, renderApp } from '../../../components/catalog/testing';

const COLUMNS = {
  version: 1,
  columns: [
    { name: 'city', type: 'VARCHAR', description: '' },
    { name: 'temp', type: 'DOUBLE', description: '' },
  ],
};

const READY = {
  status: 'ready',
  rows: 1200,
  computed_at: '2026-11-29T10:00:00Z',
  partial: false,
  columns: [
    {
      name: 'city', type: 'VARCHAR', count: 1200, nulls: 0, null_fraction: 0, distinct: 2, min: 'Bergen', max: 'Oslo',
      mean: null, stddev: null, quantiles: null, histogram: null,
      top_values: [{ value: 'Oslo', count: 800 }, { value: 'Bergen', count: 400 }],
      length: { min: 4, max: 6, mean: 4.667 },
    },
    {
      name: 'temp', type: 'DOUBLE', count: 720, nulls: 480, null_fraction: 0.4, distinct: 300, min: -12.5, max: 31,
      mean: 8.25, stddev: 6.125, quantiles: { p25: 2, p50: 8, p75: 14.5 },
      histogram: [{ from: -12.5, to: 9.25, count: 500 }, { from: 9.25, to: 31, count: 220 }],
      top_values: null, length: null,
    },
  ],
};

const SCHEMA = {
  rows: 1200,
  columns: [
    { name: 'city', type: 'VARCHAR', nullable: false },
    { name: 'temp', type: 'DOUBLE', nullable: true },
  ],
};

/** The profile answers in turn; the dataset has its schema once the profile is ready. */
function profileApi(answers: [number, unknown][]) {
  let asked = 0;
  let ready = false;
  return mockApi((call) => {
    if (call.path === '/api/v1/datasets/1') return json(200, makeDataset({ schema: ready ? SCHEMA : null }));
    if (call.path === '/api/v1/users/directory/') return json(200, page([]));
    if (call.path === '/api/v1/datasets/1/columns') return json(200, COLUMNS);
    if (call.path === '/api/v1/datasets/1/versions/1/profile') {
      const [status, body] = answers[Math.min(asked, answers.length - 1)];
      asked += 1;
      ready = (body as { status: string }).status === 'ready';
      return json(status, body);
    }
    return undefined;
  });
}

describe('statistics on the Schema tab', () => {
  it('says a worker is computing them, then shows each column with its charts', async () => {
    profileApi([
      [202, { status: 'pending' }],
      [200, READY],
    ]);
    renderApp('/datasets/1/schema');
    expect(await screen.findByText(/A worker is computing the statistics of version 1/)).toHaveAttribute('role', 'status');
    const temp = await screen.findByRole('article', { name: 'temp DOUBLE' }, { timeout: 5000 });
    expect(await screen.findByText('The statistics of version 1 are ready.')).toHaveAttribute('role', 'status');
    // The schema the worker read with them: rows, and which columns hold nulls.
    expect(await screen.findByText('2 columns and 1,200 rows in version 1.')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Has nulls' })).toBeInTheDocument();
    expect(within(temp).getByText('Nulls').nextElementSibling).toHaveTextContent('480 (40.0%)');
    expect(within(temp).getByText('Quartiles').nextElementSibling).toHaveTextContent('25%: 2 · 50%: 8 · 75%: 14.5');
    const histogram = within(temp).getByRole('img', {
      name: 'Distribution of temp: 2 ranges from -12.5 to 31; the most rows (500) from -12.5 to 9.25',
    });
    expect(histogram).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(temp).getByText('As a table'));
    const table = within(temp).getByRole('table', { name: /^Distribution of temp: 2 ranges from -12.5 to 31/ });
    expect(within(table).getByRole('row', { name: '-12.5 to 9.25 500' })).toBeInTheDocument();
    const city = screen.getByRole('article', { name: 'city VARCHAR' });
    expect(within(city).getByRole('img', { name: 'Most frequent values of city: 2 values, the first Oslo (800 rows)' })).toBeInTheDocument();
    expect(within(city).getByText('Length').nextElementSibling).toHaveTextContent('4 to 6 characters (mean 4.667)');
    expect(screen.getByText(/^1,200 rows in version 1, computed/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Download the Data Package (datapackage.json)' })).toBeInTheDocument();
  });

  it('says when statistics it waited for will not come', async () => {
    profileApi([
      [202, { status: 'pending' }],
      [200, { status: 'failed', error: 'The file cannot be read as a table: ragged rows' }],
    ]);
    renderApp('/datasets/1/schema');
    expect(await screen.findByText(/A worker is computing/)).toBeInTheDocument();
    expect(await screen.findByText('Version 1 has no statistics.', {}, { timeout: 5000 })).toHaveAttribute('role', 'status');
    expect(screen.getByText('Version 1 has no statistics: The file cannot be read as a table: ragged rows')).toBeInTheDocument();
  });

  it('announces nothing for statistics that were ready when the page opened', async () => {
    profileApi([[200, READY]]);
    renderApp('/datasets/1/schema');
    await screen.findByRole('article', { name: 'temp DOUBLE' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(screen.queryByText(/are ready/)).not.toBeInTheDocument();
  });

  it('says why a version has no statistics', async () => {
    profileApi([[200, { status: 'failed', error: 'The file cannot be read as a table: ragged rows' }]]);
    renderApp('/datasets/1/schema');
    expect(await screen.findByText('Version 1 has no statistics: The file cannot be read as a table: ragged rows')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Data Package/ })).not.toBeInTheDocument();
  });

  it('notes quartiles that come from a sample', async () => {
    profileApi([[200, { ...READY, partial: true }]]);
    renderApp('/datasets/1/schema');
    expect(await screen.findByText(/The quartiles are estimated from a sample of the rows\./)).toBeInTheDocument();
    const temp = screen.getByRole('article', { name: 'temp DOUBLE' });
    expect(within(temp).getByText('Quartiles (from a sample)').nextElementSibling).toHaveTextContent('25%: 2 · 50%: 8 · 75%: 14.5');
  });

  it('names each column by its name, spaces and all', async () => {
    const spaced = { ...READY.columns[1], name: 'air temp' };
    profileApi([[200, { ...READY, columns: [spaced] }]]);
    renderApp('/datasets/1/schema');
    const card = await screen.findByRole('article', { name: 'air temp DOUBLE' });
    expect(within(card).getByRole('img', { name: /^Distribution of air temp: 2 ranges/ })).toBeInTheDocument();
  });

  it('does not call exact quartiles a sample', async () => {
    profileApi([[200, READY]]);
    renderApp('/datasets/1/schema');
    const temp = await screen.findByRole('article', { name: 'temp DOUBLE' });
    expect(within(temp).getByText('Quartiles')).toBeInTheDocument();
    expect(screen.queryByText(/from a sample/)).not.toBeInTheDocument();
  });
});
