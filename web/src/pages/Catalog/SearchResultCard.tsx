import { Link } from 'react-router';

import type { SearchResult } from '../../api/gen/types.gen';
import '../../components/catalog/catalog.css';
import { snippet } from '../../components/catalog/snippet';
import { TagLinks } from '../../components/catalog/TagLinks';
import { formatName } from '../../components/catalog/fileFormat';
import { formatAgo, formatBytes, formatDate } from '../../components/format';
import { KINDS, resultHref } from './catalogQuery';
import { Highlight } from './Highlight';

/** One search result, in the catalog's card look: its kind, name (its page), the text
 *  that matched (marked), the columns whose name or values matched, tags and facts. */
export function SearchResultCard({ hit }: { hit: SearchResult }) {
  const kind = KINDS.find((k) => k.value === hit.type)?.label ?? hit.type;
  const { highlights } = hit;
  const description = highlights.description ? <Highlight highlight={highlights.description} markdown /> : snippet(hit.description);
  return (
    <li className="card catalog-card">
      <p className={`search-kind search-kind--${hit.type}`}>{kind}</p>
      <h2 className="catalog-card__name">
        <Link to={resultHref(hit.type, hit.id)}>
          <Highlight highlight={highlights.name} text={hit.name} />
        </Link>
      </h2>
      {description ? <p className="catalog-card__snippet">{description}</p> : <p className="muted">No description.</p>}
      {highlights.readme && (
        <p className="catalog-card__snippet search-readme">
          <span className="muted">README: </span>
          <Highlight highlight={highlights.readme} markdown />
        </p>
      )}
      {hit.matched_columns.length > 0 && (
        <ul className="search-columns" aria-label="Matching columns">
          {hit.matched_columns.map((column) => (
            <li key={`${column.name}:${column.value ?? ''}`}>
              <code>{column.name}</code>
              {column.value !== undefined && column.value !== null && `: ${column.value}`}
            </li>
          ))}
        </ul>
      )}
      <TagLinks tags={hit.tags} />
      <dl className="catalog-card__facts">
        <div>
          <dt>Owner</dt>
          <dd>{hit.owner?.name || 'Unknown person'}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <time dateTime={hit.updated_at} title={formatDate(hit.updated_at)}>
              {formatAgo(hit.updated_at)}
            </time>
          </dd>
        </div>
        {hit.type === 'dataset' && (
          <>
            <div>
              <dt>Format</dt>
              <dd>{formatName(hit.format)}</dd>
            </div>
            <div>
              <dt>Size</dt>
              <dd>{formatBytes(hit.size_bytes)}</dd>
            </div>
          </>
        )}
        {hit.visibility === 'private' && (
          <div>
            <dt>Visibility</dt>
            <dd>Private</dd>
          </div>
        )}
      </dl>
    </li>
  );
}
