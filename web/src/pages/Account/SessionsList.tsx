import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';

import { deleteSessionMutation, listSessionsOptions, listSessionsQueryKey } from '../../api/gen/@tanstack/react-query.gen';
import type { Session } from '../../api/gen/types.gen';
import { signOut } from '../../api/session';
import { useAnnounce } from '../../components/Announcer';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatAgo, formatDate } from '../../components/format';
import { Pager } from '../../components/Pager';
import { QueryState } from '../../components/States';
import { deviceName } from './device';

const LIMIT = 20;

/** My sessions (logins), this one marked; end another one, or all of them. */
export function SessionsList() {
  const [offset, setOffset] = useState(0);
  const [ending, setEnding] = useState<Session | null>(null);
  const [everywhere, setEverywhere] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const navigate = useNavigate();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const sessions = useQuery(listSessionsOptions({ query: { limit: LIMIT, offset } }));
  const end = useMutation({
    ...deleteSessionMutation(),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: listSessionsQueryKey() });
      announce(`The session on ${ending ? deviceName(ending.user_agent) : 'that device'} has ended.`);
    },
    onSettled: () => setEnding(null),
  });

  async function signOutEverywhere() {
    setLeaving(true);
    await signOut(true).catch(() => undefined);
    navigate('/sign-in');
  }

  return (
    <section className="account-section" aria-labelledby="sessions">
      <h2 id="sessions">Where you are signed in</h2>
      <ErrorNotice error={end.error} title="Not ended" />
      <QueryState isPending={sessions.isPending} error={sessions.error}>
        <ul className="account-sessions">
          {sessions.data?.items.map((session) => (
            <SessionItem key={session.id} session={session} onEnd={() => setEnding(session)} />
          ))}
        </ul>
        {sessions.data && (
          <Pager total={sessions.data.total} limit={LIMIT} offset={offset} onOffset={setOffset} label="Pages of sessions" />
        )}
      </QueryState>
      <div className="actions">
        <button type="button" className="button button--danger" onClick={() => setEverywhere(true)}>
          Sign out everywhere
        </button>
      </div>
      {ending && (
        <ConfirmDialog
          title={`End the session on ${deviceName(ending.user_agent)}?`}
          confirmLabel="End session"
          busy={end.isPending}
          onCancel={() => setEnding(null)}
          onConfirm={() => end.mutate({ path: { session_id: ending.id } })}
        >
          <p>That browser or device is signed out at its next request and has to sign in again.</p>
        </ConfirmDialog>
      )}
      {everywhere && (
        <ConfirmDialog
          title="Sign out everywhere?"
          confirmLabel="Sign out everywhere"
          busy={leaving}
          onCancel={() => setEverywhere(false)}
          onConfirm={() => void signOutEverywhere()}
        >
          <p>Every session of yours ends, this one too, on every browser and device. Personal access tokens keep working.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function SessionItem({ session, onEnd }: { session: Session; onEnd: () => void }) {
  return (
    <li className="card account-session">
      <div className="account-session__head">
        <span className="account-session__device">
          {deviceName(session.user_agent)}
          {session.current && (
            <>
              {' '}
              <span className="tag tag--current">This session</span>
            </>
          )}
        </span>
        {session.current ? (
          <span className="muted">Use “Sign out” to end this one</span>
        ) : (
          <button type="button" className="button" onClick={onEnd}>
            End{' '}<span className="visually-hidden">the session on {deviceName(session.user_agent)}</span>
          </button>
        )}
      </div>
      <dl>
        <div>
          <dt>Address</dt>
          <dd>{session.client_address ?? 'Unknown'}</dd>
        </div>
        <div>
          <dt>Signed in</dt>
          <dd>{formatDate(session.created_at)}</dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd title={formatDate(session.last_used_at)}>{formatAgo(session.last_used_at)}</dd>
        </div>
      </dl>
    </li>
  );
}
