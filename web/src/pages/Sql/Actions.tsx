/** What one can do with a query's answer: export the whole result as a file, share a link
 *  that runs it again at the same versions, make it a pipeline (when it reads one dataset). */
import { useId, useRef, useState } from 'react';
import { useHref, useNavigate } from 'react-router';

import { query } from '../../api/gen/sdk.gen';
import type { QueryResult } from '../../api/gen/types.gen';
import { useAnnounce } from '../../components/Announcer';
import { DownloadButton } from '../../components/catalog/DownloadButton';
import { pinsOf, sharePath } from './share';

const FORMATS = [
  { format: 'csv', label: 'CSV', filename: 'query.csv' },
  { format: 'parquet', label: 'Parquet', filename: 'query.parquet' },
  { format: 'jsonl', label: 'JSON lines', filename: 'query.jsonl' },
] as const;

interface Props {
  /** The text that was run (the editor may hold another by now). */
  sql: string;
  result: QueryResult;
}

function Export({ sql, result }: Props) {
  // The versions the rows came from: the file holds the same rows, even after a new version.
  const pins = pinsOf(result.inputs);
  return (
    <div role="group" aria-labelledby="sql-export-title" className="sql-action">
      <h3 id="sql-export-title">Export all rows</h3>
      <div className="actions">
        {FORMATS.map(({ format, label, filename }) => (
          <DownloadButton
            key={format}
            label={`Export ${label}`}
            filename={filename}
            load={async () => {
              const { data } = await query({ body: { sql, pins }, query: { format }, parseAs: 'blob', throwOnError: true });
              return data as unknown as Blob;
            }}
          />
        ))}
      </div>
    </div>
  );
}

function Share({ sql, result }: Props) {
  const fieldId = useId();
  const field = useRef<HTMLInputElement>(null);
  const announce = useAnnounce();
  const [copied, setCopied] = useState<string | null>(null);
  const link = new URL(useHref(sharePath(sql, result.inputs)), window.location.origin).toString();

  async function copy() {
    try {
      await navigator.clipboard.writeText(link);
      setCopied('Copied.');
      announce('Link copied.');
    } catch {
      field.current?.select();
      setCopied('Selected: press Ctrl+C (⌘C) to copy it.');
    }
  }

  return (
    <div className="sql-action">
      <h3>Share</h3>
      <div className="field">
        <label htmlFor={fieldId}>Link to this query</label>
        <p id={`${fieldId}-hint`} className="field__hint">
          It runs this query again at the versions it read
          {result.inputs.length ? ` (${result.inputs.map((input) => `${input.name}@${input.version}`).join(', ')})` : ''}.
        </p>
        <div className="sql-share">
          <input id={fieldId} ref={field} type="text" readOnly value={link} aria-describedby={`${fieldId}-hint`} onFocus={(event) => event.target.select()} />
          <button type="button" className="button" onClick={() => void copy()}>
            Copy link
          </button>
        </div>
        {copied && <p className="field__hint">{copied}</p>}
      </div>
    </div>
  );
}

function MakePipeline({ result }: { result: QueryResult }) {
  const navigate = useNavigate();
  const proposal = result.pipeline;
  const why =
    result.inputs.length === 0
      ? 'This query reads no dataset: a pipeline needs one source dataset.'
      : `This query reads ${result.inputs.length} datasets: a pipeline reads one source dataset, so only a query of one dataset can become one.`;
  return (
    <div className="sql-action">
      <h3>Pipeline</h3>
      <button
        type="button"
        className="button"
        disabled={proposal === null}
        aria-describedby={proposal === null ? 'sql-pipeline-why' : undefined}
        onClick={() => proposal && navigate(`/pipelines/new?source=${proposal.source_dataset_id}`, { state: { proposal } })}
      >
        Make this a pipeline
      </button>
      {proposal === null ? (
        <p id="sql-pipeline-why" className="field__hint">
          {why}
        </p>
      ) : (
        <p className="field__hint">Opens the pipeline builder with this query as its SQL step, over its one dataset.</p>
      )}
    </div>
  );
}

export function Actions(props: Props) {
  return (
    <section className="sql-actions" aria-label="Use this result">
      <Export {...props} />
      <Share {...props} />
      <MakePipeline result={props.result} />
    </section>
  );
}
