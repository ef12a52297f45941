/** A run's status, its duration, and a polite word when a shown run's status changes. */
import { useEffect, useRef } from 'react';

import type { Run } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';

export type RunStatus = Run['status'];

export function isActive(status: RunStatus): boolean {
  return status === 'queued' || status === 'running';
}

export function StatusTag({ status }: { status: RunStatus | undefined }) {
  if (!status) return <span className="muted">never run</span>;
  return <span className={`tag pipelines-status pipelines-status--${status}`}>{status}</span>;
}

/** "1.2 s", "3 min 4 s"; while running, so far. */
export function formatDuration(run: Pick<Run, 'started_at' | 'finished_at'>, now = Date.now()): string {
  if (!run.started_at) return '—';
  const end = run.finished_at ? new Date(run.finished_at).getTime() : now;
  const seconds = Math.max(0, (end - new Date(run.started_at).getTime()) / 1000);
  if (Number.isNaN(seconds)) return '—';
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export const TRIGGERED_BY: Record<Run['triggered_by'], string> = {
  user: 'a person',
  new_version: 'a new version of an input',
  schedule: 'its schedule',
};

/** Announces "Run 12 succeeded." when a run shown here changes status (not on first sight). */
export function useAnnounceStatusChanges(runs: Pick<Run, 'id' | 'status'>[] | undefined): void {
  const announce = useAnnounce();
  const seen = useRef(new Map<number, RunStatus>());
  useEffect(() => {
    if (!runs) return;
    const changed: string[] = [];
    for (const run of runs) {
      const before = seen.current.get(run.id);
      if (before !== undefined && before !== run.status) changed.push(`Run ${run.id} ${run.status}.`);
      seen.current.set(run.id, run.status);
    }
    if (changed.length) announce(changed.join(' '));
  }, [runs, announce]);
}
