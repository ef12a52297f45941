import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';

import { mockApi, renderAt } from '../testing';
import { RunPage } from './RunPage';

const PIPELINE = { id: 4, name: 'big cities', capabilities: { write: true, manage: true } };
const RUN = {
  id: 12,
  pipeline_id: 4,
  status: 'running',
  created_at: '2026-01-01T10:00:00Z',
  started_at: '2026-01-01T10:00:01Z',
  finished_at: null,
  rows_in: null,
  rows_out: null,
  error: null,
  inputs: [{ dataset_id: 3, version: 2 }],
  output: null,
  output_dataset_id: null,
  reused_run_id: null,
  triggered_by: 'user',
};

function renderRun() {
  renderAt(
    <Routes>
      <Route path="/pipelines/:pipelineId/runs/:runId" element={<RunPage />} />
    </Routes>,
    '/pipelines/4/runs/12',
  );
}

describe('a run page', { timeout: 20_000 }, () => {
  it('cancels a running run after a confirmation, and shows the versions it read', async () => {
    let run: Record<string, unknown> = { ...RUN };
    const calls = mockApi((call) => {
      if (call.path === '/api/v1/pipelines/4') return [200, PIPELINE];
      if (call.path === '/api/v1/datasets/3') return [200, { id: 3, name: 'cities' }];
      if (call.path === '/api/v1/pipelines/4/runs/12/cancel') {
        run = { ...run, status: 'cancelled', error: 'cancelled by a user', finished_at: '2026-01-01T10:00:03Z' };
        return [200, run];
      }
      if (call.path === '/api/v1/pipelines/4/runs/12') return [200, run];
      return undefined;
    });
    const user = userEvent.setup();
    renderRun();
    expect(await screen.findByText('running')).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'cities, version 2' })).toHaveAttribute('href', '/datasets/3/versions');
    await user.click(screen.getByRole('button', { name: 'Cancel run' }));
    const dialog = screen.getByRole('dialog', { name: 'Cancel run 12?' });
    expect(calls.some((call) => call.path.endsWith('/cancel'))).toBe(false);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel run' }));
    await waitFor(() => expect(calls.some((call) => call.method === 'POST' && call.path.endsWith('/cancel'))).toBe(true));
    expect(await screen.findByText('cancelled')).toBeInTheDocument();
    expect(screen.getByText('cancelled by a user')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();
  });

  it('shows no Cancel to someone who may not run the pipeline, and links a reused run', async () => {
    mockApi((call) => {
      if (call.path === '/api/v1/pipelines/4') return [200, { ...PIPELINE, capabilities: { write: false, manage: false } }];
      if (call.path === '/api/v1/pipelines/4/runs/12') {
        return [200, { ...RUN, status: 'succeeded', reused_run_id: 10, output: { dataset_id: 5, version: 1 }, rows_out: 2 }];
      }
      return [200, { id: 5, name: 'big' }];
    });
    renderRun();
    expect(await screen.findByText('succeeded')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Run 10' })).toHaveAttribute('href', '/pipelines/4/runs/10');
    expect(screen.queryByRole('button', { name: 'Cancel run' })).toBeNull();
  });
});
