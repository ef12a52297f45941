import type { SearchData, SearchResult } from '../../api/gen/types.gen';

export type SearchKind = SearchResult['type'];
export type SearchQuery = NonNullable<SearchData['query']>;

export type SearchSort = NonNullable<SearchQuery['sort']>;

export const PAGE_SIZE = 20;

export const KINDS: { value: SearchKind; label: string; plural: string }[] = [
  { value: 'dataset', label: 'Dataset', plural: 'datasets' },
  { value: 'collection', label: 'Collection', plural: 'collections' },
  { value: 'pipeline', label: 'Pipeline', plural: 'pipelines' },
];

export const SORTS: { value: SearchSort; label: string }[] = [
  { value: 'relevance', label: 'Best match' },
  { value: '-updated_at', label: 'Recently updated' },
  { value: 'name', label: 'Name, A to Z' },
  { value: 'popular', label: 'Most used' },
];

/** The facets that filter by one value each (type is a set of kinds). */
export const SINGLE_FACETS = ['tag', 'owner', 'format', 'visibility'] as const;
export type SingleFacet = (typeof SINGLE_FACETS)[number];

/** The catalog's place, as kept in the URL's query string. */
export interface CatalogFilters {
  q: string;
  types: SearchKind[];
  tag: string;
  owner: string;
  format: string;
  visibility: string;
  /** The chosen order; '' is the default (best match with words, else newest first). */
  sort: SearchSort | '';
  page: number;
}

/** The order the results come in: relevance needs words to be relevant to. */
export function effectiveSort(filters: CatalogFilters): SearchSort {
  if (filters.sort === 'relevance' && !filters.q) return '-updated_at';
  return filters.sort || (filters.q ? 'relevance' : '-updated_at');
}

export function readFilters(params: URLSearchParams): CatalogFilters {
  const sort = params.get('sort');
  const page = Number(params.get('page') ?? 1);
  const types = (params.get('type') ?? '').split(',').filter((kind): kind is SearchKind => KINDS.some((k) => k.value === kind));
  return {
    q: params.get('q') ?? '',
    types: KINDS.map((kind) => kind.value).filter((kind) => types.includes(kind)),
    tag: params.get('tag') ?? '',
    owner: params.get('owner') ?? '',
    format: params.get('format') ?? '',
    visibility: params.get('visibility') ?? '',
    sort: SORTS.some((s) => s.value === sort) ? (sort as SearchSort) : '',
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

/** The query string for a place: defaults left out, so the plain catalog is plain /app/. */
export function writeFilters(filters: CatalogFilters): URLSearchParams {
  const params = new URLSearchParams();
  if (filters.q) params.set('q', filters.q);
  if (filters.types.length) params.set('type', filters.types.join(','));
  for (const facet of SINGLE_FACETS) if (filters[facet]) params.set(facet, filters[facet]);
  if (filters.sort) params.set('sort', filters.sort);
  if (filters.page > 1) params.set('page', String(filters.page));
  return params;
}

/** The search request's query for a place. */
export function searchQuery(filters: CatalogFilters): SearchQuery {
  const query: SearchQuery = { limit: PAGE_SIZE, offset: (filters.page - 1) * PAGE_SIZE, sort: effectiveSort(filters) };
  if (filters.q) query.q = filters.q;
  if (filters.types.length) query.type = filters.types.join(',');
  if (filters.tag) query.tag = filters.tag;
  if (filters.owner) query.owner = filters.owner;
  // Values the service does not know are its to refuse (a 422 said in words).
  if (filters.format) query.format = filters.format as SearchQuery['format'];
  if (filters.visibility) query.visibility = filters.visibility as SearchQuery['visibility'];
  return query;
}

export function isFiltered(filters: CatalogFilters): boolean {
  return Boolean(filters.q || filters.types.length || SINGLE_FACETS.some((facet) => filters[facet]));
}

/** "datasets", "datasets or pipelines", or all three kinds. */
export function kindsInWords(types: SearchKind[]): string {
  const words = KINDS.filter((kind) => !types.length || types.includes(kind.value)).map((kind) => kind.plural);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words.at(-1)}` : words[0];
}

/** The link to the catalog filtered by one tag (tags on cards are facets). */
export function tagHref(tag: string): string {
  return `/?${new URLSearchParams({ tag })}`;
}

/** Where a search result's page is. */
export function resultHref(kind: SearchKind, id: number): string {
  return `/${kind}s/${id}`;
}
