/** TEMPORARY: the README and column-description endpoints' shapes until they are in
 *  openapi.json; deleted once the generated client has them. */
import { client } from './gen/client.gen';
import type { Dataset } from './gen/types.gen';

export interface ColumnDoc {
  name: string;
  type: string;
  description: string;
}

export interface DatasetColumns {
  version: number | null;
  columns: ColumnDoc[];
}

export type DatasetWithReadme = Dataset & { readme?: string };

async function get<T>(url: string, options: { query?: object; path?: object }, signal: AbortSignal): Promise<T> {
  const { data } = await client.get({ url, ...options, signal, throwOnError: true, security: [{ scheme: 'bearer', type: 'http' }] } as never);
  return data as T;
}

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
