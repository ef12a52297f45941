import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { listPipelinesOptions } from '../../../api/gen/@tanstack/react-query.gen';
import { downloadDatasetFile } from '../../../api/gen/sdk.gen';
import type { Dataset } from '../../../api/gen/types.gen';
import { DownloadButton } from '../../../components/catalog/DownloadButton';
import { fileFormat } from '../../../components/catalog/fileFormat';
import { Markdown } from '../../../components/catalog/Markdown';
import { TagLinks } from '../../../components/catalog/TagLinks';
import { ownerLabel, useUserNames } from '../../../components/catalog/useUserNames';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatBytes, formatCount, formatDate } from '../../../components/format';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';
import { ReadmeSection } from './ReadmeSection';

/** The dataset's Overview tab: its description, README, facts (with its use in the last
 *  30 days), file and download, and the pipelines that read it. */
export function OverviewTab() {
  const dataset = useDataset();
  usePageTitle(`${dataset.name}: overview`);
  const names = useUserNames([dataset.owner_id]);
  return (
    <>
      <section className="dataset-section" aria-labelledby="overview-description">
        <h2 id="overview-description">Description</h2>
        {dataset.description.trim() ? (
          <Markdown text={dataset.description} />
        ) : (
          <p className="muted">
            No description yet.{' '}
            {dataset.capabilities.write && <Link to={`/datasets/${dataset.id}/settings`}>Write one in Settings.</Link>}
          </p>
        )}
      </section>
      <ReadmeSection dataset={dataset} />
      <section className="dataset-section" aria-labelledby="overview-facts">
        <h2 id="overview-facts">About</h2>
        <dl className="dataset-facts">
          <dt>Tags</dt>
          <dd>{dataset.tags.length ? <TagLinks tags={dataset.tags} /> : <span className="muted">None</span>}</dd>
          <dt>Owner</dt>
          <dd>{ownerLabel(names, dataset.owner_id)}</dd>
          <dt>Visibility</dt>
          <dd>{dataset.visibility === 'private' ? 'Private' : 'Internal'}</dd>
          <dt>Created</dt>
          <dd>{formatDate(dataset.created_at)}</dd>
          <dt>Updated</dt>
          <dd>{formatDate(dataset.updated_at)}</dd>
          <dt>Views, last 30 days</dt>
          <dd>{formatCount(dataset.stats.views_30d)}</dd>
          <dt>Downloads, last 30 days</dt>
          <dd>{formatCount(dataset.stats.downloads_30d)}</dd>
        </dl>
      </section>
      <FileSection dataset={dataset} />
      <ReadBy datasetId={dataset.id} />
    </>
  );
}

function FileSection({ dataset }: { dataset: Dataset }) {
  const file = dataset.file;
  return (
    <section className="dataset-section" aria-labelledby="overview-file">
      <h2 id="overview-file">File</h2>
      {file ? (
        <>
          <dl className="dataset-facts">
            <dt>Current version</dt>
            <dd>{dataset.current_version ?? '—'}</dd>
            <dt>File name</dt>
            <dd>{file.filename || '—'}</dd>
            <dt>Format</dt>
            <dd>{fileFormat(file)}</dd>
            <dt>Size</dt>
            <dd>{formatBytes(file.size_bytes)}</dd>
            {dataset.schema && (
              <>
                <dt>Rows</dt>
                <dd>{formatCount(dataset.schema.rows)}</dd>
                <dt>Columns</dt>
                <dd>{formatCount(dataset.schema.columns.length)}</dd>
              </>
            )}
            <dt>Uploaded</dt>
            <dd>{formatDate(file.uploaded_at)}</dd>
          </dl>
          <DownloadButton
            label={`Download ${file.filename || 'the file'}`}
            filename={file.filename || `dataset-${dataset.id}`}
            load={async () => {
              const { data } = await downloadDatasetFile({ path: { dataset_id: dataset.id }, parseAs: 'blob', throwOnError: true });
              return data as Blob;
            }}
          />
        </>
      ) : (
        <div className="notice notice--warn">
          <p>This dataset has no file yet.</p>
          {dataset.capabilities.write ? (
            <p>
              <Link to={`/datasets/${dataset.id}/versions`}>Upload its first file in the Versions tab.</Link>
            </p>
          ) : (
            <p>Its owner has not uploaded one.</p>
          )}
        </div>
      )}
    </section>
  );
}

/** The pipelines that read this dataset (the first few the caller may see). */
function ReadBy({ datasetId }: { datasetId: number }) {
  const pipelines = useQuery(listPipelinesOptions({ query: { source_dataset_id: datasetId, limit: 10, sort: 'name' } }));
  const items = pipelines.data?.items ?? [];
  return (
    <section className="dataset-section" aria-labelledby="overview-usage">
      <h2 id="overview-usage">Pipelines that read it</h2>
      <ErrorNotice error={pipelines.error} />
      {pipelines.isPending ? (
        <p className="muted">Loading…</p>
      ) : items.length === 0 ? (
        <p className="muted">No pipeline you can see reads this dataset.</p>
      ) : (
        <ul>
          {items.map((pipeline) => (
            <li key={pipeline.id}>
              <Link to={`/pipelines/${pipeline.id}`}>{pipeline.name}</Link>
            </li>
          ))}
          {(pipelines.data?.total ?? 0) > items.length && <li className="muted">and {(pipelines.data!.total - items.length).toLocaleString()} more</li>}
        </ul>
      )}
    </section>
  );
}
