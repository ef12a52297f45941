import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { fakeService, renderAt } from '../../../components/admin/testing';
import { adminRoutes } from '../routes';

const BOB = {
  id: 'u-bob',
  email: 'bob@example.com',
  name: 'Bob Berg',
  roles: ['viewer'],
  provider: 'local',
  is_active: true,
  created_at: '2026-03-01T09:00:00Z',
};

function bobsService(patch: (body: Record<string, unknown>) => { status?: number; body?: unknown }) {
  return fakeService({
    'GET /api/v1/users/': { body: { items: [BOB], total: 1, limit: 1, offset: 0 } },
    'GET /api/v1/users/u-bob': { body: BOB },
    'PATCH /api/v1/users/u-bob': (call) => patch(call.body as Record<string, unknown>),
    'GET /api/v1/users/u-bob/tokens': { body: { items: [], total: 0, limit: 20, offset: 0 } },
    'GET /api/v1/datasets/': { body: { items: [], total: 3, limit: 1, offset: 0 } },
    'GET /api/v1/auth/me/usage': {
      body: { storage_bytes: 0, datasets: 0, queued_runs: 0, limits: { storage_bytes: null, datasets: 10, queued_runs: 5 } },
    },
  });
}

describe('a user page: roles', () => {
  it('shows the roles as checkboxes and saves the ones ticked', async () => {
    const calls = bobsService((body) => ({ body: { ...BOB, roles: body.roles } }));
    renderAt('/admin/users/u-bob', adminRoutes);
    const roles = await screen.findByRole('group', { name: 'Roles' });
    const viewer = screen.getByRole('checkbox', { name: /Viewer/ });
    const editor = screen.getByRole('checkbox', { name: /Editor/ });
    expect(roles).toContainElement(viewer);
    expect(viewer).toBeChecked();
    expect(editor).not.toBeChecked();
    const save = screen.getByRole('button', { name: 'Save roles' });
    expect(save).toBeDisabled(); // nothing changed yet

    await userEvent.click(editor);
    await userEvent.click(save);
    await waitFor(() => expect(calls.some((call) => call.method === 'PATCH')).toBe(true));
    const patch = calls.find((call) => call.method === 'PATCH');
    expect(patch?.body).toEqual({ roles: ['viewer', 'editor'] });
    expect(await screen.findByText('Datasets owned')).toBeInTheDocument();
    expect(screen.getByText('3 of 10 (30%)')).toBeInTheDocument();
  });

  it('says why the server refused (the last admin) next to the form', async () => {
    bobsService(() => ({
      status: 409,
      body: { detail: 'The last active admin cannot be removed, deactivated or demoted' },
    }));
    renderAt('/admin/users/u-bob', adminRoutes);
    await userEvent.click(await screen.findByRole('checkbox', { name: /Admin/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Save roles' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The last active admin cannot be removed');
  });

  it('shows a 422 on roles under the checkboxes', async () => {
    bobsService(() => ({
      status: 422,
      body: { detail: [{ loc: ['body', 'roles', 0], msg: 'Must be one of: viewer, editor, admin.' }, { loc: ['body', 'roles'], msg: 'Pick a known role.' }] },
    }));
    renderAt('/admin/users/u-bob', adminRoutes);
    await userEvent.click(await screen.findByRole('checkbox', { name: /Editor/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Save roles' }));
    const roles = screen.getByRole('group', { name: 'Roles' });
    await waitFor(() => expect(roles).toHaveTextContent('Pick a known role.'));
    expect(roles).toHaveAccessibleDescription('Pick a known role.');
  });
});

describe('the admin area', () => {
  it('says "Only admins can see this" when the server answers 403', async () => {
    fakeService(
      { 'GET /api/v1/users/': { status: 403, body: { detail: 'Forbidden' } } },
      { id: 'u-v', email: 'v@example.com', name: 'Vi', roles: ['viewer'], provider: 'local', is_active: true, created_at: '2026-01-01T00:00:00Z' },
    );
    renderAt('/admin/groups', adminRoutes);
    expect(await screen.findByRole('alert')).toHaveTextContent('Only admins can see this');
    expect(screen.queryByRole('navigation', { name: 'Admin' })).not.toBeInTheDocument();
  });
});
