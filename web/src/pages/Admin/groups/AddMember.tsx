import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

import { addGroupMemberMutation, findUsersOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { DirectoryEntry, Group } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { isGroupsQuery } from './parts';

const WAIT_MS = 250;

/** A people search (the user directory, by name or email) with an Add button per person. */
export function AddMember({ group }: { group: Group }) {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  useEffect(() => {
    const timer = window.setTimeout(() => setQ(typed.trim()), WAIT_MS);
    return () => window.clearTimeout(timer);
  }, [typed]);
  const found = useQuery({ ...findUsersOptions({ query: { q, limit: 10 } }), enabled: q.length > 0 });
  const add = useMutation({
    ...addGroupMemberMutation(),
    onSuccess: (_saved, variables) => {
      void queryClient.invalidateQueries({ predicate: (query) => isGroupsQuery(query.queryKey) });
      const person = found.data?.items.find((each) => each.id === variables.path.user_id);
      announce(`${person ? person.name || person.email : 'The person'} added to ${group.name}.`);
    },
  });
  const members = new Set(group.member_ids);

  return (
    <div className="admin-add-member">
      <div className="field">
        <label htmlFor="member-search">Find people to add</label>
        <p id="member-search-hint" className="field__hint">
          Type part of a name or an email.
        </p>
        <input
          id="member-search"
          type="search"
          aria-describedby="member-search-hint"
          autoComplete="off"
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
        />
      </div>
      <ErrorNotice error={found.error ?? add.error} />
      {q && found.data && (
        <SearchResults
          people={found.data.items}
          members={members}
          busy={add.isPending}
          onAdd={(person) => add.mutate({ path: { group_id: group.id, user_id: person.id } })}
          q={q}
        />
      )}
    </div>
  );
}

interface ResultsProps {
  people: DirectoryEntry[];
  members: Set<string>;
  busy: boolean;
  onAdd: (person: DirectoryEntry) => void;
  q: string;
}

function SearchResults({ people, members, busy, onAdd, q }: ResultsProps) {
  if (people.length === 0) return <p role="status">Nobody active matches “{q}”.</p>;
  return (
    <ul className="admin-results" aria-label="People found">
      {people.map((person) => (
        <li key={person.id}>
          <span>
            {person.name || '—'} <span className="muted admin-cell-email">{person.email}</span>
          </span>
          {members.has(person.id) ? (
            <span className="muted">Member</span>
          ) : (
            <button type="button" className="button" disabled={busy} onClick={() => onAdd(person)}>
              Add{' '}<span className="visually-hidden">{person.name || person.email}</span>
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
