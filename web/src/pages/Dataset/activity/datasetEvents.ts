import type { CloudEvent } from '../../../api/gen/types.gen';
import { EVENT_WORDS } from '../../../components/events/eventWords';

/** An event in words: what happened, and its most telling details. */
export function describeEvent(event: CloudEvent): { title: string; detail: string } {
  const data = event.data as Record<string, unknown>;
  const title = EVENT_WORDS[event.type] ?? event.type.replace(/^datahub\./, '').replace(/\./g, ' ');
  const parts: string[] = [];
  if (event.type === 'datahub.dataset.version.created') {
    if (data.version !== undefined) parts.push(`version ${String(data.version)}`);
    if (data.filename) parts.push(String(data.filename));
    if (data.message) parts.push(`“${String(data.message)}”`);
    if (data.run_id) parts.push(`written by run ${String(data.run_id)}`);
  } else {
    if (data.name) parts.push(String(data.name));
    if (data.visibility) parts.push(String(data.visibility));
  }
  return { title, detail: parts.join(' · ') };
}
