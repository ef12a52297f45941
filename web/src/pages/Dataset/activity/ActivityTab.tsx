import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';

import { listEventsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import { useAnnounce } from '../../../components/Announcer';
import { formatAgo, formatDate } from '../../../components/format';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';
import { describeEvent } from './datasetEvents';

const PAGE = 20;
/** `before` larger than any event id: the newest events. */
const NEWEST = 2147483647;

/** The dataset's Activity tab: its events, newest first, older pages through `?before=`,
 *  kept live by the event stream; new ones are announced politely. */
export function ActivityTab() {
  const dataset = useDataset();
  usePageTitle(`${dataset.name}: activity`);
  const [params, setParams] = useSearchParams();
  const before = Number(params.get('before')) || NEWEST;
  const events = useQuery({
    ...listEventsOptions({ query: { dataset_id: dataset.id, before, limit: PAGE } }),
    placeholderData: keepPreviousData,
  });
  const announce = useAnnounce();
  const seen = useRef<string | null>(null);
  const shown = events.data?.items ?? [];

  useEffect(() => {
    if (!events.data || before !== NEWEST) return;
    const items = events.data.items;
    const newest = items[0]?.id ?? '';
    if (seen.current !== null && newest !== seen.current) {
      const fresh = items.findIndex((event) => event.id === seen.current);
      const count = fresh === -1 ? items.length : fresh;
      if (count > 0) announce(`${count} new event${count === 1 ? '' : 's'} about ${dataset.name}.`);
    }
    seen.current = newest;
  }, [events.data, before, announce, dataset.name]);

  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <QueryState
        isPending={events.isPending}
        error={events.error}
        empty={shown.length === 0}
        emptyText="Nothing has happened to this dataset yet (or its events are older than the service keeps)."
      >
        <ol className="card-list" aria-label="Events, newest first">
          {shown.map((event) => {
            const { title, detail } = describeEvent(event);
            return (
              <li key={event.id} className="card">
                <strong>{title}</strong>
                {detail && <span> · {detail}</span>}
                <br />
                <time className="muted" dateTime={event.time} title={formatDate(event.time)}>
                  {formatAgo(event.time)}
                </time>
              </li>
            );
          })}
        </ol>
        <nav className="pager" aria-label="Event pages">
          {before !== NEWEST && (
            <button type="button" className="button" onClick={() => setParams({})}>
              Newest
            </button>
          )}
          {events.data?.next_before && (
            <button
              type="button"
              className="button"
              onClick={() => setParams({ before: String(events.data?.next_before) })}
            >
              Older events
            </button>
          )}
        </nav>
      </QueryState>
    </section>
  );
}
