import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';

import { acceptAccessToken } from '../../api/session';
import { changePasswordMutation, listSessionsQueryKey } from '../../api/gen/@tanstack/react-query.gen';
import { problemAt } from '../../components/admin/fieldErrors';
import { useAnnounce } from '../../components/Announcer';
import { Field, OtherProblems } from '../../components/Field';

const SHOWN = ['current_password', 'new_password'];

/** A local user's own password: the current one, the new one twice. The service ends every
 *  other session; this one goes on. */
export function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const change = useMutation({
    ...changePasswordMutation(),
    onSuccess: (answer) => {
      acceptAccessToken(answer.access_token);
      setCurrent('');
      setNext('');
      setAgain('');
      setDone(true);
      void queryClient.invalidateQueries({ queryKey: listSessionsQueryKey() });
      announce('Password changed. Your other sessions have ended.');
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    if (next !== again) {
      setMismatch(true);
      change.reset();
      return;
    }
    setMismatch(false);
    change.mutate({ body: { current_password: current, new_password: next } });
  }

  const confirmError = mismatch ? problemAt('confirm', 'The two new passwords are not the same.') : null;
  return (
    <section className="account-section" aria-labelledby="password">
      <h2 id="password">Change password</h2>
      <form onSubmit={submit} noValidate>
        <OtherProblems error={change.error} shown={SHOWN} />
        <Field label="Current password" name="current_password" error={change.error}>
          <input type="password" autoComplete="current-password" required value={current} onChange={(event) => setCurrent(event.target.value)} />
        </Field>
        <Field label="New password" name="new_password" error={change.error} hint="8 to 72 bytes (about 8 to 72 letters).">
          <input type="password" autoComplete="new-password" required value={next} onChange={(event) => setNext(event.target.value)} />
        </Field>
        <Field label="New password again" name="confirm" error={confirmError}>
          <input type="password" autoComplete="new-password" required value={again} onChange={(event) => setAgain(event.target.value)} />
        </Field>
        {done && (
          <p className="notice notice--ok">
            Password changed. Every other session of yours has ended (other browsers and devices sign in again with the
            new password); this one goes on.
          </p>
        )}
        <button type="submit" className="button button--primary" disabled={change.isPending}>
          {change.isPending ? 'Changing…' : 'Change password'}
        </button>
      </form>
    </section>
  );
}
