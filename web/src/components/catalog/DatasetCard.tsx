import { Link } from 'react-router';

import type { Dataset } from '../../api/gen/types.gen';
import { formatAgo, formatBytes, formatDate } from '../format';
import './catalog.css';
import { fileFormat } from './fileFormat';
import { TagLinks } from './TagLinks';

const SNIPPET = 200;

/** A description's first words as plain text (Markdown marks left out). */
export function snippet(markdown: string, length = SNIPPET): string {
  const text = markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]*>/g, ' ')
    .replace(/[#>*_`~|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > length ? `${text.slice(0, length).trimEnd()}…` : text;
}

/** One dataset in a list: name (its page), snippet, tags (filter links), owner, updated,
 *  format and size. */
export function DatasetCard({ dataset, owner }: { dataset: Dataset; owner: string }) {
  const description = snippet(dataset.description);
  return (
    <li className="card catalog-card">
      <h2 className="catalog-card__name">
        <Link to={`/datasets/${dataset.id}`}>{dataset.name}</Link>
      </h2>
      {description ? <p className="catalog-card__snippet">{description}</p> : <p className="muted">No description.</p>}
      <TagLinks tags={dataset.tags} />
      <dl className="catalog-card__facts">
        <div>
          <dt>Owner</dt>
          <dd>{owner}</dd>
        </div>
        <div>
          <dt>Updated</dt>
          <dd>
            <time dateTime={dataset.updated_at} title={formatDate(dataset.updated_at)}>
              {formatAgo(dataset.updated_at)}
            </time>
          </dd>
        </div>
        <div>
          <dt>Format</dt>
          <dd>{fileFormat(dataset.file)}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>{dataset.file ? formatBytes(dataset.file.size_bytes) : '—'}</dd>
        </div>
        {dataset.visibility === 'private' && (
          <div>
            <dt>Visibility</dt>
            <dd>Private</dd>
          </div>
        )}
      </dl>
    </li>
  );
}
