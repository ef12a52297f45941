/** TEMPORARY: the search and column-description endpoints' shapes until they are in
 *  openapi.json; deleted once the generated client has them. */
import { client } from './gen/client.gen';
import type { Dataset } from './gen/types.gen';

export type SearchKind = 'dataset' | 'collection' | 'pipeline';

export interface SearchHit {
  type: SearchKind;
  id: number;
  name: string;
  description: string;
  tags: string[];
  owner_id: string;
  owner: { id: string; name: string } | null;
  updated_at: string;
  visibility: 'private' | 'internal';
  format: string | null;
  size_bytes: number | null;
  rows: number | null;
  score: number | null;
  highlights: { name?: string; description?: string; readme?: string };
  matched_columns: { name: string; value?: string }[];
}

export interface FacetValue {
  value: string;
  count: number;
}

export interface SearchPage {
  items: SearchHit[];
  total: number;
  limit: number;
  offset: number;
  facets: { type: FacetValue[]; tags: FacetValue[]; owner: FacetValue[]; format: FacetValue[]; visibility: FacetValue[] };
}

export interface SearchQuery {
  q?: string;
  type?: string;
  tag?: string;
  owner?: string;
  format?: string;
  visibility?: string;
  sort?: 'relevance' | '-updated_at' | 'name' | 'popular';
  limit?: number;
  offset?: number;
}

export interface Suggestion {
  type: SearchKind | null;
  id: number | null;
  name: string;
  kind: SearchKind | 'tag' | 'column';
}

export interface ColumnDoc {
  name: string;
  type: string;
  description: string;
}

export interface DatasetColumns {
  version: number | null;
  columns: ColumnDoc[];
}

export type DatasetWithReadme = Dataset & { readme?: string; stats?: { downloads_30d: number; views_30d: number } };

async function get<T>(url: string, options: { query?: object; path?: object }, signal: AbortSignal): Promise<T> {
  const { data } = await client.get({ url, ...options, signal, throwOnError: true, security: [{ scheme: 'bearer', type: 'http' }] } as never);
  return data as T;
}

export const searchOptions = (options: { query: SearchQuery }) => ({
  queryKey: [{ _id: 'search', ...options }] as const,
  queryFn: ({ signal }: { signal: AbortSignal }) => get<SearchPage>('/api/v1/search', options, signal),
});

export const suggestOptions = (options: { query: { q: string } }) => ({
  queryKey: [{ _id: 'suggest', ...options }] as const,
  queryFn: ({ signal }: { signal: AbortSignal }) => get<{ items: Suggestion[] }>('/api/v1/search/suggest', options, signal),
});

export const getDatasetColumnsOptions = (options: { path: { dataset_id: number } }) => ({
  queryKey: [{ _id: 'getDatasetColumns', ...options }] as const,
  queryFn: ({ signal }: { signal: AbortSignal }) => get<DatasetColumns>(`/api/v1/datasets/{dataset_id}/columns`, options, signal),
});

export const updateDatasetColumnsMutation = () => ({
  mutationFn: async (options: { path: { dataset_id: number }; body: { columns: { name: string; description: string }[] } }) => {
    const { data } = await client.patch({
      url: '/api/v1/datasets/{dataset_id}/columns',
      ...options,
      throwOnError: true,
      security: [{ scheme: 'bearer', type: 'http' }],
      headers: { 'Content-Type': 'application/json' },
    } as never);
    return data as DatasetColumns;
  },
});
