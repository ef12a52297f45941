import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';

import { listCollectionsOptions } from '../../api/gen/@tanstack/react-query.gen';
import type { ListCollectionsData } from '../../api/gen/types.gen';
import { useSession } from '../../app/session';
import { formatAgo, formatDate } from '../../components/format';
import { Pager } from '../../components/Pager';
import { QueryState } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import './Collections.css';

const LIMIT = 20;
type Sort = NonNullable<NonNullable<ListCollectionsData['query']>['sort']>;
const SORTS: { value: Sort; label: string }[] = [
  { value: '-updated_at', label: 'Recently updated' },
  { value: 'name', label: 'Name' },
  { value: '-created_at', label: 'Newest' },
];

/** Collections the caller may read: search by name, sort, pages (all in the URL). */
export function CollectionsPage() {
  usePageTitle('Collections');
  const { mayCreate } = useSession();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const sort = (params.get('sort') as Sort | null) ?? '-updated_at';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const collections = useQuery({
    ...listCollectionsOptions({ query: { limit: LIMIT, offset, sort, ...(q ? { q } : {}) } }),
    placeholderData: keepPreviousData,
  });

  function change(next: Record<string, string>) {
    const merged = new URLSearchParams(params);
    Object.entries(next).forEach(([key, value]) => (value ? merged.set(key, value) : merged.delete(key)));
    if (!('offset' in next)) merged.delete('offset');
    setParams(merged);
  }

  function search(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    change({ q: String(new FormData(event.currentTarget).get('q') ?? '').trim() });
  }

  return (
    <>
      <div className="collections__top">
        <h1>Collections</h1>
        {mayCreate && (
          <Link className="button button--primary" to="/collections/new">
            New collection
          </Link>
        )}
      </div>
      <p className="muted">A collection groups datasets; removing one from it, or deleting it, never deletes a dataset.</p>
      <div className="collections__filters">
        <form role="search" onSubmit={search} className="collections__search">
          <label htmlFor="collections-q">Find a collection</label>
          <input id="collections-q" name="q" type="search" defaultValue={q} key={q} />
          <button type="submit" className="button">
            Search
          </button>
        </form>
        <div className="field">
          <label htmlFor="collections-sort">Sort by</label>
          <select id="collections-sort" value={sort} onChange={(event) => change({ sort: event.target.value })}>
            {SORTS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <QueryState
        isPending={collections.isPending}
        error={collections.error}
        empty={collections.data?.total === 0}
        emptyText={
          q ? (
            <p>
              No collection matches “{q}”.{' '}
              <button type="button" className="link-button" onClick={() => setParams({})}>
                Clear the search
              </button>
            </p>
          ) : (
            <p>No collections yet.{mayCreate && ' Make one to group the datasets that belong together.'}</p>
          )
        }
      >
        <ul className="card-list" aria-label="Collections">
          {collections.data?.items.map((collection) => (
            <li key={collection.id} className="card">
              <h2 className="collections__name">
                <Link to={`/collections/${collection.id}`}>{collection.name}</Link>
              </h2>
              {collection.description && <p className="collections__description">{collection.description}</p>}
              <p className="muted">
                {collection.dataset_ids.length} dataset{collection.dataset_ids.length === 1 ? '' : 's'} ·{' '}
                {collection.visibility} · updated{' '}
                <time dateTime={collection.updated_at} title={formatDate(collection.updated_at)}>
                  {formatAgo(collection.updated_at)}
                </time>
              </p>
            </li>
          ))}
        </ul>
        <Pager
          total={collections.data?.total ?? 0}
          limit={LIMIT}
          offset={offset}
          onOffset={(next) => change({ offset: next ? String(next) : '' })}
          label="Collection pages"
        />
      </QueryState>
    </>
  );
}
