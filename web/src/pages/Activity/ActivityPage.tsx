import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';

import { getDatasetOptions, listEventsOptions } from '../../api/gen/@tanstack/react-query.gen';
import type { EventType } from '../../api/gen/types.gen';
import { useAnnounce } from '../../components/Announcer';
import { EventList } from '../../components/events/EventList';
import { EVENT_WORDS } from '../../components/events/eventWords';
import { QueryState } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import './Activity.css';

/** `before` larger than any event id: the newest events. */
export const NEWEST = 2147483647;
const LIMIT = 25;

/** The event feed, newest first, live: what changed that the caller may read. */
export function ActivityPage() {
  usePageTitle('Activity');
  const [params, setParams] = useSearchParams();
  const type = (params.get('type') as EventType | null) ?? undefined;
  const datasetId = Number(params.get('dataset')) || undefined;
  const before = Number(params.get('before')) || NEWEST;
  const events = useQuery({
    ...listEventsOptions({ query: { before, limit: LIMIT, type, dataset_id: datasetId } }),
    placeholderData: keepPreviousData,
  });
  const dataset = useQuery({ ...getDatasetOptions({ path: { dataset_id: datasetId ?? 0 } }), enabled: !!datasetId });
  useAnnounceNewEvents(events.data?.items.map((event) => Number(event.id)) ?? [], before === NEWEST);

  function change(next: Record<string, string | undefined>) {
    const merged = new URLSearchParams(params);
    Object.entries(next).forEach(([key, value]) => (value ? merged.set(key, value) : merged.delete(key)));
    if (!('before' in next)) merged.delete('before');
    setParams(merged);
  }

  const items = events.data?.items ?? [];
  return (
    <>
      <h1>Activity</h1>
      <p className="muted">What changed in the datasets and pipelines you may see, newest first. New events appear by themselves.</p>
      <div className="activity__filters">
        <div className="field">
          <label htmlFor="activity-type">What happened</label>
          <select id="activity-type" value={type ?? ''} onChange={(event) => change({ type: event.target.value })}>
            <option value="">Everything</option>
            {Object.entries(EVENT_WORDS).map(([value, words]) => (
              <option key={value} value={value}>
                {words}
              </option>
            ))}
          </select>
        </div>
        {datasetId && (
          <p>
            Only about {dataset.data ? <strong>{dataset.data.name}</strong> : `dataset ${datasetId}`}.{' '}
            <button type="button" className="link-button" onClick={() => change({ dataset: undefined })}>
              Show every dataset
            </button>
          </p>
        )}
      </div>
      <QueryState
        isPending={events.isPending}
        error={events.error}
        empty={items.length === 0}
        emptyText={
          before !== NEWEST
            ? 'No older events.'
            : type || datasetId
              ? 'No events match. Choose “Everything” to see all.'
              : 'Nothing has happened yet: create or upload a dataset and it shows here.'
        }
      >
        <EventList events={items} label="Events" />
      </QueryState>
      <nav className="pager" aria-label="Event pages">
        {before !== NEWEST && (
          <button type="button" className="button" onClick={() => change({ before: undefined })}>
            Newest
          </button>
        )}
        {events.data?.next_before && (
          <button type="button" className="button" onClick={() => change({ before: String(events.data?.next_before) })}>
            Older events
          </button>
        )}
      </nav>
    </>
  );
}

/** Says politely how many events arrived since the list was last shown. */
function useAnnounceNewEvents(ids: number[], live: boolean) {
  const announce = useAnnounce();
  const newest = useRef<number | null>(null);
  const top = ids.length ? Math.max(...ids) : null;
  useEffect(() => {
    if (!live || top === null) return;
    if (newest.current !== null && top > newest.current) {
      const count = ids.filter((id) => id > (newest.current ?? 0)).length;
      announce(`${count} new event${count === 1 ? '' : 's'}`);
    }
    newest.current = top;
  }, [top, live, ids, announce]);
}
