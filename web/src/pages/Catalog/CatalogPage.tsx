import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { searchOptions } from '../../api/gen/@tanstack/react-query.gen';
import { useSession } from '../../app/session';
import { useUserNames } from '../../components/catalog/useUserNames';
import { Pager } from '../../components/Pager';
import { EmptyState, QueryState } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import './Catalog.css';
import type { CatalogFilters } from './catalogQuery';
import { effectiveSort, isFiltered, kindsInWords, PAGE_SIZE, readFilters, searchQuery, SORTS, writeFilters } from './catalogQuery';
import { Facets } from './Facets';
import { SearchBox } from './SearchBox';
import { SearchResultCard } from './SearchResultCard';

/** The catalog (/app/): the datasets, collections and pipelines the caller may read,
 *  searched, faceted, sorted and paged by the server; the place is the URL's query string. */
export function CatalogPage() {
  usePageTitle('Catalog');
  const { mayCreate, me } = useSession();
  const [params, setParams] = useSearchParams();
  // The router changes the URL in a transition: until it has, controls show the choice
  // just made (a checkbox that flicked back would say it was not taken).
  const [choosing, setChoosing] = useState<URLSearchParams | null>(null);
  useEffect(() => setChoosing(null), [params]);
  const filters = readFilters(choosing ?? params);
  const results = useQuery({ ...searchOptions({ query: searchQuery(filters) }), placeholderData: keepPreviousData });
  const items = results.data?.items ?? [];
  // Owners' names come with the facets; a chosen owner the facets no longer count is asked.
  const facetOwners = results.data?.facets.owner ?? [];
  const chosenOwner = filters.owner && filters.owner !== 'me' && !facetOwners.some((f) => f.value === filters.owner) ? filters.owner : null;
  const ownerNames = useUserNames([chosenOwner]);
  for (const facet of facetOwners) if (facet.name) ownerNames.set(facet.value, facet.name);
  if (me) ownerNames.set(me.id, me.name || me.email);

  const go = (change: Partial<CatalogFilters>) => {
    const next = writeFilters({ ...filters, page: 1, ...change });
    setChoosing(next);
    setParams(next);
  };
  const sort = effectiveSort(filters);
  const total = results.data?.total ?? 0;

  return (
    <>
      <div className="catalog-heading">
        <h1>Catalog</h1>
        {mayCreate && (
          <Link className="button button--primary" to="/datasets/new">
            New dataset
          </Link>
        )}
      </div>
      <SearchBox q={filters.q} onSearch={(q) => go({ q })} onTag={(tag) => go({ q: '', tag })} />
      <div className="catalog-layout">
        <section className="catalog-filters" aria-labelledby="catalog-filters-title">
          {/* Open beside the results; on a phone, folded above them until asked for. */}
          <details className="catalog-filters__fold" open={wideScreen()}>
            <summary>
              <h2 id="catalog-filters-title" className="catalog-filters__title">
                Filters
              </h2>
            </summary>
            <Facets
              facets={results.data?.facets}
              filters={filters}
              ownerNames={ownerNames}
              onTypes={(types) => go({ types })}
              onFacet={(facet, value) => go({ [facet]: value })}
            />
          </details>
        </section>
        <section className="catalog-results" aria-labelledby="catalog-results-title">
          <div className="catalog-results__bar">
            <h2 id="catalog-results-title" className="catalog-results__count" aria-live="polite">
              {results.data ? `${total.toLocaleString()} result${total === 1 ? '' : 's'}` : 'Results'}
            </h2>
            <div className="field catalog-sort">
              <label htmlFor="catalog-sort">Sort by</label>
              <select id="catalog-sort" value={sort} onChange={(event) => go({ sort: event.target.value as CatalogFilters['sort'] })}>
                {SORTS.filter((option) => option.value !== 'relevance' || filters.q).map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <QueryState isPending={results.isPending} error={results.error}>
            {items.length === 0 ? (
              <NoResults filters={filters} mayCreate={mayCreate} onClear={() => go({ q: '', types: [], tag: '', owner: '', format: '', visibility: '', sort: '' })} />
            ) : (
              <ul aria-label="Results" className="card-list">
                {items.map((hit) => (
                  <SearchResultCard key={`${hit.type}-${hit.id}`} hit={hit} />
                ))}
              </ul>
            )}
            <Pager total={total} limit={PAGE_SIZE} offset={(filters.page - 1) * PAGE_SIZE} onOffset={(offset) => go({ page: offset / PAGE_SIZE + 1 })} label="Result pages" />
          </QueryState>
        </section>
      </div>
    </>
  );
}

/** Whether the filters have room beside the results (the layout's breakpoint). */
function wideScreen(): boolean {
  return typeof window.matchMedia !== 'function' || window.matchMedia('(min-width: 48.01rem)').matches;
}

function NoResults({ filters, mayCreate, onClear }: { filters: CatalogFilters; mayCreate: boolean; onClear: () => void }) {
  if (isFiltered(filters)) {
    const faceted = filters.types.length > 0 || Boolean(filters.tag || filters.owner || filters.format || filters.visibility);
    return (
      <EmptyState>
        <p>
          {filters.q ? `No ${kindsInWords(filters.types)} match “${filters.q}”.` : `No ${kindsInWords(filters.types)} match these filters.`}
        </p>
        <p className="muted">
          {filters.q && 'Try fewer words, another spelling, or the start of a word. '}
          {faceted && 'Filters narrow the search: clearing them finds more.'}
        </p>
        <button type="button" className="button" onClick={onClear}>
          Clear the search and filters
        </button>
      </EmptyState>
    );
  }
  return (
    <EmptyState>
      <p>There are no datasets yet.</p>
      {mayCreate ? (
        <Link className="button button--primary" to="/datasets/new">
          New dataset
        </Link>
      ) : (
        <p className="muted">When someone shares a dataset with you, it appears here.</p>
      )}
    </EmptyState>
  );
}
