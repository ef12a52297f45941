/**
 * The SQL console's link: the query's text and the versions it read, in the URL's query
 * string (`/sql?sql=…&pins=3@2,5@1`). Opening it fills the editor and runs the query with
 * those versions pinned.
 */
import type { VersionPin } from '../../api/gen/types.gen';

/** `3@2,5@1` → pins (anything that is not `<id>@<version>` is left out). */
export function parsePins(text: string | null): VersionPin[] {
  if (!text) return [];
  return text
    .split(',')
    .map((part) => /^(\d+)@(\d+)$/.exec(part.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ dataset_id: Number(match[1]), version: Number(match[2]) }));
}

export function pinsText(pins: VersionPin[]): string {
  return pins.map((pin) => `${pin.dataset_id}@${pin.version}`).join(',');
}

/** The app's path (under /app) that runs `sql` again with `pins` (the answer's: the
 *  versions read by the tables written without `@N`). */
export function sharePath(sql: string, pins: VersionPin[]): string {
  const params = new URLSearchParams({ sql });
  if (pins.length) params.set('pins', pinsText(pins));
  return `/sql?${params.toString()}`;
}
