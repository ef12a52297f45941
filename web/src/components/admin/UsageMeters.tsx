import { useId } from 'react';

import type { Usage } from '../../api/gen/types.gen';
import { formatBytes, formatCount } from '../format';
import './UsageMeters.css';

interface MeterProps {
  label: string;
  used: number;
  limit: number | null;
  format: (value: number) => string;
  /** Where a table's column header already names it: the label is for screen readers. */
  labelHidden?: boolean;
}

/** One quota: a bar (a <meter>, for its role and value) and the same values in words, so
 *  nothing is said by the bar's length or colour alone. */
export function UsageMeter({ label, used, limit, format, labelHidden }: MeterProps) {
  const id = useId();
  const words =
    limit === null
      ? `${format(used)} (no limit)`
      : `${format(used)} of ${format(limit)} (${percent(used, limit)}%)`;
  const over = limit !== null && used >= limit;
  return (
    <div className={`usage-meter${over ? ' usage-meter--full' : ''}`}>
      <label htmlFor={id} className={labelHidden ? 'visually-hidden' : 'usage-meter__label'}>
        {label}
      </label>
      {limit !== null && (
        <meter id={id} min={0} max={Math.max(limit, 1)} value={Math.min(used, limit)} high={limit * 0.9} optimum={0} aria-valuetext={words} />
      )}
      {limit === null && <output id={id}>{words}</output>}
      {limit !== null && <span className="usage-meter__words">{words}</span>}
      {over && <span className="usage-meter__full">Limit reached</span>}
    </div>
  );
}

function percent(used: number, limit: number): number {
  if (limit <= 0) return 100;
  return Math.min(100, Math.round((used / limit) * 100));
}

/** Stored bytes, datasets and queued runs against their quotas (GET /auth/me/usage). */
export function UsageMeters({ usage }: { usage: Usage }) {
  return (
    <div className="usage-meters">
      <UsageMeter label="Storage" used={usage.storage_bytes} limit={usage.limits.storage_bytes} format={formatBytes} />
      <UsageMeter label="Datasets" used={usage.datasets} limit={usage.limits.datasets} format={formatCount} />
      <UsageMeter
        label="Runs queued or running"
        used={usage.queued_runs}
        limit={usage.limits.queued_runs}
        format={formatCount}
      />
    </div>
  );
}
