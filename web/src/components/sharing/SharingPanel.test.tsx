import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { DATASET, mockApi, page, renderTab } from '../../pages/Dataset/versions/testing';
import type { Call } from '../../pages/Dataset/versions/testing';
import { SharingPanel } from './SharingPanel';

const ANN = { id: 'u-ann', name: 'Ann Lee', email: 'ann@example.com' };
const ANDY = { id: 'u-andy', name: 'Andy Roe', email: 'andy@example.com' };
const GROUP = { id: 4, name: 'Analysts', description: 'Reads numbers', source: 'local', member_ids: [], created_at: '' };

function directory(call: Call) {
  const ids = call.query.get('ids');
  if (ids) return page([ANN, ANDY].filter((person) => ids.split(',').includes(person.id)));
  const q = (call.query.get('q') ?? '').toLowerCase();
  return page([ANN, ANDY].filter((person) => person.name.toLowerCase().includes(q)));
}

function sharingApi(grants: unknown[]) {
  return mockApi((call) => {
    if (call.path === '/api/v1/datasets/7/grants' && call.method === 'GET') return [200, page(grants)];
    if (call.path === '/api/v1/datasets/7/grants' && call.method === 'POST') {
      return [201, { id: 99, created_at: '', ...(call.body as object) }];
    }
    if (call.path === '/api/v1/users/directory/') return [200, directory(call)];
    if (call.path === '/api/v1/groups/') return [200, page([GROUP])];
    if (call.path === '/api/v1/datasets/7' && call.method === 'PATCH') return [200, { ...DATASET, ...(call.body as object) }];
    return undefined;
  });
}

function renderPanel() {
  renderTab(<SharingPanel kind="dataset" id={7} visibility="internal" />, DATASET, '/datasets/7/sharing');
}

describe('the sharing panel', () => {
  it("lists grants by the person's name and email and the group's name", async () => {
    const calls = sharingApi([
      { id: 1, principal: 'user:u-ann', permission: 'read', created_at: '' },
      { id: 2, principal: 'group:4', permission: 'write', created_at: '' },
    ]);
    renderPanel();
    // The names come after the grants (a second request): wait longer than the default.
    const ann = await screen.findByRole('row', { name: /Ann Lee ann@example.com/ }, { timeout: 4000 });
    expect(within(ann).getByRole('cell', { name: 'Read' })).toBeInTheDocument();
    const group = await screen.findByRole('row', { name: /Group: Analysts/ }, { timeout: 4000 });
    expect(within(group).getByRole('cell', { name: 'Read and write' })).toBeInTheDocument();
    const lookups = calls.filter((call) => call.path === '/api/v1/users/directory/');
    expect(lookups.map((call) => call.query.get('ids'))).toEqual(['u-ann']);
  });

  it('finds a person by name in the combobox and grants them write', async () => {
    const calls = sharingApi([]);
    const user = userEvent.setup();
    renderPanel();
    expect(await screen.findByText(/Not shared with anyone yet/)).toBeInTheDocument();
    const picker = screen.getByRole('combobox', { name: 'Person or group' });
    await user.type(picker, 'an');
    const listbox = await screen.findByRole('listbox', { name: 'Matches' });
    expect(await within(listbox).findByRole('option', { name: 'Ann Lee (ann@example.com)' })).toBeInTheDocument();
    expect(within(listbox).getByRole('option', { name: 'Andy Roe (andy@example.com)' })).toBeInTheDocument();
    expect(within(listbox).getByRole('option', { name: 'Group: Analysts' })).toBeInTheDocument();
    expect(picker).toHaveAttribute('aria-expanded', 'true');
    await user.keyboard('{ArrowDown}');
    const active = picker.getAttribute('aria-activedescendant');
    expect(document.getElementById(active!)).toHaveTextContent('Andy Roe (andy@example.com)');
    await user.keyboard('{Enter}');
    expect(picker).toHaveValue('Andy Roe (andy@example.com)');
    expect(picker).toHaveAttribute('aria-expanded', 'false');
    await user.selectOptions(screen.getByLabelText('Permission'), 'write');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(calls.some((call) => call.method === 'POST')).toBe(true));
    expect(calls.find((call) => call.method === 'POST')!.body).toEqual({ principal: 'user:u-andy', permission: 'write' });
    const searches = calls.filter((call) => call.query.get('q') !== null && call.path.endsWith('/directory/'));
    expect(searches.map((call) => call.query.get('q'))).toEqual(['an']);
  });

  it('shows a refused grant next to the form and a refused visibility change at its form', async () => {
    mockApi((call) => {
      if (call.path === '/api/v1/datasets/7/grants' && call.method === 'GET') return [200, page([])];
      if (call.method === 'POST') return [422, { detail: [{ loc: ['body', 'permission'], msg: 'Must be read or write.', type: 'x' }] }];
      if (call.method === 'PATCH') return [403, { detail: 'Forbidden' }];
      if (call.path === '/api/v1/users/directory/') return [200, directory(call)];
      if (call.path === '/api/v1/groups/') return [200, page([])];
      return undefined;
    });
    const user = userEvent.setup();
    renderPanel();
    await user.type(screen.getByRole('combobox', { name: 'Person or group' }), 'ann');
    await user.click(await screen.findByRole('option', { name: 'Ann Lee (ann@example.com)' }));
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('Must be read or write.')).toBeInTheDocument();
    expect(screen.getByLabelText('Permission')).toHaveAttribute('aria-invalid', 'true');
    await user.click(screen.getByLabelText('Private'));
    await user.click(screen.getByRole('button', { name: 'Save visibility' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Visibility not changed: Forbidden');
  });
});
