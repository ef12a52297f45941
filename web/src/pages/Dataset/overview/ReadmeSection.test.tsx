import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import type { Call } from '../../../components/catalog/testing';
import { json, makeDataset, mockApi, page, renderApp } from '../../../components/catalog/testing';

function overviewApi({ write = true, readme = '# Sources\n\nFrom the **met office**.<script>alert(1)</script>', refuse = false } = {}) {
  let current = readme;
  const calls: Call[] = mockApi((call) => {
    if (call.path === '/api/v1/datasets/1' && call.method === 'PATCH') {
      if (refuse) return json(422, { detail: [{ loc: ['json', 'readme'], msg: 'Longer than 100 KB.', type: 'validation' }] });
      current = (call.body as { readme: string }).readme;
      return json(200, { ...makeDataset(), readme: current });
    }
    if (call.path === '/api/v1/datasets/1') {
      return json(200, { ...makeDataset({ capabilities: { write, manage: write } }), readme: current, stats: { views_30d: 1234, downloads_30d: 56 } });
    }
    if (call.path === '/api/v1/users/directory/') return json(200, page([]));
    if (call.path === '/api/v1/pipelines/') return json(200, page([]));
    return undefined;
  });
  return calls;
}

const readme = () => screen.getByRole('region', { name: 'README' });

describe('the README on the Overview', () => {
  it('is rendered sanitised, with the use in the last 30 days', async () => {
    overviewApi({ write: false });
    renderApp('/datasets/1');
    await screen.findByRole('heading', { level: 2, name: 'README' });
    // Under the tab's h2: the README's "#" is an h3.
    expect(await within(readme()).findByRole('heading', { level: 3, name: 'Sources' })).toBeInTheDocument();
    expect(within(readme()).getByText('met office').tagName).toBe('STRONG');
    expect(readme().querySelector('script')).toBeNull();
    expect(within(readme()).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.getByText('Views, last 30 days').nextElementSibling).toHaveTextContent('1,234');
    expect(screen.getByText('Downloads, last 30 days').nextElementSibling).toHaveTextContent('56');
  });

  it('a writer edits it, previews it and saves it', async () => {
    const calls = overviewApi({ readme: '' });
    renderApp('/datasets/1');
    await screen.findByRole('heading', { level: 2, name: 'README' });
    expect(within(readme()).getByText('No README yet.')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(readme()).getByRole('button', { name: 'Write a README' }));
    await user.type(screen.getByRole('textbox', { name: 'README' }), '## Method{Enter}{Enter}Measured *daily*.');
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    expect(screen.getByRole('button', { name: 'Preview' })).toHaveAttribute('aria-pressed', 'true');
    const preview = screen.getByRole('region', { name: 'README preview' });
    expect(await within(preview).findByRole('heading', { level: 4, name: 'Method' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Preview' }));
    expect(screen.getByRole('textbox', { name: 'README' })).toHaveValue('## Method\n\nMeasured *daily*.');

    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.find((call) => call.method === 'PATCH')?.body).toEqual({ readme: '## Method\n\nMeasured *daily*.' }));
    expect(await within(readme()).findByRole('heading', { level: 4, name: 'Method' })).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'README' })).not.toBeInTheDocument();
    expect(within(readme()).getByRole('button', { name: 'Edit the README' })).toBeInTheDocument();
  });

  it('a refused save shows the problem at the field and keeps what was typed', async () => {
    overviewApi({ readme: 'Old.', refuse: true });
    renderApp('/datasets/1');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit the README' }));
    const box = screen.getByRole('textbox', { name: 'README' });
    await user.clear(box);
    await user.type(box, 'Much more text');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Longer than 100 KB.')).toBeInTheDocument();
    expect(box).toHaveAttribute('aria-invalid', 'true');
    expect(box).toHaveAccessibleDescription(expect.stringContaining('Longer than 100 KB.'));
    expect(box).toHaveValue('Much more text');

    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('textbox', { name: 'README' })).not.toBeInTheDocument();
    expect(within(readme()).getByText('Old.')).toBeInTheDocument();
  });
});
