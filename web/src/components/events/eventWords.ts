import type { CloudEvent, EventType } from '../../api/gen/types.gen';

/** Each event type in words. */
export const EVENT_WORDS: Record<EventType, string> = {
  'datahub.dataset.created': 'Dataset created',
  'datahub.dataset.updated': 'Dataset changed',
  'datahub.dataset.deleted': 'Dataset deleted',
  'datahub.dataset.version.created': 'New version',
  'datahub.dataset.version.quarantined': 'Version quarantined',
  'datahub.pipeline.created': 'Pipeline created',
  'datahub.pipeline.updated': 'Pipeline changed',
  'datahub.pipeline.deleted': 'Pipeline deleted',
  'datahub.run.queued': 'Run queued',
  'datahub.run.started': 'Run started',
  'datahub.run.succeeded': 'Run succeeded',
  'datahub.run.failed': 'Run failed',
  'datahub.run.cancelled': 'Run cancelled',
};

/** Where in the app the event's subject is (its `source` is the API path), unless deleted. */
export function subjectPath(event: CloudEvent): string | null {
  if (event.type.endsWith('.deleted')) return null;
  const path = event.source.replace(/^\/api\/v1/, '');
  const version = /^\/datasets\/(\d+)\/versions\/\d+$/.exec(path);
  if (version) return `/datasets/${version[1]}/versions`;
  if (/^\/(datasets|pipelines)\/\d+(\/runs\/\d+)?$/.test(path)) return path;
  return null;
}

/** What the event is about, as a person names it. */
export function subjectName(event: CloudEvent): string {
  const data = event.data as Record<string, unknown>;
  if (event.type.startsWith('datahub.run.')) return `Run ${String(data.id ?? '')} of pipeline ${String(data.pipeline_id ?? '')}`;
  if (event.type === 'datahub.dataset.version.created') {
    return `${typeof data.name === 'string' ? data.name : `Dataset ${String(data.dataset_id ?? '')}`}, version ${String(data.version ?? '')}`;
  }
  if (typeof data.name === 'string') return data.name;
  return event.source.replace(/^\/api\/v1\//, '');
}
