import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { DATASET, datasets, mockApi, page, renderAt, signedInAs } from '../testing';
import { PipelineListPage } from './PipelineListPage';

const PIPELINE = {
  id: 4,
  name: 'big cities',
  description: '',
  source_dataset_id: DATASET.id,
  source_version: null,
  steps: [],
  output_dataset_name: 'big',
  output_format: 'parquet',
  trigger: { on: 'new_version' },
  capabilities: { write: true, manage: true },
};

describe('the pipelines list', { timeout: 20_000 }, () => {
  it('shows each pipeline\'s source, output, trigger and last run, and searches by name', async () => {
    const calls = mockApi(
      (call) =>
        signedInAs(['editor'])(call) ??
        datasets(call) ??
        (call.path === '/api/v1/pipelines/' ? [200, page([PIPELINE])] : undefined) ??
        (call.path === '/api/v1/pipelines/4/runs' ? [200, page([{ id: 7, status: 'failed', created_at: '2026-01-01T00:00:00Z' }])] : undefined),
    );
    const user = userEvent.setup();
    renderAt(<PipelineListPage />, '/pipelines', { session: true });
    const card = (await screen.findByRole('link', { name: 'big cities' })).closest('li')!;
    expect(await within(card).findByRole('link', { name: 'cities' })).toBeInTheDocument();
    expect(card).toHaveTextContent('big (Parquet)');
    expect(card).toHaveTextContent('On a new version of an input');
    expect(await within(card).findByRole('link', { name: 'Run 7: failed' })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'New pipeline' })).toBeInTheDocument();

    await user.type(screen.getByLabelText('Name contains'), 'big');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await user.selectOptions(screen.getByLabelText('Sort'), '-updated_at');
    await waitFor(() => {
      const last = calls.filter((call) => call.path === '/api/v1/pipelines/').at(-1)!;
      expect(Object.fromEntries(last.query)).toMatchObject({ q: 'big', sort: '-updated_at', offset: '0' });
    });
  });

  it('tells a viewer with no pipelines what to do, without a New pipeline link', async () => {
    mockApi((call) => signedInAs(['viewer'])(call) ?? (call.path === '/api/v1/pipelines/' ? [200, page([])] : undefined));
    renderAt(<PipelineListPage />, '/pipelines', { session: true });
    expect(await screen.findByText(/No pipelines yet/)).toHaveTextContent('An editor can create one');
    expect(screen.queryByRole('link', { name: 'New pipeline' })).toBeNull();
  });
});
