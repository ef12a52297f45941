import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';

import { deleteGroupMutation, getGroupOptions, updateGroupMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { Group } from '../../../api/gen/types.gen';
import { conflictAt } from '../../../components/admin/fieldErrors';
import { useAnnounce } from '../../../components/Announcer';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Field, OtherProblems } from '../../../components/Field';
import { formatDate } from '../../../components/format';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { GroupMembers } from './GroupMembers';
import { isGroupsQuery, sourceName } from './parts';

/** One group: its name and description, its members, delete. A group kept by LDAP or
 *  OIDC is read-only here (each sign-in sets its members). */
export function GroupPage() {
  const { groupId } = useParams();
  const id = Number(groupId);
  const group = useQuery({ ...getGroupOptions({ path: { group_id: id } }), enabled: Number.isInteger(id) });
  usePageTitle(group.data ? `${group.data.name} · Groups` : 'Group');
  if (!Number.isInteger(id)) return <ErrorNotice error={new Error('There is no such group.')} />;
  return (
    <QueryState isPending={group.isPending} error={group.error}>
      {group.data && <GroupDetails group={group.data} />}
    </QueryState>
  );
}

function GroupDetails({ group }: { group: Group }) {
  const local = group.source === 'local';
  return (
    <>
      <p>
        <Link to="/admin/groups">← All groups</Link>
      </p>
      <h1>{group.name}</h1>
      {!local && (
        <p className="notice notice--warn">
          This group is kept by {sourceName(group.source)}: its members are set at each sign-in from the group of the
          same name there, so it cannot be changed here.
        </p>
      )}
      <dl className="admin-details">
        <dt>Description</dt>
        <dd>{group.description || <span className="muted">None</span>}</dd>
        <dt>Members kept by</dt>
        <dd>{sourceName(group.source)}</dd>
        <dt>Created</dt>
        <dd>{formatDate(group.created_at)}</dd>
      </dl>
      <GroupMembers group={group} />
      {local && <EditGroupForm group={group} key={`${group.name}\n${group.description}`} />}
      <DeleteGroup group={group} />
    </>
  );
}

function EditGroupForm({ group }: { group: Group }) {
  const [name, setName] = useState(group.name);
  const [description, setDescription] = useState(group.description);
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const save = useMutation({
    ...updateGroupMutation(),
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ predicate: (query) => isGroupsQuery(query.queryKey) });
      announce(`Group ${saved.name} saved.`);
    },
  });
  const error = conflictAt(save.error, 'name', 'A group with this name already exists.');
  const changed = name !== group.name || description !== group.description;

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ path: { group_id: group.id }, body: { name: name.trim(), description } });
  }

  return (
    <section className="admin-section" aria-labelledby="edit-group">
      <h2 id="edit-group">Name and description</h2>
      <form onSubmit={submit} noValidate>
        <OtherProblems error={error} shown={['name', 'description']} />
        <Field label="Name" name="name" error={error}>
          <input required value={name} onChange={(event) => setName(event.target.value)} />
        </Field>
        <Field label="Description" name="description" error={error}>
          <textarea rows={2} value={description} onChange={(event) => setDescription(event.target.value)} />
        </Field>
        <button type="submit" className="button button--primary" disabled={!changed || save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </form>
    </section>
  );
}

function DeleteGroup({ group }: { group: Group }) {
  const [asking, setAsking] = useState(false);
  const navigate = useNavigate();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const remove = useMutation({
    ...deleteGroupMutation(),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: getGroupOptions({ path: { group_id: group.id } }).queryKey });
      void queryClient.invalidateQueries({ predicate: (query) => isGroupsQuery(query.queryKey) });
      announce(`Group ${group.name} deleted.`);
      navigate('/admin/groups');
    },
    onSettled: () => setAsking(false),
  });
  return (
    <section className="admin-section" aria-labelledby="delete-group">
      <h2 id="delete-group">Delete</h2>
      <ErrorNotice error={remove.error} title="Not deleted" />
      <button type="button" className="button button--danger" onClick={() => setAsking(true)}>
        Delete group
      </button>
      {asking && (
        <ConfirmDialog
          title={`Delete the group ${group.name}?`}
          confirmLabel="Delete group"
          busy={remove.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => remove.mutate({ path: { group_id: group.id } })}
        >
          <p>
            Its {group.member_ids.length} members stay users, but what was shared with the group is no longer shared
            with them through it.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
