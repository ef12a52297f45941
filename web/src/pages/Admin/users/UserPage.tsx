import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';

import { deleteUserMutation, getUserOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { User } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatDate } from '../../../components/format';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { ActivationSection } from './ActivationSection';
import { isUsersQuery } from './NewUserPage';
import { providerName, UserStatus } from './parts';
import { RolesForm } from './RolesForm';
import { UserTokens } from './UserTokens';
import { UserUsage } from './UserUsage';

/** One user: who they are, roles, active or not, their personal tokens, what they own. */
export function UserPage() {
  const { userId = '' } = useParams();
  const user = useQuery(getUserOptions({ path: { user_id: userId } }));
  usePageTitle(user.data ? `${user.data.name || user.data.email} · Users` : 'User');
  return (
    <QueryState isPending={user.isPending} error={user.error}>
      {user.data && <UserDetails user={user.data} />}
    </QueryState>
  );
}

function UserDetails({ user }: { user: User }) {
  return (
    <>
      <p>
        <Link to="/admin/users">← All users</Link>
      </p>
      <h1>{user.name || user.email}</h1>
      <dl className="admin-details">
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Status</dt>
        <dd>
          <UserStatus active={user.is_active} />
        </dd>
        <dt>Signs in with</dt>
        <dd>{providerName(user.provider)}</dd>
        <dt>Created</dt>
        <dd>{formatDate(user.created_at)}</dd>
      </dl>
      <RolesForm user={user} />
      <ActivationSection user={user} />
      <UserUsage user={user} />
      <UserTokens user={user} />
      <DeleteSection user={user} />
    </>
  );
}

function DeleteSection({ user }: { user: User }) {
  const [asking, setAsking] = useState(false);
  const navigate = useNavigate();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const remove = useMutation({
    ...deleteUserMutation(),
    onSuccess: () => {
      void queryClient.invalidateQueries({ predicate: (query) => isUsersQuery(query.queryKey) });
      announce(`User ${user.email} deleted.`);
      navigate('/admin/users');
    },
    onSettled: () => setAsking(false),
  });
  return (
    <section className="admin-section" aria-labelledby="delete-user">
      <h2 id="delete-user">Delete</h2>
      <p className="muted">
        Only a user who owns no datasets, collections or pipelines can be deleted; deactivate the others to keep what
        they made.
      </p>
      <ErrorNotice error={remove.error} title="Not deleted" />
      <button type="button" className="button button--danger" onClick={() => setAsking(true)}>
        Delete user
      </button>
      {asking && (
        <ConfirmDialog
          title={`Delete ${user.name || user.email}?`}
          confirmLabel="Delete user"
          busy={remove.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => remove.mutate({ path: { user_id: user.id } })}
        >
          <p>
            The account of {user.email} is deleted for good, with its sessions, personal tokens and group memberships.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
