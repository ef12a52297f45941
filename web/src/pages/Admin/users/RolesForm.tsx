import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';

import { updateUserMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { Role, User } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { OtherProblems } from '../../../components/Field';
import { isUsersQuery } from './NewUserPage';
import { RoleChoices } from './RoleChoices';

/** A user's roles as checkboxes, saved together (409: the last active admin keeps admin). */
export function RolesForm({ user }: { user: User }) {
  const [roles, setRoles] = useState<Role[]>(user.roles);
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const save = useMutation({
    ...updateUserMutation(),
    onSuccess: (saved) => {
      setRoles(saved.roles);
      void queryClient.invalidateQueries({ predicate: (query) => isUsersQuery(query.queryKey) });
      announce(`Roles saved: ${saved.roles.join(', ') || 'none'}.`);
    },
  });
  const changed = [...roles].sort().join() !== [...user.roles].sort().join();

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ path: { user_id: user.id }, body: { roles } });
  }

  return (
    <section className="admin-section" aria-labelledby="user-roles">
      <h2 id="user-roles">Roles</h2>
      <form onSubmit={submit}>
        <OtherProblems error={save.error} shown={['roles']} />
        <RoleChoices roles={roles} onChange={setRoles} error={save.error} legendHidden />
        <button type="submit" className="button button--primary" disabled={!changed || save.isPending}>
          {save.isPending ? 'Saving…' : 'Save roles'}
        </button>
      </form>
    </section>
  );
}
