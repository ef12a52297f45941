import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import type { SearchResult } from '../../api/gen/types.gen';
import type { Call } from '../../components/catalog/testing';
import { json, mockApi, renderApp } from '../../components/catalog/testing';

const searches = (calls: Call[]) => calls.filter((call) => call.path === '/api/v1/search/');
const lastSearch = (calls: Call[]) => Object.fromEntries(searches(calls).at(-1)!.query);

function hit(overrides: Partial<SearchResult> = {}): SearchResult {
  return {
    type: 'dataset',
    id: 1,
    name: 'Weather',
    description: 'Daily weather in Oslo.',
    tags: ['climate'],
    owner_id: 'u-owner',
    owner: { id: 'u-owner', name: 'Olga Owner' },
    updated_at: '2026-01-03T10:00:00Z',
    visibility: 'internal',
    format: 'csv',
    size_bytes: 2048,
    rows: null,
    score: 1,
    highlights: {},
    matched_columns: [],
    ...overrides,
  };
}

const FACETS = {
  type: [{ value: 'dataset', count: 2 }, { value: 'pipeline', count: 1 }],
  tags: [{ value: 'climate', count: 2 }],
  owner: [{ value: 'u-owner', name: 'Olga Owner', count: 3 }],
  format: [{ value: 'csv', count: 2 }],
  visibility: [{ value: 'internal', count: 3 }],
};

const SUGGESTIONS = [
  { type: 'dataset', id: 7, name: 'Weather daily', kind: 'dataset' },
  // A tag's or a column's dataset is not where choosing it goes: they search.
  { type: 'dataset', id: 8, name: 'weather', kind: 'tag' },
  { type: 'dataset', id: 9, name: 'wind_speed', kind: 'column' },
];

function searchApi(items: SearchResult[] = [hit()], total = items.length) {
  return mockApi((call) => {
    if (call.path === '/api/v1/search/') {
      return json(200, { items, total, limit: 20, offset: Number(call.query.get('offset') ?? 0), facets: FACETS });
    }
    if (call.path === '/api/v1/search/suggest') return json(200, { items: SUGGESTIONS });
    if (call.path === '/api/v1/datasets/7') return json(404, { detail: 'Dataset not found' });
    return undefined;
  });
}

const box = () => screen.getByRole('combobox', { name: 'Search the catalog' });

