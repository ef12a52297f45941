/** /app/pipelines: the pipelines the caller may read — filter by name and owner, sort,
 *  paged by the server; all of it in the URL so reload and back keep the place. */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';

import { listPipelineRunsOptions, listPipelinesOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { ListPipelinesData, Pipeline } from '../../../api/gen/types.gen';
import { useSession } from '../../../app/session';
import { formatAgo, formatDate } from '../../../components/format';
import { Pager } from '../../../components/Pager';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { describeTrigger, formatName } from '../builder/describe';
import { DatasetLink } from '../builder/PipelineSummary';
import { StatusTag } from '../runs/status';
import '../Pipelines.css';

type Sort = NonNullable<NonNullable<ListPipelinesData['query']>['sort']>;
const SORTS: { value: Sort; label: string }[] = [
  { value: 'name', label: 'Name (A–Z)' },
  { value: '-name', label: 'Name (Z–A)' },
  { value: '-updated_at', label: 'Recently changed' },
  { value: '-created_at', label: 'Newest' },
  { value: 'created_at', label: 'Oldest' },
];
const LIMIT = 20;

function LastRun({ pipelineId }: { pipelineId: number }) {
  const runs = useQuery(listPipelineRunsOptions({ path: { pipeline_id: pipelineId }, query: { limit: 1 } }));
  const last = runs.data?.items[0];
  if (runs.isPending) return <span className="muted">…</span>;
  if (!last) return <StatusTag status={undefined} />;
  return (
    <>
      <Link to={`/pipelines/${pipelineId}/runs/${last.id}`} aria-label={`Run ${last.id}: ${last.status}`}>
        <StatusTag status={last.status} />
      </Link>{' '}
      <span className="muted" title={formatDate(last.created_at)}>
        {formatAgo(last.created_at)}
      </span>
    </>
  );
}

function PipelineCard({ pipeline }: { pipeline: Pipeline }) {
  return (
    <li className="card pipelines-card">
      <h2 className="pipelines-card__title">
        <Link to={`/pipelines/${pipeline.id}`}>{pipeline.name}</Link>
      </h2>
      {pipeline.description && <p>{pipeline.description}</p>}
      <dl className="pipelines-facts pipelines-facts--compact">
        <dt>Source</dt>
        <dd>
          {pipeline.source_dataset_id === null ? 'Deleted' : <DatasetLink datasetId={pipeline.source_dataset_id} />}
        </dd>
        <dt>Output</dt>
        <dd>
          {pipeline.output_dataset_name} ({formatName(pipeline.output_format)})
        </dd>
        <dt>Trigger</dt>
        <dd>{describeTrigger(pipeline.trigger)}</dd>
        <dt>Last run</dt>
        <dd>
          <LastRun pipelineId={pipeline.id} />
        </dd>
      </dl>
    </li>
  );
}

function Filters() {
  const [params, setParams] = useSearchParams();
  const id = useId();
  const [q, setQ] = useState(params.get('q') ?? '');
  useEffect(() => setQ(params.get('q') ?? ''), [params]);
  const set = (changes: Record<string, string>) =>
    setParams((current) => {
      const next = new URLSearchParams(current);
      for (const [key, value] of Object.entries(changes)) {
        if (value) next.set(key, value);
        else next.delete(key);
      }
      next.delete('offset');
      return next;
    });
  const search = (event: FormEvent) => {
    event.preventDefault();
    set({ q: q.trim() });
  };
  return (
    <div className="pipelines-filters">
      <form role="search" onSubmit={search} className="pipelines-filters__search">
        <div className="field">
          <label htmlFor={`${id}-q`}>Name contains</label>
          <input id={`${id}-q`} type="search" value={q} onChange={(event) => setQ(event.target.value)} />
        </div>
        <button type="submit" className="button">
          Search
        </button>
      </form>
      <div className="field">
        <label htmlFor={`${id}-owner`}>Owner</label>
        <select id={`${id}-owner`} value={params.get('owner') ?? ''} onChange={(event) => set({ owner: event.target.value })}>
          <option value="">Anyone</option>
          <option value="me">Me</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-sort`}>Sort</label>
        <select id={`${id}-sort`} value={params.get('sort') ?? 'name'} onChange={(event) => set({ sort: event.target.value })}>
          {SORTS.map((sort) => (
            <option key={sort.value} value={sort.value}>
              {sort.label}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}

export function PipelineListPage() {
  usePageTitle('Pipelines');
  const { mayCreate } = useSession();
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const sort = (SORTS.find((item) => item.value === params.get('sort'))?.value ?? 'name') as Sort;
  const q = params.get('q') || undefined;
  const owner = params.get('owner') || undefined;
  const pipelines = useQuery(listPipelinesOptions({ query: { q, owner, sort, limit: LIMIT, offset } }));
  const filtered = Boolean(q || owner);
  const setOffset = (next: number) =>
    setParams((current) => {
      const copy = new URLSearchParams(current);
      if (next) copy.set('offset', String(next));
      else copy.delete('offset');
      return copy;
    });
  return (
    <div className="pipelines-page">
      <div className="pipelines-heading">
        <h1>Pipelines</h1>
        {mayCreate && (
          <Link className="button button--primary" to="/pipelines/new">
            New pipeline
          </Link>
        )}
      </div>
      <Filters />
      <QueryState
        isPending={pipelines.isPending}
        error={pipelines.error}
        empty={pipelines.data?.total === 0}
        emptyText={
          filtered ? (
            <p>No pipeline matches. Clear the search or choose another owner.</p>
          ) : (
            <p>
              No pipelines yet.{' '}
              {mayCreate ? (
                <>
                  <Link to="/pipelines/new">Create one</Link> to turn a dataset into another: filter, join, aggregate or SQL, run
                  by hand, on new versions or on a schedule.
                </>
              ) : (
                'An editor can create one and share it with you.'
              )}
            </p>
          )
        }
      >
        <p className="muted" aria-live="polite">
          {pipelines.data?.total.toLocaleString()} pipeline{pipelines.data?.total === 1 ? '' : 's'}
        </p>
        <ul className="card-list pipelines-cards">
          {pipelines.data?.items.map((pipeline) => <PipelineCard key={pipeline.id} pipeline={pipeline} />)}
        </ul>
        {pipelines.data && <Pager total={pipelines.data.total} limit={LIMIT} offset={offset} onOffset={setOffset} label="Pages of pipelines" />}
      </QueryState>
    </div>
  );
}
