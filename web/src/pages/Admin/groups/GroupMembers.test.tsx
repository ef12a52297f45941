import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { fakeService, renderAt } from '../../../components/admin/testing';
import { adminRoutes } from '../routes';

const PEOPLE = [
  { id: 'u-1', name: 'Ann Archer', email: 'ann@example.com' },
  { id: 'u-2', name: 'Ben Baker', email: 'ben@example.com' },
];

function group(source: string, memberIds: string[]) {
  return { id: 7, name: 'Analysts', description: '', source, member_ids: memberIds, created_at: '2026-02-02T00:00:00Z' };
}

function service(source: string, memberIds: string[]) {
  return fakeService({
    'GET /api/v1/users/': { body: { items: [], total: 0, limit: 1, offset: 0 } },
    'GET /api/v1/groups/7': { body: group(source, memberIds) },
    'GET /api/v1/users/directory/': (call) => {
      const ids = call.query.get('ids')?.split(',');
      const q = call.query.get('q')?.toLowerCase();
      const items = PEOPLE.filter((p) => (ids ? ids.includes(p.id) : p.name.toLowerCase().includes(q ?? '')));
      return { body: { items, total: items.length, limit: 20, offset: 0 } };
    },
    'PUT /api/v1/groups/7/members/u-2': { body: group(source, ['u-1', 'u-2']) },
  });
}

describe('a group page: members', () => {
  it('shows members by name and email, looked up in one call, and adds one found by name', async () => {
    const calls = service('local', ['u-1', 'u-gone']);
    renderAt('/admin/groups/7', adminRoutes);
    const table = await screen.findByRole('table', { name: 'Members of Analysts' });
    await within(table).findByRole('cell', { name: 'Ann Archer' });
    expect(within(table).getByRole('cell', { name: 'ann@example.com' })).toBeInTheDocument();
    expect(within(table).getByRole('cell', { name: 'Deactivated user' })).toBeInTheDocument();
    const lookups = calls.filter((call) => call.path === '/api/v1/users/directory/' && call.query.has('ids'));
    expect(lookups).toHaveLength(1);
    expect(lookups[0].query.get('ids')).toBe('u-1,u-gone');

    await userEvent.type(screen.getByLabelText('Find people to add'), 'ben');
    const found = await screen.findByRole('list', { name: 'People found' });
    await userEvent.click(within(found).getByRole('button', { name: 'Add Ben Baker' }));
    await waitFor(() => expect(calls.some((call) => call.method === 'PUT')).toBe(true));
  });

  it('says an LDAP group is read-only and offers no member controls', async () => {
    service('ldap', ['u-1']);
    renderAt('/admin/groups/7', adminRoutes);
    expect(await screen.findByText(/kept by LDAP/)).toBeInTheDocument();
    await screen.findByText('Ann Archer');
    expect(screen.queryByLabelText('Find people to add')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Remove/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).not.toBeInTheDocument();
  });
});
