import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { listDatasetsOptions } from '../../api/gen/@tanstack/react-query.gen';
import { useSession } from '../../app/session';
import { DatasetCard } from '../../components/catalog/DatasetCard';
import { ownerLabel, useUserNames } from '../../components/catalog/useUserNames';
import { Pager } from '../../components/Pager';
import { EmptyState, QueryState } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import './Catalog.css';
import type { CatalogFilters } from './catalogQuery';
import { isFiltered, listQuery, PAGE_SIZE, readFilters, SORTS, writeFilters } from './catalogQuery';
import { OwnerFilter } from './OwnerFilter';

/** The catalog (/app/): every dataset the caller may read, searched, filtered, sorted and
 *  paged by the server; the place is the URL's query string. */
export function CatalogPage() {
  usePageTitle('Catalog');
  const { mayCreate, me } = useSession();
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const datasets = useQuery({ ...listDatasetsOptions({ query: listQuery(filters) }), placeholderData: keepPreviousData });
  const items = datasets.data?.items ?? [];
  const names = useUserNames([...items.map((d) => d.owner_id), filters.owner !== 'me' ? filters.owner : null]);
  if (me) names.set(me.id, me.name || me.email);

  const go = (change: Partial<CatalogFilters>) => {
    const next = { ...filters, offset: 0, ...change };
    setParams(writeFilters(next));
  };

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
      <div className="catalog-layout">
        <div className="catalog-filters">
          <SearchForm filters={filters} onSearch={(q, tag) => go({ q, tag })} />
          <OwnerFilter owner={filters.owner} ownerName={ownerLabel(names, filters.owner)} onOwner={(owner) => go({ owner })} />
        </div>
        <section className="catalog-results" aria-labelledby="catalog-results-title">
          <div className="catalog-results__bar">
            <h2 id="catalog-results-title" className="catalog-results__count" aria-live="polite">
              {datasets.data ? `${datasets.data.total.toLocaleString()} dataset${datasets.data.total === 1 ? '' : 's'}` : 'Datasets'}
            </h2>
            <div className="field catalog-sort">
              <label htmlFor="catalog-sort">Sort by</label>
              <select id="catalog-sort" value={filters.sort} onChange={(event) => go({ sort: event.target.value as CatalogFilters['sort'] })}>
                {SORTS.map((sort) => (
                  <option key={sort.value} value={sort.value}>
                    {sort.label}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <QueryState isPending={datasets.isPending} error={datasets.error}>
            {items.length === 0 ? (
              <NoDatasets filtered={isFiltered(filters)} mayCreate={mayCreate} onClear={() => setParams(new URLSearchParams())} />
            ) : (
              <ul aria-label="Datasets" className="card-list">
                {items.map((dataset) => (
                  <DatasetCard key={dataset.id} dataset={dataset} owner={ownerLabel(names, dataset.owner_id)} />
                ))}
              </ul>
            )}
            <Pager
              total={datasets.data?.total ?? 0}
              limit={PAGE_SIZE}
              offset={filters.offset}
              onOffset={(offset) => go({ offset })}
              label="Dataset pages"
            />
          </QueryState>
        </section>
      </div>
    </>
  );
}

function SearchForm({ filters, onSearch }: { filters: CatalogFilters; onSearch: (q: string, tag: string) => void }) {
  const [q, setQ] = useState(filters.q);
  const [tag, setTag] = useState(filters.tag);
  // Back/forward and tag links change the URL: the boxes follow it.
  useEffect(() => setQ(filters.q), [filters.q]);
  useEffect(() => setTag(filters.tag), [filters.tag]);
  return (
    <form
      role="search"
      aria-label="Datasets"
      className="catalog-search"
      onSubmit={(event) => {
        event.preventDefault();
        onSearch(q.trim(), tag.trim());
      }}
    >
      <div className="field">
        <label htmlFor="catalog-q">Search by name</label>
        <input id="catalog-q" type="search" value={q} onChange={(event) => setQ(event.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="catalog-tag">Tag</label>
        <input id="catalog-tag" type="text" value={tag} onChange={(event) => setTag(event.target.value)} />
      </div>
      <button type="submit" className="button button--primary">
        Search
      </button>
    </form>
  );
}

function NoDatasets({ filtered, mayCreate, onClear }: { filtered: boolean; mayCreate: boolean; onClear: () => void }) {
  if (filtered) {
    return (
      <EmptyState>
        <p>No dataset matches these filters.</p>
        <button type="button" className="button" onClick={onClear}>
          Clear filters
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
