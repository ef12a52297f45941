/** /app/pipelines/:pipelineId: run it, its runs (live), and its definition — the builder
 *  for those who may change it, a read-only view for the others. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';

import {
  deletePipelineMutation,
  getPipelineOptions,
  startPipelineRunMutation,
} from '../../api/gen/@tanstack/react-query.gen';
import type { Pipeline } from '../../api/gen/types.gen';
import { useAnnounce } from '../../components/Announcer';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { QueryState } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import { draftFromPipeline } from './builder/draft';
import { PipelineForm } from './builder/PipelineForm';
import { PipelineSummary } from './builder/PipelineSummary';
import { DraftStepPreview, StepPreview } from './builder/StepPreview';
import { RunList } from './runs/RunList';
import './Pipelines.css';

function isPipelineQuery(key: readonly unknown[]): boolean {
  return /Pipeline/.test((key[0] as { _id?: string } | undefined)?._id ?? '');
}

function PipelineActions({ pipeline }: { pipeline: Pipeline }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const announce = useAnnounce();
  const [confirming, setConfirming] = useState(false);
  const run = useMutation(startPipelineRunMutation());
  const remove = useMutation(deletePipelineMutation());
  const start = async () => {
    try {
      const started = await run.mutateAsync({ path: { pipeline_id: pipeline.id } });
      await queryClient.invalidateQueries({ predicate: (query) => isPipelineQuery(query.queryKey) });
      announce(`Run ${started.id} ${started.status}.`);
    } catch {
      // said next to the button
    }
  };
  const destroy = async () => {
    try {
      await remove.mutateAsync({ path: { pipeline_id: pipeline.id } });
      queryClient.removeQueries({ predicate: (query) => isPipelineQuery(query.queryKey) });
      announce(`Pipeline ${pipeline.name} deleted.`);
      navigate('/pipelines');
    } catch {
      setConfirming(false);
    }
  };
  const { write, manage } = pipeline.capabilities;
  if (!write && !manage) return null;
  return (
    <>
      <div className="actions">
        {write && (
          <button type="button" className="button button--primary" disabled={run.isPending} onClick={start}>
            {run.isPending ? 'Starting…' : 'Run now'}
          </button>
        )}
        {manage && (
          <button type="button" className="button button--danger" onClick={() => setConfirming(true)}>
            Delete pipeline
          </button>
        )}
      </div>
      <ErrorNotice error={run.error} title="The run did not start" />
      <ErrorNotice error={remove.error} title="The pipeline was not deleted" />
      {confirming && (
        <ConfirmDialog
          title={`Delete the pipeline ${pipeline.name}?`}
          confirmLabel="Delete pipeline"
          busy={remove.isPending}
          onConfirm={destroy}
          onCancel={() => setConfirming(false)}
        >
          <p>Its runs are deleted with it. The output dataset {pipeline.output_dataset_name} stays.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

export function PipelinePage() {
  const pipelineId = Number(useParams().pipelineId);
  const pipeline = useQuery(getPipelineOptions({ path: { pipeline_id: pipelineId } }));
  usePageTitle(pipeline.data?.name ?? 'Pipeline');
  const data = pipeline.data;
  return (
    <div className="pipelines-page">
      <p>
        <Link to="/pipelines">Pipelines</Link>
      </p>
      <h1>{data?.name ?? 'Pipeline'}</h1>
      <QueryState isPending={pipeline.isPending} error={pipeline.error}>
        {data && (
          <>
            {data.trigger_disabled_reason && (
              <p className="notice notice--warn">The trigger is off: {data.trigger_disabled_reason}</p>
            )}
            <PipelineActions pipeline={data} />
            <RunList pipelineId={data.id} />
            <section className="pipelines-definition" aria-label="Definition">
              {data.capabilities.write ? (
                <PipelineForm
                  key={data.updated_at}
                  initial={draftFromPipeline(data)}
                  pipelineId={data.id}
                  onSaved={() => undefined}
                  stepExtra={(draft, index) => <DraftStepPreview draft={draft} index={index} />}
                />
              ) : (
                <PipelineSummary
                  pipeline={data}
                  stepExtra={(index) => (
                    <StepPreview sourceDatasetId={data.source_dataset_id} sourceVersion={data.source_version} steps={data.steps} index={index} />
                  )}
                />
              )}
            </section>
          </>
        )}
      </QueryState>
    </div>
  );
}