describe('the catalog search', () => {
  it('asks the service for the place in the URL and shows the results as cards', async () => {
    const calls = searchApi([hit(), hit({ type: 'pipeline', id: 4, name: 'Daily means', format: null, size_bytes: null, tags: [] })], 45);
    renderApp('/?q=wea&type=dataset,pipeline&tag=climate&owner=u-owner&format=csv&visibility=internal&sort=name&page=2');
    const list = await screen.findByRole('list', { name: 'Results' });
    expect(lastSearch(calls)).toEqual({
      q: 'wea',
      type: 'dataset,pipeline',
      tag: 'climate',
      owner: 'u-owner',
      format: 'csv',
      visibility: 'internal',
      sort: 'name',
      offset: '20',
      limit: '20',
    });
    const [dataset, pipeline] = within(list).getAllByRole('listitem').filter((item) => item.classList.contains('card'));
    expect(within(dataset).getByRole('link', { name: 'Weather' })).toHaveAttribute('href', '/datasets/1');
    expect(dataset).toHaveTextContent('Dataset');
    expect(dataset).toHaveTextContent('Olga Owner');
    expect(dataset).toHaveTextContent('CSV');
    expect(dataset).toHaveTextContent('2.0 KB');
    expect(within(pipeline).getByRole('link', { name: 'Daily means' })).toHaveAttribute('href', '/pipelines/4');
    expect(pipeline).toHaveTextContent('Pipeline');
    expect(screen.getByText('21–40 of 45')).toBeInTheDocument();
    expect(box()).toHaveValue('wea');
  });

  it('without words: everything, newest first, and no "best match" to sort by', async () => {
    const calls = searchApi();
    renderApp('/');
    await screen.findByRole('list', { name: 'Results' });
    expect(lastSearch(calls)).toEqual({ sort: '-updated_at', offset: '0', limit: '20' });
    const sort = screen.getByRole('combobox', { name: 'Sort by' });
    expect(within(sort).queryByRole('option', { name: 'Best match' })).not.toBeInTheDocument();
  });

  it('shows highlights as text: marked matches, and markup in the data as its letters', async () => {
    searchApi([
      hit({
        highlights: {
          name: '<mark>Weat</mark>her &amp; wind',
          description: '**Before** &lt;script&gt;alert(1)&lt;/script&gt; and <mark>weather</mark> &quot;quoted&quot; it&#x27;s',
          // Never HTML: even a tag the service would have escaped stays letters.
          readme: 'the <mark>weather</mark> <b>station</b>',
        },
        matched_columns: [{ name: 'sky', value: 'weathered' }, { name: 'weather_code' }],
      }),
    ]);
    renderApp('/?q=weat');
    const list = await screen.findByRole('list', { name: 'Results' });
    const card = within(list).getAllByRole('listitem')[0];
    expect(within(card).getByRole('link', { name: 'Weather & wind' })).toBeInTheDocument();
    expect(card).toHaveTextContent('Before <script>alert(1)</script> and weather "quoted" it\'s');
    expect(card.querySelector('script')).toBeNull();
    const marks = [...card.querySelectorAll('mark')].map((mark) => mark.textContent);
    expect(marks).toEqual(['Weat', 'weather', 'weather']);
    expect(card).toHaveTextContent('README: the weather <b>station</b>');
    expect(card.querySelector('b')).toBeNull();
    const columns = within(card).getByRole('list', { name: 'Matching columns' });
    expect(within(columns).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['sky: weathered', 'weather_code']);
  });

  it('suggests as one types; arrows, Enter and Escape work the list', async () => {
    const calls = searchApi();
    const { router } = renderApp('/');
    await screen.findByRole('list', { name: 'Results' });
    const user = userEvent.setup();
    await user.type(box(), 'wea');
    const listbox = await screen.findByRole('listbox', { name: 'Suggestions' });
    expect(box()).toHaveAttribute('aria-expanded', 'true');
    expect(box()).toHaveAttribute('aria-controls', listbox.id);
    // One request for the settled word, not one per letter.
    expect(calls.filter((call) => call.path === '/api/v1/search/suggest').map((call) => call.query.get('q'))).toEqual(['wea']);
    const options = within(listbox).getAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual(['Weather daily Dataset', 'weather Tag', 'wind_speed Column']);

    await user.keyboard('{ArrowDown}');
    expect(box()).toHaveAttribute('aria-activedescendant', options[0].id);
    expect(options[0]).toHaveAttribute('aria-selected', 'true');
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}');
    expect(box()).toHaveAttribute('aria-activedescendant', options[0].id);
    await user.keyboard('{ArrowUp}');
    expect(box()).toHaveAttribute('aria-activedescendant', options[2].id);

    await user.keyboard('{Escape}');
    expect(box()).toHaveAttribute('aria-expanded', 'false');
    expect(box()).not.toHaveAttribute('aria-activedescendant');
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument();

    // A column searches for it.
    await user.keyboard('{ArrowDown}');
    await screen.findByRole('listbox');
    await user.keyboard('{ArrowUp}{Enter}');
    await waitFor(() => expect(router.state.location.search).toBe('?q=wind_speed'));
    expect(box()).toHaveValue('wind_speed');
    await waitFor(() => expect(lastSearch(calls).q).toBe('wind_speed'));
  });

  it('a suggested tag filters by it; a suggested dataset opens its page', async () => {
    const calls = searchApi();
    const { router } = renderApp('/');
    await screen.findByRole('list', { name: 'Results' });
    const user = userEvent.setup();
    await user.type(box(), 'wea');
    await screen.findByRole('listbox');
    await user.keyboard('{ArrowDown}{ArrowDown}{Enter}');
    await waitFor(() => expect(router.state.location.search).toBe('?tag=weather'));
    await waitFor(() => expect(lastSearch(calls).tag).toBe('weather'));
    expect(box()).toHaveValue('');

    await user.type(box(), 'wea');
    await user.click(await screen.findByRole('option', { name: /Weather daily/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/datasets/7'));
  });

  it('Enter without a chosen suggestion searches the words typed', async () => {
    const calls = searchApi();
    const { router } = renderApp('/?page=3');
    await screen.findByRole('list', { name: 'Results' });
    const user = userEvent.setup();
    await user.type(box(), '"daily rain" -snow{Enter}');
    await waitFor(() => expect(router.state.location.search).toBe(`?${new URLSearchParams({ q: '"daily rain" -snow' })}`));
    await waitFor(() => expect(lastSearch(calls)).toEqual({ q: '"daily rain" -snow', sort: 'relevance', offset: '0', limit: '20' }));
  });

  it('facets are filters with counts whose choices go in the URL', async () => {
    const calls = searchApi();
    const { router } = renderApp('/?q=wea&page=2');
    await screen.findByRole('list', { name: 'Results' });
    const types = screen.getByRole('group', { name: 'Type' });
    await userEvent.click(within(types).getByRole('checkbox', { name: 'Dataset (2)' }));
    await waitFor(() => expect(router.state.location.search).toBe('?q=wea&type=dataset'));
    await userEvent.click(within(types).getByRole('checkbox', { name: 'Pipeline (1)' }));
    await waitFor(() => expect(lastSearch(calls).type).toBe('dataset,pipeline'));
    await userEvent.click(within(types).getByRole('checkbox', { name: 'Dataset (2)' }));
    await waitFor(() => expect(router.state.location.search).toBe('?q=wea&type=pipeline'));

    const tags = screen.getByRole('group', { name: 'Tag' });
    await userEvent.click(within(tags).getByRole('radio', { name: 'climate (2)' }));
    await waitFor(() => expect(lastSearch(calls).tag).toBe('climate'));
    const owners = screen.getByRole('group', { name: 'Owner' });
    await userEvent.click(await within(owners).findByRole('radio', { name: 'Olga Owner (3)' }));
    await waitFor(() => expect(lastSearch(calls).owner).toBe('u-owner'));
    await userEvent.click(within(screen.getByRole('group', { name: 'Format' })).getByRole('radio', { name: 'CSV (2)' }));
    await userEvent.click(within(screen.getByRole('group', { name: 'Visibility' })).getByRole('radio', { name: 'Internal (3)' }));
    await waitFor(() => expect(router.state.location.search).toBe('?q=wea&type=pipeline&tag=climate&owner=u-owner&format=csv&visibility=internal'));
    await userEvent.click(within(tags).getByRole('radio', { name: 'Any' }));
    await waitFor(() => expect(lastSearch(calls).tag).toBeUndefined());

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Sort by' }), 'Most used');
    await waitFor(() => expect(lastSearch(calls).sort).toBe('popular'));
  });

  it('pages with the pager, the page in the URL', async () => {
    const calls = searchApi(Array.from({ length: 20 }, (_, i) => hit({ id: i + 1, name: `Set ${i + 1}` })), 45);
    const { router } = renderApp('/?q=set');
    await screen.findByRole('list', { name: 'Results' });
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(router.state.location.search).toBe('?q=set&page=2'));
    await waitFor(() => expect(lastSearch(calls).offset).toBe('20'));
    act(() => void router.navigate(-1));
    await waitFor(() => expect(lastSearch(calls).offset).toBe('0'));
  });

  it('no match says what to try and clears everything', async () => {
    const calls = searchApi([]);
    const { router } = renderApp('/?q=zzz&type=dataset');
    expect(await screen.findByText('No datasets match “zzz”.')).toBeInTheDocument();
    expect(screen.getByText(/Try fewer words/)).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Clear the search and filters' }));
    await waitFor(() => expect(lastSearch(calls)).toEqual({ sort: '-updated_at', offset: '0', limit: '20' }));
    expect(router.state.location.search).toBe('');
  });

  it('says there is nothing yet, with a way to make a dataset', async () => {
    searchApi([]);
    renderApp('/');
    expect(await screen.findByText('There are no datasets yet.')).toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: 'New dataset' }).at(-1)).toHaveAttribute('href', '/datasets/new');
  });
});
