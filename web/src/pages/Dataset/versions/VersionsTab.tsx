import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { listDatasetVersionsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { Version } from '../../../api/gen/types.gen';
import { formatBytes, formatDate } from '../../../components/format';
import { Pager } from '../../../components/Pager';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';
import { CompareForm } from './CompareForm';
import { UploadForm } from './UploadForm';
import { usePeople } from './queries';
import { VersionActions } from './VersionActions';
import './Versions.css';

const PAGE = 20;

/** The Versions tab: every version, newest first, with what the caller may do to each. */
export function VersionsTab() {
  const dataset = useDataset();
  usePageTitle(`Versions · ${dataset.name}`);
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const query = useQuery(listDatasetVersionsOptions({ path: { dataset_id: dataset.id }, query: { limit: PAGE, offset } }));
  const versions = query.data?.items ?? [];
  const people = usePeople(versions.map((version) => version.created_by));
  const [done, setDone] = useState('');

  const madeBy = (version: Version) => {
    const person = version.created_by ? people.get(version.created_by) : undefined;
    const who = person ? person.name || person.email : version.created_by ? 'a user' : 'a deleted user';
    if (version.run_id !== null) return `Pipeline run #${version.run_id}`;
    return `Upload by ${who}`;
  };

  return (
    <section className="versions" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      {dataset.capabilities.write && <UploadForm datasetId={dataset.id} />}
      {done && (
        <p className="notice notice--ok" role="status">
          {done}
        </p>
      )}
      <QueryState
        isPending={query.isPending}
        error={query.error}
        empty={query.data?.total === 0}
        emptyText={
          dataset.capabilities.write
            ? 'No versions yet: upload a file above to make version 1.'
            : 'No versions yet: the owner has not uploaded a file.'
        }
      >
        <div className="table-wrap">
          <table className="versions-table">
            <caption className="visually-hidden">Versions of {dataset.name}, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Created</th>
                <th scope="col">Message</th>
                <th scope="col">File</th>
                <th scope="col">Made by</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {versions.map((version) => {
                const isCurrent = version.version === dataset.current_version;
                return (
                  <tr key={version.version} aria-current={isCurrent ? 'true' : undefined}>
                    <th scope="row">
                      <span className="versions-table__number">{version.version}</span>{' '}
                      {isCurrent && <span className="tag versions-tag--current">current</span>}{' '}
                      {version.pinned && <span className="tag versions-tag--pinned">pinned</span>}{' '}
                      {version.state !== 'published' && (
                        <Link className={`tag versions-tag--${version.state}`} to={`/datasets/${dataset.id}/checks?version=${version.version}`}>
                          {version.state === 'pending' ? 'pending checks' : 'quarantined'}
                        </Link>
                      )}
                    </th>
                    <td>{formatDate(version.created_at)}</td>
                    <td>{version.message || <span className="muted">no message</span>}</td>
                    <td>
                      {version.filename || <span className="muted">unnamed</span>}
                      <br />
                      <span className="muted">
                        {formatBytes(version.size_bytes)}
                        {version.format ? ` · ${version.format}` : ''}
                      </span>
                    </td>
                    <td>{madeBy(version)}</td>
                    <td>
                      <VersionActions
                        datasetId={dataset.id}
                        version={version}
                        isCurrent={isCurrent}
                        capabilities={dataset.capabilities}
                        onDone={setDone}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <Pager
          label="Version pages"
          total={query.data?.total ?? 0}
          limit={PAGE}
          offset={offset}
          onOffset={(next) => setParams(next ? { offset: String(next) } : {})}
        />
        {(query.data?.total ?? 0) > 1 && <CompareForm datasetId={dataset.id} versions={versions} />}
      </QueryState>
    </section>
  );
}
