import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { datasets, DATASET, mockApi, renderAt } from '../testing';
import { emptyPipeline } from './draft';
import { PipelineForm } from './PipelineForm';

const SAVED = { id: 9, name: 'big cities' };

function renderForm() {
  renderAt(<PipelineForm initial={emptyPipeline()} onSaved={() => undefined} />);
}

async function addStep(user: ReturnType<typeof userEvent.setup>, label: string) {
  await user.selectOptions(screen.getByLabelText('Step to add'), label);
  await user.click(screen.getByRole('button', { name: 'Add step' }));
}

function step(number: number): HTMLElement {
  return screen.getByRole('group', { name: new RegExp(`^Step ${number}:`) });
}

describe('the pipeline builder', { timeout: 20_000 }, () => {
  it('sends the steps as typed and shows a 422 at step 2\'s SQL field', async () => {
    const calls = mockApi((call) => {
      if (call.method === 'POST' && call.path === '/api/v1/pipelines/') {
        return [422, { detail: [{ loc: ['body', 'steps', 1, 'query'], msg: 'only a SELECT is allowed', type: 'value_error.sql' }] }];
      }
      return datasets(call);
    });
    const user = userEvent.setup();
    renderForm();
    await user.type(screen.getByLabelText('Name'), SAVED.name);
    await screen.findByRole('option', { name: /cities \(#3\)/ });
    await user.selectOptions(screen.getByLabelText('Source dataset'), String(DATASET.id));
    await user.selectOptions(await screen.findByLabelText('Source version'), '2');
    await addStep(user, 'Filter rows');
    await user.type(within(step(1)).getByLabelText('Column'), 'population');
    await user.selectOptions(within(step(1)).getByLabelText('Comparison'), 'ge');
    await user.type(within(step(1)).getByLabelText('Value'), '100000');
    await addStep(user, 'SQL');
    const editor = await screen.findByRole('textbox', { name: 'SQL query of step 2' });
    await user.type(screen.getByLabelText('Output dataset name'), 'big');
    await user.click(screen.getByRole('button', { name: 'Create pipeline' }));

    const sent = calls.find((call) => call.method === 'POST')!.body;
    expect(sent).toMatchObject({
      name: 'big cities',
      source_dataset_id: 3,
      source_version: 2,
      output_dataset_name: 'big',
      output_format: 'csv',
      trigger: null,
      steps: [
        { op: 'filter', column: 'population', operator: 'ge', value: '100000' },
        { op: 'sql', query: 'SELECT * FROM input' },
      ],
    });
    const message = await within(step(2)).findByText('only a SELECT is allowed');
    expect(editor).toHaveAttribute('aria-invalid', 'true');
    expect(editor.getAttribute('aria-describedby')).toContain(message.id);
    expect(within(step(1)).queryByText('only a SELECT is allowed')).toBeNull();
    // said once, at its field: not again above the button
    expect(screen.getAllByText(/only a SELECT is allowed/)).toHaveLength(1);
  });

  it('gives every step op its own labelled form', async () => {
    mockApi(datasets);
    const user = userEvent.setup();
    renderForm();
    const expected: [string, string[]][] = [
      ['Select columns', ['Columns']],
      ['Rename columns', ['Old name 1', 'New name 1']],
      ['Filter rows', ['Column', 'Comparison', 'Value']],
      ['Sort', ['Columns', 'Descending (largest first)']],
      ['Remove duplicates', ['Columns']],
      ['Limit rows', ['Number of rows']],
      ['Change a type', ['Column', 'New type']],
      ['Aggregate', ['Group by', 'Function 1', 'Of column 1', 'Named 1']],
      ['Join a dataset', ['Dataset to join', 'Join on', 'Keep', 'Its version']],
    ];
    for (const [index, [label, fields]] of expected.entries()) {
      await addStep(user, label);
      const group = step(index + 1);
      expect(group).toHaveAccessibleName(`Step ${index + 1}: ${label}`);
      for (const field of fields) expect(within(group).getByLabelText(field)).toBeInTheDocument();
    }
    await addStep(user, 'SQL');
    expect(await screen.findByRole('textbox', { name: 'SQL query of step 10' })).toBeInTheDocument();
  });

  it('moves and removes steps by keyboard, keeping the focus on the moved step', async () => {
    mockApi(datasets);
    const user = userEvent.setup();
    renderForm();
    await addStep(user, 'Filter rows');
    await addStep(user, 'Limit rows');
    await addStep(user, 'Sort');
    screen.getByRole('button', { name: 'Move step 3 up' }).focus();
    await user.keyboard('{Enter}');
    const names = () => screen.getAllByRole('group', { name: /^Step \d/ }).map((group) => group.querySelector('legend')!.textContent);
    expect(names()).toEqual(['Step 1: Filter rows', 'Step 2: Sort', 'Step 3: Limit rows']);
    expect(screen.getByRole('button', { name: 'Move step 2 up' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(names()).toEqual(['Step 1: Sort', 'Step 2: Filter rows', 'Step 3: Limit rows']);
    // first now: "up" is off, so the focus is on its "down"
    expect(screen.getByRole('button', { name: 'Move step 1 up' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Move step 1 down' })).toHaveFocus();
    screen.getByRole('button', { name: 'Remove step 2' }).focus();
    await user.keyboard('{Enter}');
    expect(names()).toEqual(['Step 1: Sort', 'Step 2: Limit rows']);
  });

  it('sends a schedule with its time zone, and shows a 422 at the cron field', async () => {
    const calls = mockApi((call) => {
      if (call.method === 'POST') {
        return [422, { detail: [{ loc: ['body', 'trigger', 'cron'], msg: 'not a cron expression', type: 'value_error' }] }];
      }
      return datasets(call);
    });
    const user = userEvent.setup();
    renderForm();
    expect(screen.queryByLabelText('Cron expression')).toBeNull();
    await user.click(screen.getByRole('radio', { name: /On a schedule/ }));
    await user.type(screen.getByLabelText('Cron expression'), '0 6 * * 1-5');
    const zone = screen.getByLabelText('Time zone');
    await user.clear(zone);
    await user.type(zone, 'Europe/Oslo');
    await user.click(screen.getByRole('button', { name: 'Create pipeline' }));
    await waitFor(() => expect(calls.some((call) => call.method === 'POST')).toBe(true));
    expect(calls.find((call) => call.method === 'POST')!.body).toMatchObject({
      trigger: { cron: '0 6 * * 1-5', timezone: 'Europe/Oslo' },
    });
    expect(await screen.findByText('not a cron expression')).toBeInTheDocument();
    expect(screen.getByLabelText('Cron expression')).toHaveAttribute('aria-invalid', 'true');
    await user.click(screen.getByRole('radio', { name: /On a new version/ }));
    expect(screen.queryByLabelText('Cron expression')).toBeNull();
  });
});
