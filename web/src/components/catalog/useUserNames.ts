import { useQueries } from '@tanstack/react-query';

import { findUsersOptions } from '../../api/gen/@tanstack/react-query.gen';

/** The directory answers at most 20 people per request. */
const CHUNK = 20;

/** People's names for a page of owner ids: one batched directory request per 20 distinct
 *  ids (sorted, so the same set is asked once). Unknown ids (deactivated people) are absent. */
export function useUserNames(ids: (string | null | undefined)[]): Map<string, string> {
  const wanted = [...new Set(ids.filter((id): id is string => Boolean(id)))].sort();
  const chunks: string[][] = [];
  for (let start = 0; start < wanted.length; start += CHUNK) chunks.push(wanted.slice(start, start + CHUNK));
  const results = useQueries({
    queries: chunks.map((chunk) => ({
      ...findUsersOptions({ query: { ids: chunk.join(','), limit: CHUNK } }),
      staleTime: 5 * 60_000,
    })),
  });
  const names = new Map<string, string>();
  for (const result of results) {
    for (const user of result.data?.items ?? []) names.set(user.id, user.name || user.email);
  }
  return names;
}

/** A person's name, or a plain stand-in while it loads or when they are gone. */
export function ownerLabel(names: Map<string, string>, id: string | null | undefined): string {
  if (!id) return 'Nobody';
  return names.get(id) ?? 'Unknown person';
}
