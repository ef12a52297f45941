import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';

import {
  findUsersOptions,
  removeGroupMemberMutation,
} from '../../../api/gen/@tanstack/react-query.gen';
import type { DirectoryEntry, Group } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Pager } from '../../../components/Pager';
import { EmptyState, QueryState } from '../../../components/States';
import { AddMember } from './AddMember';
import { isGroupsQuery } from './parts';

// The directory answers at most 20 people a call: one page of members is one call.
const PAGE = 20;

interface Member {
  id: string;
  person?: DirectoryEntry;
}

/** The members by name and email (ids resolved through the user directory, one call per
 *  page); a local group's members can be added (people search) and removed. */
export function GroupMembers({ group }: { group: Group }) {
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('members')) || 0);
  const pageIds = group.member_ids.slice(offset, offset + PAGE);
  const people = useQuery({
    ...findUsersOptions({ query: { ids: pageIds.join(','), limit: PAGE } }),
    enabled: pageIds.length > 0,
    placeholderData: keepPreviousData,
  });
  const byId = new Map((people.data?.items ?? []).map((person) => [person.id, person]));
  const members: Member[] = pageIds.map((id) => ({ id, person: byId.get(id) }));
  const local = group.source === 'local';

  function goTo(next: number) {
    const copy = new URLSearchParams(params);
    if (next) copy.set('members', String(next));
    else copy.delete('members');
    setParams(copy);
  }

  return (
    <section className="admin-section" aria-labelledby="group-members">
      <h2 id="group-members">Members ({group.member_ids.length.toLocaleString()})</h2>
      {local && <AddMember group={group} />}
      {group.member_ids.length === 0 ? (
        <EmptyState>
          <p>No members yet{local ? ': find people above and add them.' : '.'}</p>
        </EmptyState>
      ) : (
        <QueryState isPending={people.isPending} error={people.error}>
          <MembersTable group={group} members={members} editable={local} />
          <Pager total={group.member_ids.length} limit={PAGE} offset={offset} onOffset={goTo} label="Pages of members" />
        </QueryState>
      )}
    </section>
  );
}

function MembersTable({ group, members, editable }: { group: Group; members: Member[]; editable: boolean }) {
  const [removing, setRemoving] = useState<Member | null>(null);
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const remove = useMutation({
    ...removeGroupMemberMutation(),
    onSuccess: () => {
      void queryClient.invalidateQueries({ predicate: (query) => isGroupsQuery(query.queryKey) });
      announce(`${removing ? label(removing) : 'The member'} removed from ${group.name}.`);
    },
    onSettled: () => setRemoving(null),
  });
  return (
    <>
      <ErrorNotice error={remove.error} title="Not removed" />
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">Members of {group.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              {editable && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {members.map((member) => (
              <tr key={member.id}>
                <td>{member.person ? member.person.name || '—' : <span className="muted">Deactivated user</span>}</td>
                <td className="admin-cell-email">{member.person?.email ?? <code>{member.id}</code>}</td>
                {editable && (
                  <td>
                    <button type="button" className="button" onClick={() => setRemoving(member)}>
                      Remove{' '}<span className="visually-hidden">{label(member)}</span>
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {removing && (
        <ConfirmDialog
          title={`Remove ${label(removing)} from ${group.name}?`}
          confirmLabel="Remove member"
          busy={remove.isPending}
          onCancel={() => setRemoving(null)}
          onConfirm={() => remove.mutate({ path: { group_id: group.id, user_id: removing.id } })}
        >
          <p>They stay a user, but lose what is shared with this group (unless it is shared with them otherwise).</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function label(member: Member): string {
  return member.person ? member.person.name || member.person.email : 'this deactivated user';
}
