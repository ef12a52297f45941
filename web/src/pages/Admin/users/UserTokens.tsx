import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import {
  deleteUserTokenMutation,
  listUserTokensOptions,
  listUserTokensQueryKey,
} from '../../../api/gen/@tanstack/react-query.gen';
import type { PersonalToken, User } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatAgo, formatDate } from '../../../components/format';
import { Pager } from '../../../components/Pager';
import { QueryState } from '../../../components/States';

const LIMIT = 20;

/** A user's personal access tokens; an admin can revoke any (it stops working at once). */
export function UserTokens({ user }: { user: User }) {
  const [offset, setOffset] = useState(0);
  const [revoking, setRevoking] = useState<PersonalToken | null>(null);
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const tokens = useQuery(listUserTokensOptions({ path: { user_id: user.id }, query: { limit: LIMIT, offset } }));
  const revoke = useMutation({
    ...deleteUserTokenMutation(),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: listUserTokensQueryKey({ path: { user_id: user.id } }) });
      announce(`Token “${revoking?.name}” revoked.`);
    },
    onSettled: () => setRevoking(null),
  });

  return (
    <section className="admin-section" aria-labelledby="user-tokens">
      <h2 id="user-tokens">Personal access tokens</h2>
      <ErrorNotice error={revoke.error} title="Not revoked" />
      <QueryState
        isPending={tokens.isPending}
        error={tokens.error}
        empty={tokens.data?.total === 0}
        emptyText={<p>No personal access tokens: this user makes them on their Tokens page.</p>}
      >
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Personal access tokens of {user.email}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data?.items.map((token) => (
                <tr key={token.id}>
                  <td>{token.name}</td>
                  <td>{token.scopes.join(', ')}</td>
                  <td>{formatDate(token.created_at)}</td>
                  <td>{formatDate(token.expires_at)}</td>
                  <td>{token.last_used_at ? formatAgo(token.last_used_at) : 'Never'}</td>
                  <td>
                    <button type="button" className="button" onClick={() => setRevoking(token)}>
                      Revoke{' '}<span className="visually-hidden">{token.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {tokens.data && <Pager total={tokens.data.total} limit={LIMIT} offset={offset} onOffset={setOffset} label="Pages of tokens" />}
      </QueryState>
      {revoking && (
        <ConfirmDialog
          title={`Revoke “${revoking.name}”?`}
          confirmLabel="Revoke token"
          busy={revoke.isPending}
          onCancel={() => setRevoking(null)}
          onConfirm={() => revoke.mutate({ path: { user_id: user.id, token_id: revoking.id } })}
        >
          <p>Scripts that use it get “401 Invalid token” from their next request. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
