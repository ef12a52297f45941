import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { mockApi, renderAt } from '../testing';
import type { Step } from './draft';
import { StepPreview } from './StepPreview';

const STEPS: Step[] = [
  { op: 'filter', column: 'population', operator: 'ge', value: 100000 },
  { op: 'sql', query: 'SELECT city FROM input' },
];

describe('the preview after a step', { timeout: 20_000 }, () => {
  it('sends the steps up to its own and shows the columns and rows', async () => {
    const calls = mockApi((call) =>
      call.path === '/api/v1/pipelines/preview'
        ? [200, { columns: [{ name: 'city', type: 'VARCHAR' }, { name: 'population', type: 'BIGINT' }], rows: [['Oslo', 709000], ['Bergen', null]], format: 'csv', truncated: false }]
        : undefined,
    );
    const user = userEvent.setup();
    renderAt(<StepPreview sourceDatasetId={3} sourceVersion={2} steps={STEPS} index={0} />);
    await user.click(await screen.findByRole('button', { name: 'Preview up to here (step 1)' }));
    const table = await screen.findByRole('table', { name: 'After step 1: the first 2 rows' });
    expect(calls[0].body).toEqual({ source_dataset_id: 3, source_version: 2, steps: [STEPS[0]], limit: 20 });
    expect(screen.getAllByRole('columnheader').map((cell) => cell.textContent)).toEqual(['city VARCHAR', 'population BIGINT']);
    expect(table).toHaveTextContent('Oslo709000Bergen');
    await user.click(screen.getByRole('button', { name: 'Hide preview of step 1' }));
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('says why there is no preview, and waits for a source', async () => {
    mockApi(() => [422, { detail: "step 1 (sql): Binder Error: Referenced column \"nope\" not found" }]);
    const user = userEvent.setup();
    const { unmount } = renderAt(<StepPreview sourceDatasetId={3} sourceVersion={null} steps={STEPS} index={1} />);
    await user.click(await screen.findByRole('button', { name: 'Preview up to here (step 2)' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('No preview: step 1 (sql): Binder Error'));
    unmount();
    renderAt(<StepPreview sourceDatasetId={null} sourceVersion={null} steps={STEPS} index={1} />);
    expect(await screen.findByRole('button', { name: 'Preview up to here (step 2)' })).toBeDisabled();
  });
});
