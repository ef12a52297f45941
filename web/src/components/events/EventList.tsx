import { Link } from 'react-router';

import type { CloudEvent } from '../../api/gen/types.gen';
import { formatAgo, formatDate } from '../format';
import { EVENT_WORDS, subjectName, subjectPath } from './eventWords';
import './EventList.css';

/** Events, newest first: when, what happened, to what (a link while it exists). */
export function EventList({ events, label }: { events: CloudEvent[]; label: string }) {
  return (
    <ol className="event-list" aria-label={label}>
      {events.map((event) => {
        const path = subjectPath(event);
        const name = subjectName(event);
        return (
          <li key={event.id} className="event-list__item">
            <time dateTime={event.time} title={formatDate(event.time)} className="event-list__time">
              {formatAgo(event.time)}
            </time>
            <span className="event-list__type">{EVENT_WORDS[event.type] ?? event.type}</span>
            <span className="event-list__subject">{path ? <Link to={path}>{name}</Link> : name}</span>
          </li>
        );
      })}
    </ol>
  );
}
