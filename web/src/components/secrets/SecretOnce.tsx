import './SecretOnce.css';
import { useId, useState } from 'react';

import { useAnnounce } from '../Announcer';

/** A secret the service shows once (a token, a webhook's signing secret): read-only, with
 *  a Copy button, and the warning that it will not be shown again. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const id = useId();
  const announce = useAnnounce();
  const [copied, setCopied] = useState(false);

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
      announce('Copied');
    } catch {
      announce('Copying was refused: select the text and copy it by hand');
    }
  }

  return (
    <div className="notice notice--ok secret-once">
      <label htmlFor={id}>{label}</label>
      <p className="secret-once__warning">Copy it now: it will not be shown again.</p>
      <div className="secret-once__row">
        <input id={id} readOnly value={secret} className="secret-once__value" onFocus={(event) => event.target.select()} />
        <button type="button" className="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <button type="button" className="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
