import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';

import { createUserMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { Role } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { conflictAt } from '../../../components/admin/fieldErrors';
import { Field, OtherProblems } from '../../../components/Field';
import { usePageTitle } from '../../../components/usePageTitle';
import { RoleChoices } from './RoleChoices';

const SHOWN = ['email', 'name', 'password', 'roles'];

/** A new local user: email, name, password and roles (409: the email is taken). */
export function NewUserPage() {
  usePageTitle('New user');
  const navigate = useNavigate();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [roles, setRoles] = useState<Role[]>(['viewer']);
  const create = useMutation({
    ...createUserMutation(),
    onSuccess: (user) => {
      void queryClient.invalidateQueries({ predicate: (query) => isUsersQuery(query.queryKey) });
      announce(`User ${user.email} created.`);
      navigate(`/admin/users/${user.id}`);
    },
  });
  const error = conflictAt(create.error, 'email', 'A user with this email already exists.');

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ body: { email: email.trim(), name: name.trim(), password, roles } });
  }

  return (
    <>
      <h1>New user</h1>
      <p className="muted">They sign in with this email and password; they can change the password on their account page.</p>
      <form onSubmit={submit} noValidate>
        <OtherProblems error={error} shown={SHOWN} />
        <Field label="Email" name="email" error={error}>
          <input type="email" autoComplete="off" required value={email} onChange={(event) => setEmail(event.target.value)} />
        </Field>
        <Field label="Name" name="name" error={error}>
          <input autoComplete="off" value={name} onChange={(event) => setName(event.target.value)} />
        </Field>
        <Field label="Password" name="password" error={error} hint="8 to 72 bytes (about 8 to 72 letters).">
          <input type="password" autoComplete="new-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
        </Field>
        <RoleChoices roles={roles} onChange={setRoles} error={error} />
        <div className="actions">
          <button type="submit" className="button button--primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create user'}
          </button>
          <Link to="/admin/users" className="button">
            Cancel
          </Link>
        </div>
      </form>
    </>
  );
}

export function isUsersQuery(key: readonly unknown[]): boolean {
  const id = (key[0] as { _id?: string } | undefined)?._id;
  return id === 'listUsers' || id === 'getUser';
}
