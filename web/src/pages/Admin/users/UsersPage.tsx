import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';

import { listUsersOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { User } from '../../../api/gen/types.gen';
import { formatDate } from '../../../components/format';
import { Pager } from '../../../components/Pager';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { providerName, RoleTags, UserStatus } from './parts';

const LIMIT = 20;

/** Every user, searched by name or email and paged by the server (both kept in the URL). */
export function UsersPage() {
  usePageTitle('Users');
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]); // back and forward change the search too
  const users = useQuery({
    ...listUsersOptions({ query: { q: q || undefined, limit: LIMIT, offset } }),
    placeholderData: keepPreviousData,
  });

  function search(event: FormEvent) {
    event.preventDefault();
    setParams(typed.trim() ? { q: typed.trim() } : {});
  }

  function goTo(next: number) {
    const copy = new URLSearchParams(params);
    if (next) copy.set('offset', String(next));
    else copy.delete('offset');
    setParams(copy);
  }

  return (
    <>
      <h1>Users</h1>
      <div className="admin-toolbar">
        <form role="search" aria-label="Users" onSubmit={search}>
          <div className="field">
            <label htmlFor="user-search">Search by name or email</label>
            <input id="user-search" type="search" value={typed} onChange={(event) => setTyped(event.target.value)} />
          </div>
          <button type="submit" className="button">
            Search
          </button>
        </form>
        <Link to="/admin/users/new" className="button button--primary">
          New user
        </Link>
      </div>
      <QueryState
        isPending={users.isPending}
        error={users.error}
        empty={users.data?.items.length === 0}
        emptyText={q ? <p>No user's name or email contains “{q}”. Try a shorter search.</p> : <p>No users yet: create one with “New user”.</p>}
      >
        {users.data && <UsersTable users={users.data.items} />}
        {users.data && (
          <Pager total={users.data.total} limit={LIMIT} offset={offset} onOffset={goTo} label="Pages of users" />
        )}
      </QueryState>
    </>
  );
}

function UsersTable({ users }: { users: User[] }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Users</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Roles</th>
            <th scope="col">Status</th>
            <th scope="col">Signs in with</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {users.map((user) => (
            <tr key={user.id}>
              <td>
                <Link to={`/admin/users/${user.id}`}>{user.name || user.email}</Link>
              </td>
              <td className="admin-cell-email">{user.email}</td>
              <td>
                <RoleTags roles={user.roles} />
              </td>
              <td>
                <UserStatus active={user.is_active} />
              </td>
              <td>{providerName(user.provider)}</td>
              <td>{formatDate(user.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
