import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import {
  deleteDatasetVersionMutation,
  publishDatasetVersionMutation,
  restoreDatasetVersionMutation,
  updateDatasetVersionMutation,
} from '../../../api/gen/@tanstack/react-query.gen';
import type { Capabilities, Version } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { downloadVersion } from './download';
import { refreshVersions } from './queries';

interface Props {
  datasetId: number;
  version: Version;
  isCurrent: boolean;
  capabilities: Capabilities;
  /** A finished action, in words (shown next to the list). */
  onDone: (text: string) => void;
}

/** One version's buttons (by what the caller may do) and the errors of its actions. */
export function VersionActions({ datasetId, version, isCurrent, capabilities, onDone }: Props) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const [confirming, setConfirming] = useState(false);
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const path = { dataset_id: datasetId, version: version.version };
  const finish = async (text: string) => {
    announce(text);
    onDone(text);
    await refreshVersions(queryClient);
  };
  const pin = useMutation({
    ...updateDatasetVersionMutation(),
    onSuccess: (answer) => finish(`Version ${answer.version} ${answer.pinned ? 'pinned' : 'unpinned'}.`),
  });
  const restore = useMutation({
    ...restoreDatasetVersionMutation(),
    onSuccess: (answer) =>
      finish(
        answer.state === 'pending'
          ? `Version ${version.version} restored as version ${answer.version}, pending its checks.`
          : `Version ${version.version} restored as version ${answer.version}, now current.`,
      ),
  });
  const publish = useMutation({
    ...publishDatasetVersionMutation(),
    onSuccess: (answer) => finish(`Version ${answer.version} published although its checks failed.`),
  });
  const remove = useMutation({
    ...deleteDatasetVersionMutation(),
    onSuccess: () => {
      setConfirming(false);
      return finish(`Version ${version.version} deleted.`);
    },
  });
  const label = `version ${version.version}`;

  async function download() {
    setDownloadError(null);
    try {
      await downloadVersion(datasetId, version.version, version.filename);
    } catch (problem) {
      setDownloadError(problem);
    }
  }

  return (
    <div className="versions-actions">
      <div className="actions">
        <button type="button" className="button" onClick={download} aria-label={`Download ${label}`}>
          Download
        </button>
        {capabilities.write && (
          <button
            type="button"
            className="button"
            disabled={pin.isPending}
            aria-label={`${version.pinned ? 'Unpin' : 'Pin'} ${label}`}
            onClick={() => pin.mutate({ path, body: { pinned: !version.pinned } })}
          >
            {version.pinned ? 'Unpin' : 'Pin'}
          </button>
        )}
        {capabilities.write && !isCurrent && (
          <button
            type="button"
            className="button"
            disabled={restore.isPending}
            aria-label={`Restore ${label}`}
            onClick={() => restore.mutate({ path, query: { message: `Restored from version ${version.version}` } })}
          >
            Restore
          </button>
        )}
        {capabilities.manage && version.state === 'quarantined' && (
          <button
            type="button"
            className="button"
            disabled={publish.isPending}
            aria-label={`Publish ${label} anyway`}
            onClick={() => publish.mutate({ path })}
          >
            Publish anyway
          </button>
        )}
        {capabilities.manage && (
          <button type="button" className="button button--danger" aria-label={`Delete ${label}`} onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
      </div>
      <ErrorNotice error={pin.error ?? restore.error ?? publish.error ?? downloadError} />
      {confirming && (
        <ConfirmDialog
          title={`Delete version ${version.version}?`}
          confirmLabel="Delete version"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ path })}
          onCancel={() => {
            setConfirming(false);
            remove.reset();
          }}
        >
          <p>
            Its file ({version.filename || 'unnamed'}) can no longer be downloaded, previewed or restored. Other
            versions stay as they are.
          </p>
          <ErrorNotice error={remove.error} title="Not deleted" />
        </ConfirmDialog>
      )}
    </div>
  );
}
