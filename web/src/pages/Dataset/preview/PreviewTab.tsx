import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';

import {
  listDatasetVersionsOptions,
  previewDatasetOptions,
  previewDatasetVersionOptions,
} from '../../../api/gen/@tanstack/react-query.gen';
import type { Dataset } from '../../../api/gen/types.gen';
import { DataTable } from '../../../components/catalog/DataTable';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatDate } from '../../../components/format';
import { Loading } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';

const ROWS = 50;

/** The dataset's Preview tab: the first rows of the current version or of any other
 *  (?version=N keeps the choice in the URL). */
export function PreviewTab() {
  const dataset = useDataset();
  usePageTitle(`${dataset.name}: preview`);
  const [params, setParams] = useSearchParams();
  const asked = Number(params.get('version'));
  const version = Number.isInteger(asked) && asked > 0 ? asked : null;

  if (!dataset.file) {
    return (
      <section aria-labelledby="preview-title">
        <h2 id="preview-title">Preview</h2>
        <div className="notice notice--warn">
          <p>This dataset has no file yet: there is nothing to preview.</p>
          {dataset.capabilities.write && (
            <p>
              <Link to={`/datasets/${dataset.id}/versions`}>Upload a file in the Versions tab.</Link>
            </p>
          )}
        </div>
      </section>
    );
  }
  return (
    <section aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <VersionSelect
        dataset={dataset}
        version={version}
        onVersion={(next) => setParams(next === null ? {} : { version: String(next) }, { replace: true })}
      />
      <Rows dataset={dataset} version={version} />
    </section>
  );
}

function VersionSelect({ dataset, version, onVersion }: { dataset: Dataset; version: number | null; onVersion: (v: number | null) => void }) {
  const versions = useQuery(listDatasetVersionsOptions({ path: { dataset_id: dataset.id }, query: { limit: 100 } }));
  return (
    <div className="field">
      <label htmlFor="preview-version">Version</label>
      <select
        id="preview-version"
        value={version ?? ''}
        onChange={(event) => onVersion(event.target.value ? Number(event.target.value) : null)}
      >
        <option value="">Current (version {dataset.current_version})</option>
        {(versions.data?.items ?? []).map((item) => (
          <option key={item.version} value={item.version}>
            Version {item.version}, {formatDate(item.created_at)}
            {item.message ? `: ${item.message}` : ''}
          </option>
        ))}
      </select>
      <ErrorNotice error={versions.error} title="The versions could not be listed" />
    </div>
  );
}

function Rows({ dataset, version }: { dataset: Dataset; version: number | null }) {
  const current = useQuery({
    ...previewDatasetOptions({ path: { dataset_id: dataset.id }, query: { limit: ROWS } }),
    enabled: version === null,
  });
  const chosen = useQuery({
    ...previewDatasetVersionOptions({ path: { dataset_id: dataset.id, version: version ?? 0 }, query: { limit: ROWS } }),
    enabled: version !== null,
  });
  const preview = version === null ? current : chosen;
  const which = version === null ? `the current version (${dataset.current_version})` : `version ${version}`;
  if (preview.error) return <ErrorNotice error={preview.error} title={`The preview of ${which} failed`} />;
  if (!preview.data) return <Loading label="Reading the first rows…" />;
  const { rows, truncated } = preview.data;
  return (
    <>
      <p>
        The first {rows.length.toLocaleString()} row{rows.length === 1 ? '' : 's'} of {which}.
        {truncated && ' Long values are cut short (they end with “…”).'}
      </p>
      <DataTable preview={preview.data} caption={`First rows of ${dataset.name}, ${which}`} />
    </>
  );
}
