/**
 * The SQL console's link: the query's text and the versions it read, in the URL's query
 * string (`/sql?sql=…&pins=3@2,5@1`). Opening it fills the editor and runs the query with
 * those versions pinned.
 */
import type { QueryInput, VersionPin } from '../../api/gen/types.gen';

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

export function pinsOf(inputs: QueryInput[]): VersionPin[] {
  return inputs.map((input) => ({ dataset_id: input.dataset_id, version: input.version }));
}

/** The app's path (under /app) that runs `sql` again at the versions `inputs` read. */
export function sharePath(sql: string, inputs: QueryInput[]): string {
  const params = new URLSearchParams({ sql });
  if (inputs.length) params.set('pins', pinsText(pinsOf(inputs)));
  return `/sql?${params.toString()}`;
}
