import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeAll, describe, expect, it, vi } from 'vitest';

import { DATASET, mockApi, renderTab } from '../versions/testing';
import { LineageTab } from './LineageTab';

const LINEAGE = {
  nodes: [
    { id: 'dataset:7@2', type: 'version', dataset_id: 7, version: 2, name: 'cities' },
    { id: 'run:12', type: 'run', run_id: 12, pipeline_id: 4 },
    { id: 'hidden:1', type: 'hidden' },
  ],
  edges: [
    { from: 'dataset:7@2', to: 'run:12' },
    { from: 'run:12', to: 'hidden:1' },
  ],
};

describe('the Lineage tab', () => {
  beforeAll(() => {
    // jsdom lays nothing out; the graph library watches its size.
    vi.stubGlobal(
      'ResizeObserver',
      class {
        observe() {}
        unobserve() {}
        disconnect() {}
      },
    );
  });

  it('lists the nodes and edges, hidden ones as hidden, each leading to its page', async () => {
    const calls = mockApi((call) => (call.path === '/api/v1/datasets/7/lineage' ? [200, LINEAGE] : undefined));
    const user = userEvent.setup();
    const router = renderTab(<LineageTab />, DATASET, '/datasets/7/lineage');
    const nodes = await screen.findByRole('table', { name: 'Nodes' });
    expect(within(nodes).getByRole('link', { name: 'cities · version 2' })).toHaveAttribute('href', '/datasets/7');
    expect(within(nodes).getByRole('rowheader', { name: 'Hidden (you may not see it)' })).toBeInTheDocument();
    expect(within(nodes).getAllByRole('link')).toHaveLength(2);
    const edges = screen.getByRole('table', { name: 'Edges' });
    expect(within(edges).getByRole('row', { name: 'Pipeline 4 · run #12 Hidden (you may not see it)' })).toBeInTheDocument();
    const graph = await screen.findByRole('figure', { name: /The graph/ }, { timeout: 5000 });
    // jsdom measures nothing, so the library draws no node here; the browser test sees them.
    expect(within(graph).getByRole('button', { name: 'Zoom In' })).toBeInTheDocument();
    const first = calls.find((call) => call.path.endsWith('/lineage'))!;
    expect(first.query.get('direction')).toBe('both');
    expect(first.query.get('depth')).toBe('3');
    expect(first.query.get('version')).toBe('2');

    await user.selectOptions(screen.getByLabelText('Direction'), 'downstream');
    await user.selectOptions(screen.getByLabelText('Depth (runs away)'), '5');
    await waitFor(() => expect(calls.at(-1)!.query.get('depth')).toBe('5'));
    expect(calls.at(-1)!.query.get('direction')).toBe('downstream');
    expect(router.state.location.search).toBe('?direction=downstream&depth=5');

    const again = await screen.findByRole('table', { name: 'Nodes' });
    await user.click(within(again).getByRole('link', { name: 'Pipeline 4 · run #12' }));
    expect(router.state.location.pathname).toBe('/pipelines/4/runs/12');
  });

  it('shows the lineage of an older version when asked', async () => {
    const calls = mockApi((call) => {
      if (call.path === '/api/v1/datasets/7/lineage') return [200, LINEAGE];
      if (call.path === '/api/v1/datasets/7/versions') return [200, { items: [{ version: 2 }, { version: 1 }], total: 2, limit: 100, offset: 0 }];
      return undefined;
    });
    const user = userEvent.setup();
    renderTab(<LineageTab />, DATASET, '/datasets/7/lineage');
    expect(screen.getByRole('heading', { name: 'Lineage of version 2' })).toBeInTheDocument();
    await user.selectOptions(await screen.findByLabelText('Version'), '1');
    expect(screen.getByRole('heading', { name: 'Lineage of version 1' })).toBeInTheDocument();
    await waitFor(() => expect(calls.at(-1)!.query.get('version')).toBe('1'));
  });

  it('says that lineage starts with the first upload', () => {
    mockApi(() => undefined);
    renderTab(<LineageTab />, { ...DATASET, current_version: null }, '/datasets/7/lineage');
    expect(screen.getByText('No version yet: lineage starts with the first upload.')).toBeInTheDocument();
  });
});
