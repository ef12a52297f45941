import { useState } from 'react';

import { ErrorNotice } from '../ErrorNotice';

interface Props {
  /** Fetches the bytes (through the generated client, so with the session's bearer). */
  load: () => Promise<Blob>;
  filename: string;
  label?: string;
}

/** Download a file that needs the session's bearer token: fetch it as a blob, then hand
 *  it to the browser as an object URL on an <a download>. */
export function DownloadButton({ load, filename, label = 'Download' }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function download() {
    setBusy(true);
    setError(null);
    try {
      const url = URL.createObjectURL(await load());
      const link = document.createElement('a');
      link.href = url;
      link.download = filename;
      document.body.append(link);
      link.click();
      link.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (problem) {
      setError(problem);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <button type="button" className="button" disabled={busy} onClick={() => void download()}>
        {busy ? 'Downloading…' : label}
      </button>
      <ErrorNotice error={error} title="The download failed" />
    </>
  );
}
