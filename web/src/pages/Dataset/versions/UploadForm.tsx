import { useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';

import { uploadDatasetFile } from '../../../api/upload';
import { useAnnounce } from '../../../components/Announcer';
import { Field, OtherProblems } from '../../../components/Field';
import { refreshVersions } from './queries';

interface Uploaded {
  current_version?: number | null;
}

/** "Upload a new version": a file and a message, with progress and Cancel while it is sent. */
export function UploadForm({ datasetId }: { datasetId: number }) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const progressLabel = useId();
  const form = useRef<HTMLFormElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [message, setMessage] = useState('');
  const [fraction, setFraction] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');
  const controller = useRef<AbortController | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setError(null);
    setDone('');
    setFraction(0);
    controller.current = new AbortController();
    try {
      const answer = (await uploadDatasetFile(datasetId, file, message.trim(), {
        onProgress: setFraction,
        signal: controller.current.signal,
      })) as Uploaded | null;
      const text = `Uploaded ${file.name} as version ${answer?.current_version ?? ''}.`.replace(' .', '.');
      setDone(text);
      announce(text);
      setFile(null);
      setMessage('');
      form.current?.reset();
      await refreshVersions(queryClient);
    } catch (problem) {
      if (problem instanceof DOMException && problem.name === 'AbortError') {
        setDone('Upload cancelled: nothing was stored.');
        announce('Upload cancelled.');
      } else {
        setError(problem);
      }
    } finally {
      setFraction(null);
      controller.current = null;
    }
  }

  const sending = fraction !== null;
  return (
    <form ref={form} className="versions-upload card" onSubmit={submit} aria-labelledby={`${progressLabel}-title`}>
      <h3 id={`${progressLabel}-title`}>Upload a new version</h3>
      <Field label="File" hint="CSV, Parquet or JSON lines; it becomes the current version.">
        <input type="file" disabled={sending} onChange={(event) => setFile(event.target.files?.[0] ?? null)} />
      </Field>
      <Field label="Message" name="message" error={error} hint="What changed (optional).">
        <input type="text" maxLength={255} value={message} disabled={sending} onChange={(event) => setMessage(event.target.value)} />
      </Field>
      {sending && (
        <div className="versions-upload__progress">
          <label id={progressLabel} htmlFor={`${progressLabel}-bar`}>
            Sending {file?.name}: {Math.round(fraction * 100)}%
          </label>
          <progress id={`${progressLabel}-bar`} max={1} value={fraction} aria-labelledby={progressLabel} />
        </div>
      )}
      <OtherProblems error={error} shown={['message']} />
      {done && <p className="notice notice--ok">{done}</p>}
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={sending || !file}>
          Upload
        </button>
        {sending && (
          <button type="button" className="button" onClick={() => controller.current?.abort()}>
            Cancel upload
          </button>
        )}
      </div>
    </form>
  );
}
