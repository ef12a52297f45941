import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { FormEvent } from 'react';

import { errorFrom } from '../../api/errors';
import { getLoginProvidersOptions } from '../../api/gen/@tanstack/react-query.gen';
import { signIn } from '../../api/session';

interface Props {
  email?: string;
  /** Where the SSO provider sends the browser back to (a path of this site). */
  next: string;
  onSignedIn: () => void;
}

/** Email and password, and "Sign in with SSO" when the service has OpenID Connect on. */
export function SignInForm({ email: initialEmail = '', next, onSignedIn }: Props) {
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const providers = useQuery({ ...getLoginProvidersOptions(), staleTime: Infinity });
  const id = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const failed = await signIn(email, password);
      if (failed) {
        setProblem((await errorFrom(failed)).message);
        return;
      }
      setPassword('');
      onSignedIn();
    } catch {
      setProblem('The service cannot be reached. Check the connection and try again.');
    } finally {
      setBusy(false);
    }
  }

  const oidc = providers.data?.oidc;
  return (
    <div className="sign-in">
      <form onSubmit={submit} aria-describedby={problem ? `${id}-problem` : undefined}>
        {problem && (
          <p id={`${id}-problem`} role="alert" className="notice notice--error">
            {problem}
          </p>
        )}
        <div className="field">
          <label htmlFor={`${id}-email`}>Email</label>
          <input
            id={`${id}-email`}
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-password`}>Password</label>
          <input
            id={`${id}-password`}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </div>
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {oidc && (
        <p className="sign-in__sso">
          <a className="button" href={`${oidc.login_url}?next=${encodeURIComponent(next)}`}>
            Sign in with {oidc.name || 'SSO'}
          </a>
        </p>
      )}
    </div>
  );
}
