import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';

import type { Dataset, Profile } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatCount, formatDate } from '../../../components/format';
import { Loading } from '../../../components/States';
import { ColumnProfiles } from './ColumnProfiles';
import './Schema.css';
import { downloadDataPackage } from './dataPackage';
import { useProfile } from './useProfile';

/** Says when statistics this page waited for are ready, or will not come; once ready,
 *  the dataset is read again for the schema the worker read with them. */
function useProfileEnd(status: Profile['status'] | undefined, version: number | null) {
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const was = useRef(status);
  useEffect(() => {
    if (was.current === 'pending' && status === 'ready') {
      announce(`The statistics of version ${version} are ready.`);
      void queryClient.invalidateQueries({ predicate: (query) => (query.queryKey[0] as { _id?: string } | undefined)?._id === 'getDataset' });
    }
    if (was.current === 'pending' && status === 'failed') announce(`Version ${version} has no statistics.`);
    was.current = status;
  }, [announce, queryClient, status, version]);
}

/** The current version's statistics: pending while a worker reads it, why not when it
 *  could not, else each column's; and its Data Package to download. */
export function ProfileSection({ dataset }: { dataset: Dataset }) {
  const version = dataset.current_version ?? null;
  const profile = useProfile(dataset.id, version);
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const data = profile.data as Profile | undefined;
  useProfileEnd(data?.status, version);
  if (version === null) return null;
  let body;
  if (profile.error) {
    body = <ErrorNotice error={profile.error} title="The statistics could not be read" />;
  } else if (!data) {
    body = <Loading label="Reading the statistics…" />;
  } else if (data.status === 'pending') {
    body = (
      <p role="status" className="muted">
        A worker is computing the statistics of version {version}; they show here when ready.
      </p>
    );
  } else if (data.status === 'failed') {
    body = (
      <div className="notice notice--warn">
        <p>Version {version} has no statistics: {data.error}</p>
      </div>
    );
  } else {
    body = (
      <>
        <p>
          {formatCount(data.rows)} rows in version {version}, computed {formatDate(data.computed_at)}.
          {data.partial && ' The quartiles are estimated from a sample of the rows.'}
        </p>
        <ColumnProfiles columns={data.columns ?? []} partial={data.partial ?? false} />
      </>
    );
  }
  return (
    <section aria-labelledby="statistics-title">
      <h3 id="statistics-title">Statistics</h3>
      {body}
      {data?.status === 'ready' && (
        <p>
          <button
            type="button"
            className="button"
            onClick={() => {
              setDownloadError(null);
              downloadDataPackage(dataset.id, version).catch(setDownloadError);
            }}
          >
            Download the Data Package (datapackage.json)
          </button>
        </p>
      )}
      {downloadError !== null && <ErrorNotice error={downloadError} title="The Data Package could not be downloaded" />}
    </section>
  );
}
