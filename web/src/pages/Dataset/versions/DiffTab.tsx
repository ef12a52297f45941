import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';

import { asApiError } from '../../../api/errors';
import { diffDatasetVersionsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Loading } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';
import { DiffResult } from './DiffResult';
import './Versions.css';

/** A 422 about the key (a column not in both versions, duplicate keys), for the key field. */
function keyProblem(error: unknown, key: string): string | undefined {
  if (!error) return undefined;
  const problem = asApiError(error);
  if (problem.status !== 422) return undefined;
  const atField = problem.fieldMessage('key');
  if (atField) return atField;
  return key && typeof problem.detail === 'string' && /key/i.test(problem.detail) ? problem.detail : undefined;
}

/** The diff of two versions (?from=&to=&key=): schema changes, row counts, sample rows. */
export function DiffTab() {
  const dataset = useDataset();
  const [params, setParams] = useSearchParams();
  const from = Number(params.get('from'));
  const to = Number(params.get('to'));
  const key = params.get('key') ?? '';
  const [keyInput, setKeyInput] = useState(key);
  usePageTitle(`Versions ${from} and ${to} · ${dataset.name}`);
  const valid = Number.isInteger(from) && from > 0 && Number.isInteger(to) && to > 0;
  const query = useQuery({
    ...diffDatasetVersionsOptions({
      path: { dataset_id: dataset.id },
      query: { from, to, ...(key ? { key } : {}) },
    }),
    enabled: valid,
    retry: false,
  });
  const atKey = keyProblem(query.error, key);

  function submit(event: FormEvent) {
    event.preventDefault();
    const next = new URLSearchParams({ from: String(from), to: String(to) });
    const columns = keyInput.split(',').map((name) => name.trim()).filter(Boolean).join(',');
    if (columns) next.set('key', columns);
    setParams(next);
  }

  return (
    <section aria-labelledby="diff-title">
      <h2 id="diff-title">
        Changes from version {from || '?'} to version {to || '?'}
      </h2>
      <p>
        <Link to={`/datasets/${dataset.id}/versions`}>Back to the versions</Link>
      </p>
      {!valid && <p className="notice notice--warn">Choose two versions on the Versions tab to compare them.</p>}
      <form className="diff-key" onSubmit={submit}>
        <div className={`field${atKey ? ' field--invalid' : ''}`}>
          <label htmlFor="diff-key-input">Key columns</label>
          <p id="diff-key-hint" className="field__hint">
            Comma-separated columns that identify a row (id, or city,date): rows are matched by them and changed
            rows are shown. Empty: rows are compared as a whole.
          </p>
          <input
            id="diff-key-input"
            type="text"
            value={keyInput}
            aria-invalid={atKey ? true : undefined}
            aria-describedby={atKey ? 'diff-key-hint diff-key-error' : 'diff-key-hint'}
            onChange={(event) => setKeyInput(event.target.value)}
          />
          {atKey && (
            <p id="diff-key-error" className="field__error">
              {atKey}
            </p>
          )}
        </div>
        <button type="submit" className="button" disabled={!valid}>
          Compare by key
        </button>
      </form>
      {valid && query.isPending && <Loading label="Comparing the versions…" />}
      {query.error && !atKey && <ErrorNotice error={query.error} title="Cannot compare" />}
      {query.data && <DiffResult diff={query.data} recheck={() => void query.refetch()} checking={query.isFetching} />}
    </section>
  );
}
