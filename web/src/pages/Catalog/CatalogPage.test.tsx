import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import type { Call } from '../../components/catalog/testing';
import { json, makeDataset, mockApi, page, renderApp } from '../../components/catalog/testing';

const lists = (calls: Call[]) => calls.filter((call) => call.path === '/api/v1/datasets/');
const lastList = (calls: Call[]) => Object.fromEntries(lists(calls).at(-1)!.query);

function catalogApi(datasets = [makeDataset(), makeDataset({ id: 2, name: 'Rain', tags: ['climate', 'water'], owner_id: 'u-two', file: null })], total = datasets.length) {
  return mockApi((call) => {
    if (call.path === '/api/v1/datasets/') return json(200, page(datasets, total, 20, Number(call.query.get('offset') ?? 0)));
    if (call.path === '/api/v1/users/directory/') {
      return json(200, page([{ id: 'u-owner', name: 'Olga Owner', email: 'o@example.com' }, { id: 'u-two', name: 'Tom Two', email: 't@example.com' }]));
    }
    return undefined;
  });
}

describe('the catalog', () => {
  it('asks the server for the place in the URL and shows the cards', async () => {
    const calls = catalogApi([makeDataset()], 45);
    renderApp('/?q=wea&tag=climate&owner=u-owner&sort=name&offset=20');
    const list = await screen.findByRole('list', { name: 'Datasets' });
    expect(lastList(calls)).toEqual({ q: 'wea', tag: 'climate', owner: 'u-owner', sort: 'name', offset: '20', limit: '20' });
    const card = within(list).getAllByRole('listitem')[0];
    expect(within(card).getByRole('link', { name: 'Weather' })).toHaveAttribute('href', '/datasets/1');
    expect(card).toHaveTextContent('Daily weather in Oslo.');
    expect(card).toHaveTextContent('CSV');
    expect(card).toHaveTextContent('2.0 KB');
    await waitFor(() => expect(card).toHaveTextContent('Olga Owner'));
    // One directory request for the whole page.
    expect(calls.filter((call) => call.path === '/api/v1/users/directory/')).toHaveLength(1);
    expect(screen.getByText('21–40 of 45')).toBeInTheDocument();
  });

  it('keeps search, sort and paging in the URL, back to the first page on a new filter', async () => {
    const calls = catalogApi(Array.from({ length: 20 }, (_, i) => makeDataset({ id: i + 1, name: `Set ${i + 1}` })), 45);
    const { router } = renderApp('/');
    await screen.findByRole('list', { name: 'Datasets' });
    expect(lastList(calls)).toEqual({ sort: '-updated_at', offset: '0', limit: '20' });

    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(lastList(calls).offset).toBe('20'));
    expect(router.state.location.search).toBe('?offset=20');

    await userEvent.type(screen.getByRole('searchbox', { name: 'Search by name' }), 'rain');
    await userEvent.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(lastList(calls)).toEqual({ q: 'rain', sort: '-updated_at', offset: '0', limit: '20' }));

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), 'Name, A to Z');
    await waitFor(() => expect(lastList(calls).sort).toBe('name'));
    expect(router.state.location.search).toBe('?q=rain&sort=name');

    await userEvent.click(screen.getByRole('button', { name: 'Mine' }));
    await waitFor(() => expect(lastList(calls).owner).toBe('me'));
  });

  it('filters by a tag when its link on a card is followed', async () => {
    const calls = catalogApi();
    const { router } = renderApp('/');
    await userEvent.click(await screen.findByRole('link', { name: /Tag water/ }));
    await waitFor(() => expect(lastList(calls).tag).toBe('water'));
    expect(router.state.location.search).toBe('?tag=water');
    expect(screen.getByRole('textbox', { name: 'Tag' })).toHaveValue('water');
  });

  it('says there are no datasets yet, with a way to make one', async () => {
    catalogApi([]);
    renderApp('/');
    expect(await screen.findByText('There are no datasets yet.')).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'New dataset' }).at(-1)).toHaveAttribute('href', '/datasets/new');
    expect(screen.queryByRole('button', { name: 'Clear filters' })).not.toBeInTheDocument();
  });

  it('says nothing matches a filter, and clears the filters', async () => {
    const calls = catalogApi([]);
    const { router } = renderApp('/?q=zzz&tag=none');
    expect(await screen.findByText('No dataset matches these filters.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() => expect(lastList(calls)).toEqual({ sort: '-updated_at', offset: '0', limit: '20' }));
    expect(router.state.location.search).toBe('');
  });
});
