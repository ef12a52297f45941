/** The builder: source and version, steps, output, trigger; Save creates or PATCHes. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent, ReactNode } from 'react';

import {
  createPipelineMutation,
  listDatasetVersionsOptions,
  updatePipelineMutation,
} from '../../../api/gen/@tanstack/react-query.gen';
import type { Pipeline } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { Field, OtherProblems } from '../../../components/Field';
import { DatasetPicker } from './DatasetPicker';
import { draftToBody, stepFieldNames } from './draft';
import type { PipelineDraft } from './draft';
import { StepList } from './StepList';
import { TriggerFields } from './TriggerFields';

interface Props {
  initial: PipelineDraft;
  /** Editing this pipeline (PATCH); creating one when absent. */
  pipelineId?: number;
  onSaved: (pipeline: Pipeline) => void;
  /** Below each step: its preview (given the draft as it is). */
  stepExtra?: (draft: PipelineDraft, index: number) => ReactNode;
}

const TOP_FIELDS = [
  'name',
  'description',
  'source_dataset_id',
  'source_version',
  'output_dataset_name',
  'output_format',
  'trigger.cron',
  'trigger.timezone',
];

function SourceVersion({ draft, error, onChange }: { draft: PipelineDraft; error: unknown; onChange: (version: string) => void }) {
  const versions = useQuery({
    ...listDatasetVersionsOptions({ path: { dataset_id: draft.sourceDatasetId ?? 0 }, query: { limit: 100 } }),
    enabled: draft.sourceDatasetId !== null,
  });
  const items = versions.data?.items ?? [];
  const pinnedMissing = draft.sourceVersion !== '' && !items.some((item) => String(item.version) === draft.sourceVersion);
  return (
    <Field label="Source version" name="source_version" error={error} hint="Pin a version, or read the current one when each run starts.">
      <select value={draft.sourceVersion} onChange={(event) => onChange(event.target.value)}>
        <option value="">Current version (when each run starts)</option>
        {pinnedMissing && <option value={draft.sourceVersion}>Version {draft.sourceVersion}</option>}
        {items.map((item) => (
          <option key={item.version} value={String(item.version)}>
            Version {item.version}
            {item.message ? `: ${item.message}` : ''}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function PipelineForm({ initial, pipelineId, onSaved, stepExtra }: Props) {
  const [draft, setDraft] = useState(initial);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const create = useMutation(createPipelineMutation());
  const update = useMutation(updatePipelineMutation());
  const saving = pipelineId === undefined ? create : update;
  const change = (changes: Partial<PipelineDraft>) => setDraft((current) => ({ ...current, ...changes }));

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const body = draftToBody(draft);
    try {
      const saved =
        pipelineId === undefined
          ? await create.mutateAsync({ body })
          : await update.mutateAsync({ path: { pipeline_id: pipelineId }, body });
      await queryClient.invalidateQueries({
        predicate: (query) => /Pipeline/.test((query.queryKey[0] as { _id?: string } | undefined)?._id ?? ''),
      });
      announce(`Pipeline ${saved.name} saved.`);
      onSaved(saved);
    } catch {
      // shown at the fields (and above the Save button)
    }
  };

  const shown = [...TOP_FIELDS, ...draft.steps.flatMap((step, index) => stepFieldNames(step, index))];
  const error = saving.error;
  return (
    <form className="pipelines-form" onSubmit={save} noValidate aria-label="Pipeline">
        <section className="pipelines-section" aria-labelledby="pipeline-about">
          <h2 id="pipeline-about">About</h2>
          <Field label="Name" name="name" error={error}>
            <input type="text" value={draft.name} required autoComplete="off" onChange={(event) => change({ name: event.target.value })} />
          </Field>
          <Field label="Description" name="description" error={error}>
            <textarea value={draft.description} rows={2} onChange={(event) => change({ description: event.target.value })} />
          </Field>
        </section>
        <section className="pipelines-section" aria-labelledby="pipeline-source">
          <h2 id="pipeline-source">Source</h2>
          <DatasetPicker
            label="Source dataset"
            name="source_dataset_id"
            error={error}
            value={draft.sourceDatasetId}
            onChange={(sourceDatasetId) => change({ sourceDatasetId, sourceVersion: '' })}
          />
          <SourceVersion draft={draft} error={error} onChange={(sourceVersion) => change({ sourceVersion })} />
        </section>
        <StepList
          steps={draft.steps}
          error={error}
          onChange={(steps) => change({ steps })}
          after={stepExtra ? (index) => stepExtra(draft, index) : undefined}
        />
        <section className="pipelines-section" aria-labelledby="pipeline-output">
          <h2 id="pipeline-output">Output</h2>
          <div className="pipelines-row">
            <Field label="Output dataset name" name="output_dataset_name" error={error} hint="Created by the first successful run; each success adds a version.">
              <input type="text" value={draft.outputName} autoComplete="off" onChange={(event) => change({ outputName: event.target.value })} />
            </Field>
            <Field label="Output format" name="output_format" error={error}>
              <select value={draft.outputFormat} onChange={(event) => change({ outputFormat: event.target.value as PipelineDraft['outputFormat'] })}>
                <option value="csv">CSV</option>
                <option value="parquet">Parquet</option>
                <option value="jsonl">JSON lines</option>
              </select>
            </Field>
          </div>
          <TriggerFields draft={draft} error={error} onChange={change} />
        </section>
      <OtherProblems error={error} shown={shown} />
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={saving.isPending}>
          {saving.isPending ? 'Saving…' : pipelineId === undefined ? 'Create pipeline' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}
