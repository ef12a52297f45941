import { listEventsQueryKey } from '../../../api/gen/@tanstack/react-query.gen';
import { listEvents } from '../../../api/gen/sdk.gen';
import type { CloudEvent } from '../../../api/gen/types.gen';

const BATCH = 100;
/** Enough for any dataset's kept events; the service keeps a bounded history anyway. */
const MAX_BATCHES = 50;

/** The query for a dataset's events, newest first. The service lists them oldest first
 *  from an `after` id, so every batch is read and the whole turned around; its key is the
 *  generated `listEvents` key, so the live stream refreshes it. */
export function datasetEventsQuery(datasetId: number) {
  const query = { dataset_id: datasetId, limit: BATCH };
  return {
    queryKey: listEventsQueryKey({ query }),
    queryFn: async ({ signal }: { signal: AbortSignal }): Promise<CloudEvent[]> => {
      const events: CloudEvent[] = [];
      let after = 0;
      for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
        const { data } = await listEvents({ query: { ...query, after }, signal, throwOnError: true });
        events.push(...data.items);
        if (data.items.length < BATCH) break;
        after = data.next_after;
      }
      return events.reverse();
    },
  };
}

const WORDS: Record<string, string> = {
  'datahub.dataset.created': 'Dataset created',
  'datahub.dataset.updated': 'Dataset changed',
  'datahub.dataset.deleted': 'Dataset deleted',
  'datahub.dataset.version.created': 'New version',
};

/** An event in words: what happened, and its most telling details. */
export function describeEvent(event: CloudEvent): { title: string; detail: string } {
  const data = event.data as Record<string, unknown>;
  const title = WORDS[event.type] ?? event.type.replace(/^datahub\./, '').replace(/\./g, ' ');
  const parts: string[] = [];
  if (event.type === 'datahub.dataset.version.created') {
    if (data.version !== undefined) parts.push(`version ${String(data.version)}`);
    if (data.filename) parts.push(String(data.filename));
    if (data.message) parts.push(`“${String(data.message)}”`);
    if (data.run_id) parts.push(`written by run ${String(data.run_id)}`);
  } else {
    if (data.name) parts.push(String(data.name));
    if (data.visibility) parts.push(String(data.visibility));
  }
  return { title, detail: parts.join(' · ') };
}
