/** "Preview up to here": the result of the pipeline's steps up to and including this one
 *  (POST /pipelines/preview: the columns and the first rows, bounded like a preview). */
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { previewPipelineMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { Preview } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { draftToBody } from './draft';
import type { PipelineDraft, Step } from './draft';

const LIMIT = 20;

interface Props {
  sourceDatasetId: number | null;
  sourceVersion: number | null;
  /** All the steps; the preview runs those up to `index`. */
  steps: Step[];
  index: number;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function PreviewTable({ preview, caption }: { preview: Preview; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="pipelines-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            {preview.columns.map((column) => (
              <th key={column.name} scope="col">
                {column.name} <span className="muted">{column.type}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((row, r) => (
            <tr key={r}>
              {row.map((value, c) => (
                <td key={c}>{cell(value)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function StepPreview({ sourceDatasetId, sourceVersion, steps, index }: Props) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const announce = useAnnounce();
  const preview = useMutation(previewPipelineMutation());
  const show = () => {
    setOpen(true);
    preview.mutate(
      {
        body: {
          source_dataset_id: sourceDatasetId as number,
          source_version: sourceVersion,
          steps: steps.slice(0, index + 1),
          limit: LIMIT,
        },
      },
      {
        onSuccess: (result) => announce(`Preview after step ${index + 1}: ${result.rows.length} rows, ${result.columns.length} columns.`),
        onError: () => announce(`No preview after step ${index + 1}.`),
      },
    );
  };
  const data = preview.data;
  return (
    <div className="pipelines-preview">
      <div className="actions">
        <button type="button" className="button" disabled={sourceDatasetId === null || preview.isPending} onClick={show} aria-controls={id}>
          {preview.isPending ? 'Previewing…' : 'Preview up to here'}{' '}
          <span className="visually-hidden">(step {index + 1})</span>
        </button>
        {open && (
          <button type="button" className="button" onClick={() => setOpen(false)}>
            Hide preview <span className="visually-hidden">of step {index + 1}</span>
          </button>
        )}
      </div>
      <div id={id}>
        {open && !preview.isPending && <ErrorNotice error={preview.error} title="No preview" />}
        {open && data && (
          <>
            <PreviewTable
              preview={data}
              caption={`After step ${index + 1}: the first ${data.rows.length} row${data.rows.length === 1 ? '' : 's'}`}
            />
            {data.truncated && <p className="muted">Long values are cut, ending with …</p>}
          </>
        )}
      </div>
    </div>
  );
}

/** The preview of a step of the builder's draft, as it is now. */
export function DraftStepPreview({ draft, index }: { draft: PipelineDraft; index: number }) {
  const body = draftToBody(draft);
  return <StepPreview sourceDatasetId={draft.sourceDatasetId} sourceVersion={body.source_version ?? null} steps={body.steps ?? []} index={index} />;
}
