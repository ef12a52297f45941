import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { fakeService, renderAt } from '../../components/admin/testing';
import type { Routes } from '../../components/admin/testing';
import { accountRoutes } from './routes';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

function session(id: string, agent: string, current: boolean) {
  return {
    id,
    user_agent: agent,
    client_address: '127.0.0.1',
    created_at: '2026-11-01T10:00:00Z',
    last_used_at: '2026-11-02T10:00:00Z',
    expires_at: '2026-12-01T10:00:00Z',
    current,
  };
}

function account(extra: Routes = {}) {
  return fakeService({
    'GET /api/v1/auth/sessions': {
      body: { items: [session('s-other', FIREFOX, false), session('s-this', CHROME, true)], total: 2, limit: 20, offset: 0 },
    },
    'GET /api/v1/auth/me/usage': {
      body: { storage_bytes: 2048, datasets: 2, queued_runs: 0, limits: { storage_bytes: 4096, datasets: null, queued_runs: 5 } },
    },
    ...extra,
  });
}

describe('my account', () => {
  it('lists the sessions with this one marked, and ends another after a confirmation', async () => {
    const calls = account({ 'DELETE /api/v1/auth/sessions/s-other': { status: 204 } });
    renderAt('/account', accountRoutes);
    const items = await screen.findAllByRole('listitem');
    const current = items.find((item) => within(item).queryByText('This session'));
    expect(current).toHaveTextContent('Chrome on Linux');
    const other = items.find((item) => item.textContent?.includes('Firefox on Windows'));
    expect(other).toBeDefined();
    expect(within(other!).queryByText('This session')).not.toBeInTheDocument();
    expect(within(current!).queryByRole('button', { name: /^End/ })).not.toBeInTheDocument();

    await userEvent.click(within(other!).getByRole('button', { name: 'End the session on Firefox on Windows' }));
    const dialog = screen.getByRole('dialog', { name: 'End the session on Firefox on Windows?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'End session' }));
    await waitFor(() => expect(calls.some((call) => call.method === 'DELETE')).toBe(true));
  });

  it('shows who I am and my usage in words next to the bars', async () => {
    account();
    renderAt('/account', accountRoutes);
    expect(await screen.findByText('ada@example.com')).toBeInTheDocument();
    expect(await screen.findByText('2.0 KB of 4.0 KB (50%)')).toBeInTheDocument();
    expect(screen.getByLabelText('Storage')).toHaveAttribute('aria-valuetext', '2.0 KB of 4.0 KB (50%)');
    expect(screen.getByText('2 (no limit)')).toBeInTheDocument();
  });
});

describe('change password', () => {
  it('says at the field when the two new passwords differ, and sends nothing', async () => {
    const calls = account();
    renderAt('/account', accountRoutes);
    await userEvent.type(await screen.findByLabelText('Current password'), 'old password');
    await userEvent.type(screen.getByLabelText('New password'), 'new password 1');
    await userEvent.type(screen.getByLabelText('New password again'), 'new password 2');
    await userEvent.click(screen.getByRole('button', { name: 'Change password' }));
    const again = screen.getByLabelText('New password again');
    expect(again).toHaveAttribute('aria-invalid', 'true');
    expect(again).toHaveAccessibleDescription('The two new passwords are not the same.');
    expect(calls.some((call) => call.path === '/api/v1/auth/me/password')).toBe(false);
  });

  it("shows the service's 422 at the field it is about", async () => {
    account({
      'PUT /api/v1/auth/me/password': {
        status: 422,
        body: { detail: [{ loc: ['body', 'current_password'], msg: 'current password is incorrect', type: 'value_error.password.incorrect' }] },
      },
    });
    renderAt('/account', accountRoutes);
    await userEvent.type(await screen.findByLabelText('Current password'), 'wrong');
    await userEvent.type(screen.getByLabelText('New password'), 'a new password');
    await userEvent.type(screen.getByLabelText('New password again'), 'a new password');
    await userEvent.click(screen.getByRole('button', { name: 'Change password' }));
    await waitFor(() =>
      expect(screen.getByLabelText('Current password')).toHaveAccessibleDescription('current password is incorrect'),
    );
    expect(screen.getByLabelText('New password')).not.toHaveAttribute('aria-invalid');
  });

  it('says the password changed and that the other sessions ended', async () => {
    const calls = account({ 'PUT /api/v1/auth/me/password': { body: { access_token: 'new', token_type: 'bearer' } } });
    renderAt('/account', accountRoutes);
    await userEvent.type(await screen.findByLabelText('Current password'), 'old password');
    await userEvent.type(screen.getByLabelText('New password'), 'a new password');
    await userEvent.type(screen.getByLabelText('New password again'), 'a new password');
    await userEvent.click(screen.getByRole('button', { name: 'Change password' }));
    expect(await screen.findByText(/Every other session of yours has ended/)).toBeInTheDocument();
    const put = calls.find((call) => call.path === '/api/v1/auth/me/password');
    expect(put?.body).toEqual({ current_password: 'old password', new_password: 'a new password' });
    expect(screen.getByLabelText('Current password')).toHaveValue('');
  });
});
