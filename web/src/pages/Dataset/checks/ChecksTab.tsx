import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import { getDatasetChecksOptions, listDatasetVersionsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Field } from '../../../components/Field';
import { Loading } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';
import type { Check } from './checkFields';
import { TYPES, toDraft } from './checkFields';
import { ChecksEditor } from './ChecksEditor';
import { VersionResults } from './VersionResults';
import './Checks.css';

/** The dataset's Checks tab: what every new version must pass to be published (writers
 *  edit them), and the results of a version's checks. */
export function ChecksTab() {
  const dataset = useDataset();
  usePageTitle(`${dataset.name}: checks`);
  const checks = useQuery(getDatasetChecksOptions({ path: { dataset_id: dataset.id } }));
  const versions = useQuery(listDatasetVersionsOptions({ path: { dataset_id: dataset.id }, query: { limit: 100 } }));
  const [params, setParams] = useSearchParams();
  const newest = versions.data?.items[0]?.version;
  const chosen = Number(params.get('version')) || newest;

  let body;
  if (checks.error) body = <ErrorNotice error={checks.error} title="The checks could not be read" />;
  else if (!checks.data) body = <Loading label="Reading the checks…" />;
  else if (dataset.capabilities.write) body = <ChecksEditor datasetId={dataset.id} checks={checks.data.checks as Check[]} />;
  else body = <ChecksList checks={checks.data.checks as Check[]} />;

  return (
    <section aria-labelledby="checks-title">
      <h2 id="checks-title">Checks</h2>
      <p>
        Each new version (an upload, a pipeline's output, a restore) is checked before it is published. One that fails a check
        marked as an error is quarantined: not current, no trigger, no pipeline reads it.
      </p>
      {body}
      <section aria-labelledby="results-title">
        <h3 id="results-title">Results</h3>
        {versions.data && versions.data.items.length > 0 && chosen ? (
          <>
            <Field label="Version">
              <select value={chosen} onChange={(event) => setParams({ version: event.target.value })}>
                {versions.data.items.map((version) => (
                  <option key={version.version} value={version.version}>
                    Version {version.version} ({version.state})
                  </option>
                ))}
              </select>
            </Field>
            <VersionResults datasetId={dataset.id} version={chosen} />
          </>
        ) : (
          <p className="muted">No versions yet.</p>
        )}
      </section>
    </section>
  );
}

function ChecksList({ checks }: { checks: Check[] }) {
  if (checks.length === 0) return <p className="muted">No checks: every new version is published at once.</p>;
  return (
    <ul className="checks-list">
      {checks.map((check) => {
        const draft = toDraft(check);
        const settings = TYPES[check.type]?.fields.map((field) => `${field.label}: ${draft.values[field.key] ?? '—'}`).join('; ');
        return (
          <li key={check.name}>
            <strong>{check.name}</strong> ({TYPES[check.type]?.label ?? check.type}, {check.severity}): {settings}
          </li>
        );
      })}
    </ul>
  );
}
