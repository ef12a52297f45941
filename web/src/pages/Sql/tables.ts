/**
 * What the console knows of the readable datasets: their names (every page of the dataset
 * list, up to CATALOG_MAX) and the columns of those it needs (named in the query or opened in
 * the side list), from each dataset's schema when known, else its columns.
 */
import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';

import { getDatasetColumnsOptions } from '../../api/gen/@tanstack/react-query.gen';
import { listDatasets } from '../../api/gen/sdk.gen';
import type { Dataset } from '../../api/gen/types.gen';
import { completionSchema, mentions } from './names';
import type { Table } from './names';

const PAGE = 100;
export const CATALOG_MAX = 1000;
/** Columns are read for at most this many datasets at once. */
const COLUMNS_MAX = 20;

export interface Catalog {
  /** The datasets that have a file (the ones a query can read), by name. */
  datasets: Dataset[];
  /** How many datasets the caller may read (with or without a file). */
  total: number;
}

async function readCatalog(signal: AbortSignal): Promise<Catalog> {
  const items: Dataset[] = [];
  let total = 0;
  for (let offset = 0; offset < CATALOG_MAX; offset += PAGE) {
    const { data } = await listDatasets({ query: { sort: 'name', limit: PAGE, offset }, signal, throwOnError: true });
    items.push(...data.items);
    total = data.total;
    if (offset + PAGE >= data.total) break;
  }
  return { datasets: items.filter((item) => item.current_version !== null), total };
}

export function useCatalog() {
  // Named like the generated keys ({_id}), so that a dataset's events refresh it (LiveUpdates).
  return useQuery({ queryKey: [{ _id: 'sqlConsoleDatasets' }], queryFn: ({ signal }) => readCatalog(signal), staleTime: 60_000 });
}

/** The tables completion offers, and its CodeMirror schema (the same object while they
 *  stay the same). */
export function useCompletion(datasets: Dataset[], text: string, opened: Set<number>) {
  const wanted = datasets
    .filter((dataset) => opened.has(dataset.id) || (!dataset.schema && mentions(text, dataset.name)))
    .slice(0, COLUMNS_MAX);
  const columns = useQueries({
    queries: wanted.map((dataset) => ({
      ...getDatasetColumnsOptions({ path: { dataset_id: dataset.id } }),
      staleTime: 60_000,
    })),
    combine: (results) => new Map(results.map((result, index) => [wanted[index].id, result.data?.columns])),
  });
  const tables: Table[] = datasets.map((dataset) => ({
    name: dataset.name,
    columns: (columns.get(dataset.id) ?? dataset.schema?.columns ?? []).map(({ name, type }) => ({ name, type })),
  }));
  const key = JSON.stringify(tables);
  const schema = useMemo(() => completionSchema(JSON.parse(key) as Table[]), [key]);
  return { tables, schema };
}
