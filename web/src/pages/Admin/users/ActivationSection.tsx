import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { listUserTokensQueryKey, updateUserMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { User } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { isUsersQuery } from './NewUserPage';

/** Deactivate (after a confirmation: their sessions end and their tokens are deleted) or
 *  activate again. */
export function ActivationSection({ user }: { user: User }) {
  const [asking, setAsking] = useState(false);
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const update = useMutation({
    ...updateUserMutation(),
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ predicate: (query) => isUsersQuery(query.queryKey) });
      void queryClient.invalidateQueries({ queryKey: listUserTokensQueryKey({ path: { user_id: user.id } }) });
      announce(saved.is_active ? `${saved.email} is active again.` : `${saved.email} is deactivated.`);
    },
    onSettled: () => setAsking(false),
  });
  const setActive = (active: boolean) => update.mutate({ path: { user_id: user.id }, body: { is_active: active } });

  return (
    <section className="admin-section" aria-labelledby="user-activation">
      <h2 id="user-activation">Access</h2>
      {user.is_active ? (
        <p>This user can sign in.</p>
      ) : (
        <p>This user is deactivated: they cannot sign in, and nothing they made was deleted.</p>
      )}
      <ErrorNotice error={update.error} title={user.is_active ? 'Not deactivated' : 'Not activated'} />
      {user.is_active ? (
        <button type="button" className="button button--danger" onClick={() => setAsking(true)}>
          Deactivate
        </button>
      ) : (
        <button type="button" className="button button--primary" disabled={update.isPending} onClick={() => setActive(true)}>
          Activate
        </button>
      )}
      {asking && (
        <ConfirmDialog
          title={`Deactivate ${user.name || user.email}?`}
          confirmLabel="Deactivate"
          busy={update.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => setActive(false)}
        >
          <p>
            They cannot sign in any more, every session of theirs ends at once, and their personal access tokens are
            deleted for good (activating them again brings none back). What they own stays.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
