import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { Call } from '../../../components/catalog/testing';
import { json, makeDataset, mockApi, page, renderApp } from '../../../components/catalog/testing';

/** XMLHttpRequest for uploads: each answers with the next status of `answers`. */
let answers: number[] = [];
let uploads: string[] = [];

class FakeUpload {
  onprogress: ((event: { lengthComputable: boolean; loaded: number; total: number }) => void) | null = null;
}

class FakeXhr {
  upload = new FakeUpload();
  status = 0;
  responseText = '';
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  private url = '';
  open(_method: string, url: string) {
    this.url = url;
  }
  setRequestHeader() {}
  getResponseHeader() {
    return null;
  }
  abort() {
    this.onabort?.();
  }
  send() {
    uploads.push(this.url);
    const status = answers.shift() ?? 200;
    setTimeout(() => {
      this.upload.onprogress?.({ lengthComputable: true, loaded: 5, total: 10 });
      this.status = status;
      this.responseText = JSON.stringify(status === 200 ? makeDataset({ id: 7 }) : { detail: 'File too large' });
      this.onload?.();
    }, 10);
  }
}

function newDatasetApi(createStatus = 201) {
  return mockApi((call) => {
    if (call.path === '/api/v1/datasets/' && call.method === 'POST') {
      if (createStatus === 409) return json(409, { detail: 'Name already exists' });
      if (createStatus === 422) return json(422, { detail: [{ loc: ['body', 'tags', 0], msg: 'Too long.', type: 'value_error' }] });
      return json(201, makeDataset({ id: 7, name: (call.body as { name: string }).name, file: null, current_version: null }));
    }
    if (call.path === '/api/v1/datasets/7' && call.method === 'DELETE') return json(204, null);
    if (call.path === '/api/v1/datasets/7') return json(200, makeDataset({ id: 7, name: 'Fresh' }));
    if (call.path === '/api/v1/users/directory/') return json(200, page([]));
    if (call.path === '/api/v1/pipelines/') return json(200, page([]));
    return undefined;
  });
}

async function fillAndSubmit(withFile = true) {
  await userEvent.type(await screen.findByRole('textbox', { name: 'Name' }), 'Fresh');
  await userEvent.type(screen.getByRole('textbox', { name: 'Tags' }), 'a, b');
  if (withFile) await userEvent.upload(screen.getByLabelText('File'), new File(['x,y\n1,2\n'], 'fresh.csv', { type: 'text/csv' }));
  await userEvent.click(screen.getByRole('button', { name: withFile ? 'Create and upload' : 'Create' }));
}

const deletes = (calls: Call[]) => calls.filter((call) => call.method === 'DELETE');

describe('a new dataset', () => {
  beforeEach(() => {
    answers = [];
    uploads = [];
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
  });
  afterEach(() => vi.unstubAllGlobals());

  it('is created, its file uploaded, and its page opened', async () => {
    const calls = newDatasetApi();
    const { router } = renderApp('/datasets/new');
    await fillAndSubmit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/datasets/7'));
    expect(calls[0].body).toEqual({ name: 'Fresh', description: '', tags: ['a', 'b'], visibility: 'private' });
    expect(uploads).toEqual(['/api/v1/datasets/7/file?filename=fresh.csv&message=First+upload']);
  });

  it('offers the three choices after a failed upload: try again works', async () => {
    newDatasetApi();
    answers = [413, 200];
    const { router } = renderApp('/datasets/new');
    await fillAndSubmit();
    expect(await screen.findByRole('heading', { name: 'The upload failed' })).toBeInTheDocument();
    expect(screen.getByText(/File too large/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Keep the dataset without a file' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Try the upload again' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/datasets/7'));
    expect(uploads).toHaveLength(2);
  });

  it('deletes the dataset when the person chooses so, and keeps the form', async () => {
    const calls = newDatasetApi();
    answers = [500];
    const { router } = renderApp('/datasets/new');
    await fillAndSubmit();
    await userEvent.click(await screen.findByRole('button', { name: 'Delete the dataset' }));
    await waitFor(() => expect(deletes(calls)).toHaveLength(1));
    expect(deletes(calls)[0].path).toBe('/api/v1/datasets/7');
    expect(await screen.findByRole('button', { name: 'Create and upload' })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Name' })).toHaveValue('Fresh');
    expect(router.state.location.pathname).toBe('/datasets/new');
  });

  it('keeps the dataset without a file when chosen', async () => {
    const calls = newDatasetApi();
    answers = [503];
    const { router } = renderApp('/datasets/new');
    await fillAndSubmit();
    await userEvent.click(await screen.findByRole('button', { name: 'Keep the dataset without a file' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/datasets/7'));
    expect(deletes(calls)).toHaveLength(0);
  });

  it('shows a taken name (409) at the name field', async () => {
    newDatasetApi(409);
    renderApp('/datasets/new');
    await fillAndSubmit(false);
    expect(await screen.findByRole('textbox', { name: 'Name' })).toHaveAccessibleDescription(/Name already exists/);
  });
});
