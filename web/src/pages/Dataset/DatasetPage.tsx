import { useQuery } from '@tanstack/react-query';
import { Link, Outlet, useParams } from 'react-router';

import { asApiError } from '../../api/errors';
import { getDatasetOptions } from '../../api/gen/@tanstack/react-query.gen';
import type { Dataset } from '../../api/gen/types.gen';
import { ownerLabel, useUserNames } from '../../components/catalog/useUserNames';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/States';
import type { TabLink } from '../../components/Tabs';
import { Tabs } from '../../components/Tabs';
import { usePageTitle } from '../../components/usePageTitle';
import type { DatasetContext } from './context';
import '../../components/catalog/dataset.css';

/** The tabs the caller may open: Sharing for managers, Settings for writers. */
export function datasetTabs(dataset: Dataset): TabLink[] {
  const base = `/datasets/${dataset.id}`;
  const { write, manage } = dataset.capabilities;
  return [
    { to: base, label: 'Overview', end: true },
    { to: `${base}/schema`, label: 'Schema' },
    { to: `${base}/checks`, label: 'Checks' },
    { to: `${base}/preview`, label: 'Preview' },
    { to: `${base}/versions`, label: 'Versions' },
    { to: `${base}/lineage`, label: 'Lineage' },
    { to: `${base}/activity`, label: 'Activity' },
    ...(manage ? [{ to: `${base}/sharing`, label: 'Sharing' }] : []),
    ...(write || manage ? [{ to: `${base}/settings`, label: 'Settings' }] : []),
  ];
}

/** /app/datasets/:datasetId: the dataset's name, owner and visibility over its tabs. */
export function DatasetPage() {
  const id = Number(useParams().datasetId);
  const valid = Number.isInteger(id) && id > 0;
  const query = useQuery({ ...getDatasetOptions({ path: { dataset_id: id } }), enabled: valid });
  const dataset = query.data;
  const names = useUserNames([dataset?.owner_id]);
  usePageTitle(dataset?.name ?? (query.error || !valid ? 'Dataset not found' : 'Dataset'));

  if (!valid || (query.error && asApiError(query.error).status === 404)) return <DatasetNotFound />;
  if (query.error) {
    return (
      <>
        <h1>Dataset</h1>
        <ErrorNotice error={query.error} title="The dataset could not be loaded" />
      </>
    );
  }
  if (!dataset) return <Loading label="Loading the dataset…" />;
  const context: DatasetContext = { dataset };
  return (
    <>
      <header className="dataset-heading">
        <h1>{dataset.name}</h1>
        <p className="dataset-heading__facts">
          <span>
            Owner: <strong>{ownerLabel(names, dataset.owner_id)}</strong>
          </span>
          <span className={`dataset-visibility dataset-visibility--${dataset.visibility}`}>
            {dataset.visibility === 'private' ? 'Private' : 'Internal: every signed-in person may read it'}
          </span>
        </p>
      </header>
      <Tabs label="Dataset" tabs={datasetTabs(dataset)} />
      <Outlet context={context} />
    </>
  );
}

function DatasetNotFound() {
  return (
    <>
      <h1>Dataset not found</h1>
      <p>This dataset does not exist, was deleted, or is not shared with you.</p>
      <p>
        <Link to="/">Back to the catalog</Link>
      </p>
    </>
  );
}
