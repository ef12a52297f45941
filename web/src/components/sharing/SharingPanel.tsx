/**
 * Sharing a dataset, collection or pipeline (for those whose `capabilities.manage` is true):
 * its visibility, and its grants to people and groups.
 *
 * Props:
 * - `kind`: 'dataset' | 'collection' | 'pipeline' — which API it talks to
 *   (/datasets/{id}/grants, /collections/{id}/grants, /pipelines/{id}/grants, and PATCH of it).
 * - `id`: the thing's id.
 * - `visibility`: its visibility now ('private' | 'internal'), from the thing as loaded; after a
 *   change the panel refreshes the thing's queries (getDataset/getCollection/getPipeline), so
 *   the parent passes the new value.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';

import { findUsersOptions, listGroupsOptions } from '../../api/gen/@tanstack/react-query.gen';
import type { Grant, Permission, Visibility } from '../../api/gen/types.gen';
import { useAnnounce } from '../Announcer';
import { ConfirmDialog } from '../ConfirmDialog';
import { ErrorNotice } from '../ErrorNotice';
import { Field, OtherProblems } from '../Field';
import { QueryState } from '../States';
import { grantsApi, grantsKey, refreshShareable } from './grantsApi';
import type { ShareableKind } from './grantsApi';
import { PeoplePicker } from './PeoplePicker';
import type { Principal } from './PeoplePicker';
import { VisibilityForm } from './VisibilityForm';
import './Sharing.css';

export interface SharingPanelProps {
  kind: ShareableKind;
  id: number;
  visibility: Visibility;
}

/** Who a grant is for, in words: the person's name and email, or the group's name. */
function useGrantees(grants: Grant[]) {
  const userIds = grants.filter((g) => g.principal.startsWith('user:')).map((g) => g.principal.slice(5));
  const hasGroups = grants.some((g) => g.principal.startsWith('group:'));
  const people = useQuery({
    ...findUsersOptions({ query: { ids: [...new Set(userIds)].sort().join(','), limit: 20 } }),
    enabled: userIds.length > 0,
  });
  const groups = useQuery({ ...listGroupsOptions({ query: { limit: 100 } }), enabled: hasGroups });
  return (principal: string): { name: string; detail: string } => {
    const [type, key] = [principal.slice(0, principal.indexOf(':')), principal.slice(principal.indexOf(':') + 1)];
    if (type === 'user') {
      const person = people.data?.items.find((item) => item.id === key);
      if (person) return { name: person.name || person.email, detail: person.email };
      return { name: people.isPending ? 'Loading…' : 'A deactivated or unknown user', detail: key };
    }
    const group = groups.data?.items.find((item) => String(item.id) === key);
    return { name: group ? `Group: ${group.name}` : `Group ${key}`, detail: group?.description ?? '' };
  };
}

export function SharingPanel({ kind, id, visibility }: SharingPanelProps) {
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const api = grantsApi(kind, id);
  const key = grantsKey(kind, id);
  const grants = useQuery({ queryKey: key, queryFn: api.list });
  const items = grants.data?.items ?? [];
  const who = useGrantees(items);
  const [chosen, setChosen] = useState<Principal | null>(null);
  const [permission, setPermission] = useState<Permission>('read');
  const [pickerKey, setPickerKey] = useState(0);
  const [removing, setRemoving] = useState<Grant | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });

  const add = useMutation({
    mutationFn: api.add,
    onSuccess: async () => {
      announce(`Shared with ${chosen?.label ?? 'them'} (${permission}).`);
      setChosen(null);
      setPickerKey((n) => n + 1);
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (grant: Grant) => api.remove(grant.id),
    onSuccess: async (_, grant) => {
      setRemoving(null);
      announce(`${who(grant.principal).name} no longer has access.`);
      await refresh();
    },
  });
  const visibilityChange = useMutation({
    mutationFn: api.setVisibility,
    onSuccess: async (_, next) => {
      announce(`Visibility is now ${next}.`);
      await refreshShareable(queryClient, kind);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (chosen) add.mutate({ principal: chosen.principal, permission });
  }

  return (
    <div className="sharing">
      <VisibilityForm kind={kind} visibility={visibility} mutation={visibilityChange} />
      <section aria-labelledby="sharing-grants-title">
        <h3 id="sharing-grants-title">People and groups with access</h3>
        <QueryState
          isPending={grants.isPending}
          error={grants.error}
          empty={items.length === 0}
          emptyText={`Not shared with anyone yet. ${visibility === 'private' ? 'Only its owner and admins see it: add a person or group below.' : 'Every signed-in user can read it; grant write to let someone change it.'}`}
        >
          <div className="table-wrap">
            <table className="sharing-grants">
              <thead>
                <tr>
                  <th scope="col">Who</th>
                  <th scope="col">Permission</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {items.map((grant) => {
                  const grantee = who(grant.principal);
                  return (
                    <tr key={grant.id}>
                      <th scope="row">
                        {grantee.name}{' '}
                        {grantee.detail && <span className="sharing-grants__detail muted">{grantee.detail}</span>}
                      </th>
                      <td>{grant.permission === 'write' ? 'Read and write' : 'Read'}</td>
                      <td>
                        <button type="button" className="button button--danger" aria-label={`Remove access of ${grantee.name}`} onClick={() => setRemoving(grant)}>
                          Remove
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {grants.data && grants.data.total > items.length && (
            <p className="muted">
              Showing the first {items.length} of {grants.data.total} grants.
            </p>
          )}
        </QueryState>
      </section>
      <form className="sharing-add card" onSubmit={submit} aria-labelledby="sharing-add-title">
        <h3 id="sharing-add-title">Share with someone</h3>
        <PeoplePicker key={pickerKey} onChoose={setChosen} invalid={Boolean(add.error && !chosen)} />
        <Field label="Permission" name="permission" error={add.error} hint="Write also allows changing it (and running a pipeline); deleting and sharing stay with the owner.">
          <select value={permission} onChange={(event) => setPermission(event.target.value as Permission)}>
            <option value="read">Read</option>
            <option value="write">Read and write</option>
          </select>
        </Field>
        <OtherProblems error={add.error} shown={['permission']} />
        <button type="submit" className="button button--primary" disabled={!chosen || add.isPending}>
          Add
        </button>
      </form>
      {removing && (
        <ConfirmDialog
          title={`Remove the access of ${who(removing.principal).name}?`}
          confirmLabel="Remove access"
          busy={remove.isPending}
          onConfirm={() => remove.mutate(removing)}
          onCancel={() => {
            setRemoving(null);
            remove.reset();
          }}
        >
          <p>
            {visibility === 'private'
              ? 'They will no longer see it (unless a group they are in still has access).'
              : 'They keep reading it (it is internal) but can no longer change it through this grant.'}
          </p>
          <ErrorNotice error={remove.error} title="Not removed" />
        </ConfirmDialog>
      )}
    </div>
  );
}
