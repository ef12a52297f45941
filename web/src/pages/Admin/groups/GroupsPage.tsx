import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { createGroupMutation, listGroupsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { Group } from '../../../api/gen/types.gen';
import { conflictAt } from '../../../components/admin/fieldErrors';
import { useAnnounce } from '../../../components/Announcer';
import { Field, OtherProblems } from '../../../components/Field';
import { Pager } from '../../../components/Pager';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { isGroupsQuery, sourceName } from './parts';

const LIMIT = 20;

/** The groups (by name, paged by the server) and a form for a new one. */
export function GroupsPage() {
  usePageTitle('Groups');
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const groups = useQuery({ ...listGroupsOptions({ query: { limit: LIMIT, offset } }), placeholderData: keepPreviousData });

  return (
    <>
      <h1>Groups</h1>
      <p className="muted">Share datasets, collections and pipelines with a group instead of with each person.</p>
      <QueryState
        isPending={groups.isPending}
        error={groups.error}
        empty={groups.data?.total === 0}
        emptyText={<p>No groups yet: create the first one below.</p>}
      >
        {groups.data && <GroupsTable groups={groups.data.items} />}
        {groups.data && (
          <Pager
            total={groups.data.total}
            limit={LIMIT}
            offset={offset}
            onOffset={(next) => setParams(next ? { offset: String(next) } : {})}
            label="Pages of groups"
          />
        )}
      </QueryState>
      <NewGroupForm />
    </>
  );
}

function GroupsTable({ groups }: { groups: Group[] }) {
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Groups</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Description</th>
            <th scope="col">Members</th>
            <th scope="col">Members kept by</th>
          </tr>
        </thead>
        <tbody>
          {groups.map((group) => (
            <tr key={group.id}>
              <td>
                <Link to={`/admin/groups/${group.id}`}>{group.name}</Link>
              </td>
              <td>{group.description || <span className="muted">—</span>}</td>
              <td>{group.member_ids.length.toLocaleString()}</td>
              <td>{sourceName(group.source)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NewGroupForm() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const navigate = useNavigate();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const create = useMutation({
    ...createGroupMutation(),
    onSuccess: (group) => {
      void queryClient.invalidateQueries({ predicate: (query) => isGroupsQuery(query.queryKey) });
      announce(`Group ${group.name} created.`);
      navigate(`/admin/groups/${group.id}`);
    },
  });
  const error = conflictAt(create.error, 'name', 'A group with this name already exists.');

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({ body: { name: name.trim(), description } });
  }

  return (
    <section className="admin-section" aria-labelledby="new-group">
      <h2 id="new-group">New group</h2>
      <form onSubmit={submit} noValidate>
        <OtherProblems error={error} shown={['name', 'description']} />
        <Field label="Name" name="name" error={error}>
          <input required value={name} onChange={(event) => setName(event.target.value)} />
        </Field>
        <Field label="Description" name="description" error={error}>
          <textarea rows={2} value={description} onChange={(event) => setDescription(event.target.value)} />
        </Field>
        <button type="submit" className="button button--primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create group'}
        </button>
      </form>
    </section>
  );
}
