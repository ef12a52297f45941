import { useEffect, useRef } from 'react';
import { useBlocker } from 'react-router';

import type { Dataset } from '../../../api/gen/types.gen';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import type { Phase } from './useCreateWithFile';

/** The upload under way: a labelled progress bar and Cancel. */
export function UploadProgress({ fraction, onCancel }: { fraction: number; onCancel: () => void }) {
  const percent = Math.round(fraction * 100);
  return (
    <div className="dataset-progress" role="group" aria-label="Upload">
      <label htmlFor="new-dataset-progress">Uploading the file: {percent}%</label>
      <progress id="new-dataset-progress" max={100} value={percent}>
        {percent}%
      </progress>
      <div className="actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel the upload
        </button>
      </div>
    </div>
  );
}

interface ChoiceProps {
  dataset: Dataset;
  error: unknown;
  cancelled: boolean;
  busy: boolean;
  canRetry: boolean;
  onRetry: () => void;
  onKeep: () => void;
  onDelete: () => void;
}

/** The dataset exists but its file did not arrive: the person chooses what happens. */
export function UploadChoice({ dataset, error, cancelled, busy, canRetry, onRetry, onKeep, onDelete }: ChoiceProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div className="notice notice--warn" role="group" aria-labelledby="upload-choice-title">
      <h2 id="upload-choice-title" ref={heading} tabIndex={-1}>
        {cancelled ? 'The upload was cancelled' : 'The upload failed'}
      </h2>
      <p>
        The dataset <strong>{dataset.name}</strong> was created, but it has no file. What should happen to it?
      </p>
      {!cancelled && <ErrorNotice error={error} title="Why" />}
      <div className="actions">
        <button type="button" className="button button--primary" disabled={busy || !canRetry} onClick={onRetry}>
          Try the upload again
        </button>
        <button type="button" className="button" disabled={busy} onClick={onKeep}>
          Keep the dataset without a file
        </button>
        <button type="button" className="button button--danger" disabled={busy} onClick={onDelete}>
          {busy ? 'Deleting…' : 'Delete the dataset'}
        </button>
      </div>
    </div>
  );
}

/** Leaving while the new dataset waits for its file asks first (in the app and on
 *  reload), so that no empty dataset is left behind without the person knowing. */
export function LeaveGuard({ phase }: { phase: Phase }) {
  const pending = phase.step === 'uploading' || phase.step === 'upload-failed';
  const blocker = useBlocker(({ currentLocation, nextLocation }) => pending && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (!pending) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [pending]);
  if (blocker.state !== 'blocked' || !('dataset' in phase)) return null;
  return (
    <ConfirmDialog
      title="Leave without the file?"
      confirmLabel="Leave; keep the dataset without a file"
      onConfirm={() => blocker.proceed()}
      onCancel={() => blocker.reset()}
    >
      <p>
        The dataset <strong>{phase.dataset.name}</strong> exists but has no file{phase.step === 'uploading' ? ' yet: the upload stops' : ''}.
      </p>
    </ConfirmDialog>
  );
}
