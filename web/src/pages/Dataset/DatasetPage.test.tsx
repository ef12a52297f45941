import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import type { Dataset } from '../../api/gen/types.gen';
import { json, makeDataset, mockApi, page, renderApp } from '../../components/catalog/testing';

function datasetApi(capabilities = { write: true, manage: true }, status = 200, dataset: Partial<Dataset> = {}) {
  return mockApi((call) => {
    if (call.path === '/api/v1/datasets/1') {
      return status === 200 ? json(200, makeDataset({ capabilities, ...dataset })) : json(status, { detail: 'Dataset not found' });
    }
    if (call.path === '/api/v1/users/directory/') return json(200, page([{ id: 'u-owner', name: 'Olga Owner', email: 'o@example.com' }]));
    if (call.path === '/api/v1/pipelines/') return json(200, page([{ id: 9, name: 'Daily means' }]));
    if (call.path === '/api/v1/datasets/1/columns') {
      return json(200, { version: 1, columns: [{ name: 'day', type: 'DATE', description: 'The day measured' }, { name: 'temp', type: 'DOUBLE', description: '' }] });
    }
    if (call.path === '/api/v1/datasets/1/versions') return json(200, page([]));
    return undefined;
  });
}

const tabNames = () => within(screen.getByRole('navigation', { name: 'Dataset' })).getAllByRole('link').map((link) => link.textContent);

describe('the dataset page', () => {
  it('shows the name, owner, visibility and every tab to a manager', async () => {
    datasetApi();
    renderApp('/datasets/1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Weather' })).toBeInTheDocument();
    expect(await screen.findAllByText('Olga Owner')).not.toHaveLength(0);
    expect(tabNames()).toEqual(['Overview', 'Schema', 'Checks', 'Preview', 'Versions', 'Lineage', 'Activity', 'Sharing', 'Settings']);
    expect(screen.getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
    expect(await screen.findByRole('link', { name: 'Daily means' })).toHaveAttribute('href', '/pipelines/9');
    expect(screen.getByRole('button', { name: 'Download weather.csv' })).toBeInTheDocument();
  });

  it("shows the current version's rows and columns once a worker has read it", async () => {
    datasetApi(undefined, 200, {
      schema: { rows: 1200, columns: [{ name: 'day', type: 'DATE', nullable: false }, { name: 'temp', type: 'DOUBLE', nullable: true }] },
    });
    renderApp('/datasets/1');
    expect((await screen.findByText('Rows')).nextElementSibling).toHaveTextContent('1,200');
    expect(screen.getByText('Columns').nextElementSibling).toHaveTextContent('2');
  });

  it('shows no rows before a worker has read the version', async () => {
    datasetApi();
    renderApp('/datasets/1');
    await screen.findByText('Size');
    expect(screen.queryByText('Rows')).not.toBeInTheDocument();
  });

  it('hides Sharing and Settings from a reader', async () => {
    datasetApi({ write: false, manage: false });
    renderApp('/datasets/1');
    await screen.findByRole('heading', { level: 1, name: 'Weather' });
    expect(tabNames()).toEqual(['Overview', 'Schema', 'Checks', 'Preview', 'Versions', 'Lineage', 'Activity']);
  });

  it('says plainly when the dataset does not exist', async () => {
    datasetApi(undefined, 404);
    renderApp('/datasets/1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Dataset not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to the catalog' })).toHaveAttribute('href', '/');
  });

  it('shows the columns with their types and descriptions to a reader', async () => {
    datasetApi({ write: false, manage: false });
    renderApp('/datasets/1/schema');
    const columns = await screen.findByRole('table', { name: 'Columns of Weather' });
    expect(within(columns).getByRole('rowheader', { name: 'temp' })).toBeInTheDocument();
    expect(within(columns).getByText('DOUBLE')).toBeInTheDocument();
    expect(within(columns).getByText('The day measured')).toBeInTheDocument();
    expect(within(columns).queryByRole('textbox')).not.toBeInTheDocument();
    await screen.findByRole('link', { name: 'Preview' });
  });
});
