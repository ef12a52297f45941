import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { DATASET, FakeXhr, mockApi, page, renderTab } from './testing';
import type { Handler } from './testing';
import { VersionsTab } from './VersionsTab';

const VERSIONS = [
  { version: 2, created_at: '2026-01-02T00:00:00Z', created_by: 'u-owner', run_id: null, message: 'More cities', pinned: false, filename: 'cities.csv', size_bytes: 2048, format: 'csv', sha256: 'b', content_type: 'text/csv' },
  { version: 1, created_at: '2026-01-01T00:00:00Z', created_by: null, run_id: 12, message: null, pinned: true, filename: 'cities.csv', size_bytes: 1024, format: 'csv', sha256: 'a', content_type: 'text/csv' },
];

const api: Handler = (call) => {
  if (call.path === '/api/v1/datasets/7/versions') return [200, page(VERSIONS)];
  if (call.path === '/api/v1/users/directory/') {
    return [200, page([{ id: 'u-owner', name: 'Olga Owner', email: 'olga@example.com' }])];
  }
  return undefined;
};

function row(number: number): HTMLElement {
  return screen.getByRole('rowheader', { name: new RegExp(`^${number}(?!\\d)`) }).closest('tr')!;
}

describe('the Versions tab', () => {
  beforeEach(() => vi.stubGlobal('XMLHttpRequest', FakeXhr));
  afterEach(() => vi.unstubAllGlobals());

  it('lists versions with who made them and the actions a manager may take', async () => {
    mockApi(api);
    renderTab(<VersionsTab />, DATASET, '/datasets/7/versions');
    expect(await screen.findByText('Upload by Olga Owner')).toBeInTheDocument();
    expect(within(row(2)).getByText('current')).toBeInTheDocument();
    expect(within(row(2)).getByText('More cities')).toBeInTheDocument();
    expect(within(row(1)).getByText('pinned')).toBeInTheDocument();
    expect(within(row(1)).getByText('Pipeline run #12')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Unpin version 1' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Restore version 1' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Restore version 2' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete version 1' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Upload' })).toBeInTheDocument();
  });

  it('offers a reader only downloads', async () => {
    mockApi(api);
    renderTab(<VersionsTab />, { ...DATASET, capabilities: { write: false, manage: false } }, '/datasets/7/versions');
    expect(await screen.findByRole('button', { name: 'Download version 1' })).toBeInTheDocument();
    for (const name of ['Pin version 2', 'Unpin version 1', 'Restore version 1', 'Delete version 1', 'Upload']) {
      expect(screen.queryByRole('button', { name })).not.toBeInTheDocument();
    }
  });

  it('a writer who does not manage may pin and restore but not delete', async () => {
    mockApi(api);
    renderTab(<VersionsTab />, { ...DATASET, capabilities: { write: true, manage: false } }, '/datasets/7/versions');
    expect(await screen.findByRole('button', { name: 'Pin version 2' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Restore version 1' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete version 1' })).not.toBeInTheDocument();
  });

  it('shows the upload progress and cancels it', async () => {
    mockApi(api);
    const user = userEvent.setup();
    renderTab(<VersionsTab />, DATASET, '/datasets/7/versions');
    await user.upload(screen.getByLabelText('File'), new File(['id\n1\n'], 'next.csv', { type: 'text/csv' }));
    await user.type(screen.getByLabelText('Message'), 'Fresh rows');
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    const xhr = FakeXhr.last!;
    expect(xhr.method).toBe('PUT');
    expect(xhr.url).toBe('/api/v1/datasets/7/file?filename=next.csv&message=Fresh+rows');
    act(() => xhr.progress(40, 100));
    const bar = screen.getByRole('progressbar', { name: /Sending next.csv: 40%/ });
    expect(bar).toHaveAttribute('value', '0.4');
    await user.click(screen.getByRole('button', { name: 'Cancel upload' }));
    expect(xhr.aborted).toBe(true);
    expect(await screen.findByText('Upload cancelled: nothing was stored.')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('says which version an upload made and lists the versions again', async () => {
    const calls = mockApi(api);
    const user = userEvent.setup();
    renderTab(<VersionsTab />, DATASET, '/datasets/7/versions');
    await screen.findByText('More cities');
    const before = calls.filter((call) => call.path.endsWith('/versions')).length;
    await user.upload(screen.getByLabelText('File'), new File(['id\n1\n'], 'next.csv', { type: 'text/csv' }));
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    act(() => FakeXhr.last!.respond(200, { ...DATASET, current_version: 3 }));
    expect(await screen.findByText('Uploaded next.csv as version 3.')).toBeInTheDocument();
    await waitFor(() => expect(calls.filter((call) => call.path.endsWith('/versions')).length).toBe(before + 1));
  });

  it('shows a refused upload in place, a 422 at its field', async () => {
    mockApi(api);
    const user = userEvent.setup();
    renderTab(<VersionsTab />, DATASET, '/datasets/7/versions');
    const file = new File(['id\n1\n'], 'next.csv', { type: 'text/csv' });
    await user.upload(screen.getByLabelText('File'), file);
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    act(() => FakeXhr.last!.respond(413, { detail: 'File too large' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('File too large');
    await user.type(screen.getByLabelText('Message'), 'x');
    await user.click(screen.getByRole('button', { name: 'Upload' }));
    act(() =>
      FakeXhr.last!.respond(422, { detail: [{ loc: ['query', 'message'], msg: 'Longer than 255 characters.', type: 'x' }] }),
    );
    expect(await screen.findByText('Longer than 255 characters.')).toBeInTheDocument();
    expect(screen.getByLabelText('Message')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows a refused delete in the confirmation dialog', async () => {
    const calls = mockApi((call) =>
      call.method === 'DELETE' ? [409, { detail: 'Version is used by a run' }] : api(call),
    );
    const user = userEvent.setup();
    renderTab(<VersionsTab />, DATASET, '/datasets/7/versions');
    await user.click(await screen.findByRole('button', { name: 'Delete version 1' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete version 1?' });
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(within(dialog).getByRole('button', { name: 'Delete version' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Version is used by a run');
    expect(calls.some((call) => call.method === 'DELETE' && call.path === '/api/v1/datasets/7/versions/1')).toBe(true);
  });

  it('goes to the diff of the two versions chosen', async () => {
    mockApi(api);
    const user = userEvent.setup();
    const router = renderTab(<VersionsTab />, DATASET, '/datasets/7/versions');
    await user.selectOptions(await screen.findByLabelText('From version'), '1');
    await user.selectOptions(screen.getByLabelText('To version'), '2');
    await user.click(screen.getByRole('button', { name: 'Compare' }));
    expect(router.state.location.pathname).toBe('/datasets/7/versions/compare');
    expect(router.state.location.search).toBe('?from=1&to=2');
  });
});
