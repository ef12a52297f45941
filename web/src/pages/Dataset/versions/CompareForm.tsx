import { useState } from 'react';
import type { FormEvent } from 'react';
import { useNavigate } from 'react-router';

import type { Version } from '../../../api/gen/types.gen';
import { Field } from '../../../components/Field';

/** Choose two versions (of this page) and go to their diff. */
export function CompareForm({ datasetId, versions }: { datasetId: number; versions: Version[] }) {
  const navigate = useNavigate();
  const [from, setFrom] = useState(String(versions[1]?.version ?? versions[0]?.version ?? ''));
  const [to, setTo] = useState(String(versions[0]?.version ?? ''));
  const same = from === to;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (same) return;
    navigate(`/datasets/${datasetId}/versions/compare?${new URLSearchParams({ from, to })}`);
  }

  const options = versions.map((version) => (
    <option key={version.version} value={version.version}>
      Version {version.version}
      {version.message ? ` — ${version.message}` : ''}
    </option>
  ));
  return (
    <form className="versions-compare card" onSubmit={submit} aria-labelledby="versions-compare-title">
      <h3 id="versions-compare-title">Compare two versions</h3>
      <div className="versions-compare__fields">
        <Field label="From version">
          <select value={from} onChange={(event) => setFrom(event.target.value)}>
            {options}
          </select>
        </Field>
        <Field label="To version">
          <select value={to} onChange={(event) => setTo(event.target.value)}>
            {options}
          </select>
        </Field>
      </div>
      {same && <p className="muted">Choose two different versions.</p>}
      <button type="submit" className="button button--primary" disabled={same}>
        Compare
      </button>
    </form>
  );
}
