/** A pipeline's runs, newest first, paged by the server; statuses change live (the event
 *  stream invalidates Run queries) and are announced. */
import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';

import { listPipelineRunsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import { formatAgo, formatCount, formatDate } from '../../../components/format';
import { Pager } from '../../../components/Pager';
import { QueryState } from '../../../components/States';
import { formatDuration, StatusTag, TRIGGERED_BY, useAnnounceStatusChanges } from './status';

const LIMIT = 10;

export function RunList({ pipelineId }: { pipelineId: number }) {
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('runs_offset')) || 0);
  const runs = useQuery(listPipelineRunsOptions({ path: { pipeline_id: pipelineId }, query: { limit: LIMIT, offset } }));
  useAnnounceStatusChanges(runs.data?.items);
  const setOffset = (next: number) =>
    setParams((current) => {
      const copy = new URLSearchParams(current);
      if (next) copy.set('runs_offset', String(next));
      else copy.delete('runs_offset');
      return copy;
    });
  return (
    <section className="pipelines-section" aria-labelledby="pipeline-runs">
      <h2 id="pipeline-runs">Runs</h2>
      <QueryState
        isPending={runs.isPending}
        error={runs.error}
        empty={runs.data?.total === 0}
        emptyText="No runs yet. Run now starts one; a trigger starts them by itself."
      >
        <div className="table-wrap">
          <table className="pipelines-table">
            <caption className="visually-hidden">Runs of this pipeline, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Rows in</th>
                <th scope="col">Rows out</th>
                <th scope="col">Started by</th>
              </tr>
            </thead>
            <tbody>
              {runs.data?.items.map((run) => (
                <tr key={run.id}>
                  <th scope="row">
                    <Link to={`/pipelines/${pipelineId}/runs/${run.id}`}>Run {run.id}</Link>
                  </th>
                  <td>
                    <StatusTag status={run.status} />
                  </td>
                  <td title={formatDate(run.started_at ?? run.created_at)}>{formatAgo(run.started_at ?? run.created_at)}</td>
                  <td>{formatDuration(run)}</td>
                  <td>{formatCount(run.rows_in)}</td>
                  <td>{formatCount(run.rows_out)}</td>
                  <td>{TRIGGERED_BY[run.triggered_by]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {runs.data && <Pager total={runs.data.total} limit={LIMIT} offset={offset} onOffset={setOffset} label="Pages of runs" />}
      </QueryState>
    </section>
  );
}
