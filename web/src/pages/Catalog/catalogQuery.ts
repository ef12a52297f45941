import type { ListDatasetsData } from '../../api/gen/types.gen';

export type DatasetSort = NonNullable<NonNullable<ListDatasetsData['query']>['sort']>;

export const PAGE_SIZE = 20;
export const DEFAULT_SORT: DatasetSort = '-updated_at';

export const SORTS: { value: DatasetSort; label: string }[] = [
  { value: '-updated_at', label: 'Recently updated' },
  { value: 'updated_at', label: 'Least recently updated' },
  { value: 'name', label: 'Name, A to Z' },
  { value: '-name', label: 'Name, Z to A' },
  { value: '-created_at', label: 'Newest first' },
  { value: 'created_at', label: 'Oldest first' },
];

/** The catalog's place, as kept in the URL's query string. */
export interface CatalogFilters {
  q: string;
  tag: string;
  owner: string;
  sort: DatasetSort;
  offset: number;
}

export function readFilters(params: URLSearchParams): CatalogFilters {
  const sort = params.get('sort') as DatasetSort | null;
  const offset = Number(params.get('offset') ?? 0);
  return {
    q: params.get('q') ?? '',
    tag: params.get('tag') ?? '',
    owner: params.get('owner') ?? '',
    sort: sort && SORTS.some((s) => s.value === sort) ? sort : DEFAULT_SORT,
    offset: Number.isInteger(offset) && offset > 0 ? offset : 0,
  };
}

/** The query string for a place: defaults left out, so the plain catalog is plain /app/. */
export function writeFilters(filters: CatalogFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.q) params.set('q', filters.q);
  if (filters.tag) params.set('tag', filters.tag);
  if (filters.owner) params.set('owner', filters.owner);
  if (filters.sort !== DEFAULT_SORT) params.set('sort', filters.sort);
  if (filters.offset > 0) params.set('offset', String(filters.offset));
  return params;
}

/** The list request's query for a place. */
export function listQuery(filters: CatalogFilters): NonNullable<ListDatasetsData['query']> {
  return {
    limit: PAGE_SIZE,
    offset: filters.offset,
    sort: filters.sort,
    ...(filters.q ? { q: filters.q } : {}),
    ...(filters.tag ? { tag: filters.tag } : {}),
    ...(filters.owner ? { owner: filters.owner } : {}),
  };
}

export function isFiltered(filters: CatalogFilters): boolean {
  return Boolean(filters.q || filters.tag || filters.owner);
}

/** The link to the catalog filtered by one tag (tags on cards are facets). */
export function tagHref(tag: string): string {
  return `/?${new URLSearchParams({ tag })}`;
}
