import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import type { Dataset } from '../../../api/gen/types.gen';
import type { Call } from '../../../components/catalog/testing';
import { json, makeDataset, mockApi, page, renderApp } from '../../../components/catalog/testing';

type Column = { name: string; type: string; description: string };

function schemaApi(
  patch: (body: { columns: { name: string; description: string }[] }) => Response | undefined = () => undefined,
  dataset: Partial<Dataset> = {},
) {
  let columns: Column[] = [
    { name: 'day', type: 'DATE', description: 'The day measured' },
    { name: 'temp', type: 'DOUBLE', description: '' },
  ];
  const calls: Call[] = mockApi((call) => {
    if (call.path === '/api/v1/datasets/1') return json(200, makeDataset(dataset));
    if (call.path === '/api/v1/users/directory/') return json(200, page([]));
    if (call.path === '/api/v1/datasets/1/columns' && call.method === 'PATCH') {
      const body = call.body as { columns: { name: string; description: string }[] };
      const refused = patch(body);
      if (refused) return refused;
      columns = columns.map((column) => ({ ...column, description: body.columns.find((c) => c.name === column.name)?.description ?? column.description }));
      return json(200, { version: 1, columns });
    }
    if (call.path === '/api/v1/datasets/1/columns') return json(200, { version: 1, columns });
    if (call.path === '/api/v1/datasets/1/versions/1/profile') return json(202, { status: 'pending' });
    return undefined;
  });
  return calls;
}

const patches = (calls: Call[]) => calls.filter((call) => call.method === 'PATCH');

describe('column descriptions on the Schema tab', () => {
  it('a writer edits descriptions and saves the changed ones at once', async () => {
    const calls = schemaApi();
    renderApp('/datasets/1/schema');
    const temp = await screen.findByRole('textbox', { name: 'Description of temp' });
    expect(screen.getByRole('textbox', { name: 'Description of day' })).toHaveValue('The day measured');
    const save = screen.getByRole('button', { name: 'Save descriptions' });
    expect(save).toBeDisabled();
    const user = userEvent.setup();
    await user.type(temp, 'Air temperature, °C');
    await user.click(save);
    await waitFor(() =>
      expect(patches(calls)[0].body).toEqual({
        columns: [{ name: 'temp', description: 'Air temperature, °C' }],
      }),
    );
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Description of temp' })).toHaveValue('Air temperature, °C');
  });

  it('a refused column shows its problem on its own row, and what was typed stays', async () => {
    schemaApi(() =>
      json(422, {
        detail: [
          { loc: ['json', 'columns', 0, 'name'], msg: 'Unknown column: temp', type: 'validation' },
          { loc: ['json', 'columns'], msg: 'Something about the list.', type: 'validation' },
        ],
      }),
    );
    renderApp('/datasets/1/schema');
    const temp = await screen.findByRole('textbox', { name: 'Description of temp' });
    const user = userEvent.setup();
    // Only temp changed: it is the request's first column, the table's second.
    await user.type(temp, 'Gone by now');
    await user.click(screen.getByRole('button', { name: 'Save descriptions' }));
    const rows = screen.getAllByRole('row');
    const tempRow = rows.find((row) => within(row).queryByRole('rowheader', { name: 'temp' }))!;
    const dayRow = rows.find((row) => within(row).queryByRole('rowheader', { name: 'day' }))!;
    expect(await within(tempRow).findByText('Unknown column: temp')).toBeInTheDocument();
    expect(temp).toHaveAttribute('aria-invalid', 'true');
    expect(temp).toHaveAccessibleDescription('Unknown column: temp');
    expect(temp).toHaveValue('Gone by now');
    expect(within(dayRow).queryByText(/Unknown column/)).not.toBeInTheDocument();
    // A problem no row shows is said under the table.
    expect(screen.getByRole('alert')).toHaveTextContent('columns: Something about the list.');
  });

  it('shows the rows and which columns hold nulls once the version is read', async () => {
    schemaApi(undefined, {
      schema: {
        rows: 1200,
        columns: [
          { name: 'day', type: 'DATE', nullable: false },
          { name: 'temp', type: 'DOUBLE', nullable: true },
        ],
      },
    });
    renderApp('/datasets/1/schema');
    expect(await screen.findByText('2 columns and 1,200 rows in version 1.')).toBeInTheDocument();
    expect(screen.getByRole('columnheader', { name: 'Has nulls' })).toBeInTheDocument();
    expect(screen.getByRole('row', { name: /^2 temp DOUBLE Yes/ })).toBeInTheDocument();
    expect(screen.getByRole('row', { name: /^1 day DATE No/ })).toBeInTheDocument();
  });

  it('shows no nulls column before the version is read', async () => {
    schemaApi();
    renderApp('/datasets/1/schema');
    expect(await screen.findByText('2 columns in version 1.')).toBeInTheDocument();
    expect(screen.queryByRole('columnheader', { name: 'Has nulls' })).not.toBeInTheDocument();
  });
});
