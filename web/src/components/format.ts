/** Numbers and dates as a person reads them. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} ${value === 1 ? 'byte' : 'bytes'}` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

export function formatCount(count: number | null | undefined): string {
  return count === null || count === undefined ? '—' : count.toLocaleString();
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** "3 minutes ago", with the exact time for a title attribute. */
export function formatAgo(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds < 60) return 'just now';
  const steps: [number, string][] = [[60, 'minute'], [3600, 'hour'], [86400, 'day'], [2592000, 'month'], [31536000, 'year']];
  let chosen = steps[0];
  for (const step of steps) if (seconds >= step[0]) chosen = step;
  const amount = Math.floor(seconds / chosen[0]);
  return `${amount} ${chosen[1]}${amount === 1 ? '' : 's'} ago`;
}

/** A statistic as text: numbers to 4 significant digits, dates as they came. */
export function formatStatistic(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') {
    if (Number.isInteger(value)) return value.toLocaleString();
    return value.toPrecision(4).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  }
  return String(value);
}
