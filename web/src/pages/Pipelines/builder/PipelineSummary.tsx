/** A pipeline for someone who may not change it: what it reads, does and writes. */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { getDatasetOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { Pipeline } from '../../../api/gen/types.gen';
import { describeStep, describeTrigger, formatName } from './describe';
import { opLabel } from './draft';

export function DatasetLink({ datasetId, version }: { datasetId: number; version?: number | null }) {
  const dataset = useQuery(getDatasetOptions({ path: { dataset_id: datasetId } }));
  const name = dataset.data?.name ?? `Dataset #${datasetId}`;
  if (version === undefined) return <Link to={`/datasets/${datasetId}`}>{name}</Link>;
  return (
    <Link to={`/datasets/${datasetId}/versions`}>
      {name}, {version === null ? 'current version' : `version ${version}`}
    </Link>
  );
}

export function PipelineSummary({ pipeline, stepExtra }: { pipeline: Pipeline; stepExtra?: (index: number) => ReactNode }) {
  return (
    <div className="pipelines-summary">
      <dl className="pipelines-facts">
        <dt>Source</dt>
        <dd>
          {pipeline.source_dataset_id === null ? (
            'Deleted'
          ) : (
            <DatasetLink datasetId={pipeline.source_dataset_id} version={pipeline.source_version} />
          )}
        </dd>
        <dt>Output</dt>
        <dd>
          {pipeline.output_dataset_name} ({formatName(pipeline.output_format)})
        </dd>
        <dt>Trigger</dt>
        <dd>{describeTrigger(pipeline.trigger)}</dd>
        {pipeline.description && (
          <>
            <dt>Description</dt>
            <dd>{pipeline.description}</dd>
          </>
        )}
      </dl>
      <h2>Steps</h2>
      {pipeline.steps.length === 0 ? (
        <p className="muted">No steps: a run copies the source as it is.</p>
      ) : (
        <ol className="pipelines-step-list">
          {pipeline.steps.map((step, index) => (
            <li key={index} className="card pipelines-step">
              <h3>
                Step {index + 1}: {opLabel(step.op)}
              </h3>
              <p>{describeStep(step)}</p>
              {step.op === 'sql' && (
                <pre className="pipelines-sql" aria-label={`SQL query of step ${index + 1}`}>
                  <code>{step.query}</code>
                </pre>
              )}
              {stepExtra?.(index)}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
