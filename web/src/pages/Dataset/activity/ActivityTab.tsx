import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';

import { useAnnounce } from '../../../components/Announcer';
import { formatAgo, formatDate } from '../../../components/format';
import { Pager } from '../../../components/Pager';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';
import { datasetEventsQuery, describeEvent } from './datasetEvents';

const PAGE = 20;

/** The dataset's Activity tab: its events, newest first, paged (?offset=), kept live by
 *  the event stream; new ones are announced politely. */
export function ActivityTab() {
  const dataset = useDataset();
  usePageTitle(`${dataset.name}: activity`);
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const events = useQuery(datasetEventsQuery(dataset.id));
  const announce = useAnnounce();
  const seen = useRef<string | null>(null);
  const all = events.data ?? [];

  useEffect(() => {
    if (!events.data) return;
    const newest = events.data[0]?.id ?? '';
    if (seen.current !== null && newest !== seen.current) {
      const fresh = events.data.findIndex((event) => event.id === seen.current);
      const count = fresh === -1 ? events.data.length : fresh;
      if (count > 0) announce(`${count} new event${count === 1 ? '' : 's'} about ${dataset.name}.`);
    }
    seen.current = newest;
  }, [events.data, announce, dataset.name]);

  const shown = all.slice(offset, offset + PAGE);
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      <QueryState
        isPending={events.isPending}
        error={events.error}
        empty={all.length === 0}
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
        <Pager
          total={all.length}
          limit={PAGE}
          offset={offset}
          onOffset={(next) => setParams(next ? { offset: String(next) } : {})}
          label="Event pages"
        />
      </QueryState>
    </section>
  );
}
