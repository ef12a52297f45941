/** What the versions, diff and lineage screens share: refreshing what a change touched,
 *  and people's names for user ids. */
import { useQuery } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';

import { findUsersOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { DirectoryEntry } from '../../../api/gen/types.gen';

const TOUCHED = new Set(['getDataset', 'listDatasetVersions', 'getDatasetVersion', 'getDatasetLineage', 'previewDataset']);

/** After a version changed: the dataset (its current version) and its versions again. */
export function refreshVersions(queryClient: QueryClient): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: (query) => TOUCHED.has(String((query.queryKey[0] as { _id?: string } | undefined)?._id)),
  });
}

/** Names and emails of these user ids, in one call (the directory knows active users). */
export function usePeople(ids: (string | null | undefined)[]): Map<string, DirectoryEntry> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))].sort();
  const query = useQuery({
    ...findUsersOptions({ query: { ids: wanted.join(','), limit: 20 } }),
    enabled: wanted.length > 0,
    staleTime: 60_000,
  });
  return new Map((query.data?.items ?? []).map((person) => [person.id, person]));
}
