/** /app/pipelines/:pipelineId/runs/:runId: one run — status (live), rows, duration, error,
 *  the versions it read and made, the run it reused; Cancel while it is queued or running. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';

import {
  cancelPipelineRunMutation,
  getPipelineOptions,
  getPipelineRunOptions,
} from '../../../api/gen/@tanstack/react-query.gen';
import type { Run } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatCount, formatDate } from '../../../components/format';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { DatasetLink } from '../builder/PipelineSummary';
import { formatDuration, isActive, StatusTag, TRIGGERED_BY, useAnnounceStatusChanges } from './status';
import '../Pipelines.css';

function CancelRun({ run }: { run: Run }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [confirming, setConfirming] = useState(false);
  const cancel = useMutation(cancelPipelineRunMutation());
  const confirm = async () => {
    try {
      await cancel.mutateAsync({ path: { pipeline_id: run.pipeline_id, run_id: run.id } });
      await queryClient.invalidateQueries({
        predicate: (query) => /Run|Pipeline/.test((query.queryKey[0] as { _id?: string } | undefined)?._id ?? ''),
      });
      announce(`Run ${run.id} cancelled.`);
    } catch {
      // said below
    }
    setConfirming(false);
  };
  return (
    <>
      <div className="actions">
        <button type="button" className="button button--danger" onClick={() => setConfirming(true)}>
          Cancel run
        </button>
      </div>
      <ErrorNotice error={cancel.error} title="The run was not cancelled" />
      {confirming && (
        <ConfirmDialog
          title={`Cancel run ${run.id}?`}
          confirmLabel="Cancel run"
          busy={cancel.isPending}
          onConfirm={confirm}
          onCancel={() => setConfirming(false)}
        >
          <p>It stops now and writes nothing; the output keeps its previous version.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function RunFacts({ run }: { run: Run }) {
  return (
    <dl className="pipelines-facts">
      <dt>Status</dt>
      <dd>
        <StatusTag status={run.status} />
      </dd>
      <dt>Started by</dt>
      <dd>{TRIGGERED_BY[run.triggered_by]}</dd>
      <dt>Queued</dt>
      <dd>{formatDate(run.created_at)}</dd>
      <dt>Started</dt>
      <dd>{formatDate(run.started_at)}</dd>
      <dt>Finished</dt>
      <dd>{formatDate(run.finished_at)}</dd>
      <dt>Duration</dt>
      <dd>{formatDuration(run)}</dd>
      <dt>Rows read</dt>
      <dd>{formatCount(run.rows_in)}</dd>
      <dt>Rows written</dt>
      <dd>{formatCount(run.rows_out)}</dd>
      <dt>Input versions</dt>
      <dd>
        {run.inputs.length === 0 ? (
          '—'
        ) : (
          <ul className="pipelines-plain-list">
            {run.inputs.map((input) => (
              <li key={`${input.dataset_id}@${input.version}`}>
                <DatasetLink datasetId={input.dataset_id} version={input.version} />
              </li>
            ))}
          </ul>
        )}
      </dd>
      <dt>Output version</dt>
      <dd>{run.output ? <DatasetLink datasetId={run.output.dataset_id} version={run.output.version} /> : '—'}</dd>
      {run.reused_run_id !== null && (
        <>
          <dt>Reused run</dt>
          <dd>
            <Link to={`/pipelines/${run.pipeline_id}/runs/${run.reused_run_id}`}>Run {run.reused_run_id}</Link> had the same
            definition and inputs: its output version is this run's.
          </dd>
        </>
      )}
    </dl>
  );
}

export function RunPage() {
  const params = useParams();
  const pipelineId = Number(params.pipelineId);
  const runId = Number(params.runId);
  const pipeline = useQuery(getPipelineOptions({ path: { pipeline_id: pipelineId } }));
  const run = useQuery(getPipelineRunOptions({ path: { pipeline_id: pipelineId, run_id: runId } }));
  usePageTitle(`Run ${runId}${pipeline.data ? ` of ${pipeline.data.name}` : ''}`);
  const shown = useMemo(() => (run.data ? [run.data] : undefined), [run.data]);
  useAnnounceStatusChanges(shown);
  const data = run.data;
  return (
    <div className="pipelines-page">
      <p>
        <Link to="/pipelines">Pipelines</Link>
        {' › '}
        <Link to={`/pipelines/${pipelineId}`}>{pipeline.data?.name ?? `Pipeline ${pipelineId}`}</Link>
      </p>
      <h1>Run {runId}</h1>
      <QueryState isPending={run.isPending} error={run.error}>
        {data && (
          <>
            {data.error && (
              <div className="notice notice--error">
                <h2 className="pipelines-error-title">Error</h2>
                <p className="pipelines-error-text">{data.error}</p>
              </div>
            )}
            {isActive(data.status) && pipeline.data?.capabilities.write && <CancelRun run={data} />}
            <RunFacts run={data} />
          </>
        )}
      </QueryState>
    </div>
  );
}
