import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { useSearchParams } from 'react-router';

import {
  createTokenMutation,
  deleteTokenMutation,
  listTokensOptions,
  listTokensQueryKey,
} from '../../api/gen/@tanstack/react-query.gen';
import type { PersonalToken } from '../../api/gen/types.gen';
import { useAnnounce } from '../../components/Announcer';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Field, OtherProblems } from '../../components/Field';
import { formatDate } from '../../components/format';
import { Pager } from '../../components/Pager';
import { SecretOnce } from '../../components/secrets/SecretOnce';
import { QueryState } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';

const LIMIT = 20;

/** Personal access tokens for scripts: made here, the secret shown once, revoked here. */
export function TokensPage() {
  usePageTitle('Tokens');
  const [params, setParams] = useSearchParams();
  const offset = Number(params.get('offset') ?? 0) || 0;
  const tokens = useQuery(listTokensOptions({ query: { limit: LIMIT, offset } }));
  const [revoking, setRevoking] = useState<PersonalToken | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const revoke = useMutation({
    ...deleteTokenMutation(),
    onSuccess: () => {
      announce(`Revoked the token ${revoking?.name ?? ''}`);
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: listTokensQueryKey() });
    },
  });

  return (
    <>
      <h1>Personal access tokens</h1>
      <p>
        Scripts and the <code>datahub</code> command use a token instead of a password: send it as{' '}
        <code>Authorization: Bearer dhp_…</code>. A read token can only read.
      </p>
      {secret ? (
        <SecretOnce label="Your new token" secret={secret} onDone={() => setSecret(null)} />
      ) : (
        <NewTokenForm onCreated={setSecret} />
      )}
      <h2>Your tokens</h2>
      <QueryState
        isPending={tokens.isPending}
        error={tokens.error}
        empty={tokens.data?.total === 0}
        emptyText="No tokens yet. Create one above for a script."
      >
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Your tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data?.items.map((token) => (
                <tr key={token.id}>
                  <td>{token.name}</td>
                  <td>{token.scopes.join(', ')}</td>
                  <td>{formatDate(token.created_at)}</td>
                  <td>{formatDate(token.expires_at)}</td>
                  <td>{token.last_used_at ? formatDate(token.last_used_at) : 'Never'}</td>
                  <td>
                    <button type="button" className="button" onClick={() => setRevoking(token)}>
                      Revoke<span className="visually-hidden"> {token.name}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager
          total={tokens.data?.total ?? 0}
          limit={LIMIT}
          offset={offset}
          onOffset={(next) => setParams(next ? { offset: String(next) } : {})}
          label="Token pages"
        />
      </QueryState>
      {revoking && (
        <ConfirmDialog
          title={`Revoke the token “${revoking.name}”?`}
          confirmLabel="Revoke"
          busy={revoke.isPending}
          onConfirm={() => revoke.mutate({ path: { token_id: revoking.id } })}
          onCancel={() => {
            revoke.reset();
            setRevoking(null);
          }}
        >
          <p>Scripts that use it are refused from now on. This cannot be undone.</p>
          <ErrorNotice error={revoke.error} />
        </ConfirmDialog>
      )}
    </>
  );
}

function NewTokenForm({ onCreated }: { onCreated: (secret: string) => void }) {
  const [name, setName] = useState('');
  const [write, setWrite] = useState(false);
  const [days, setDays] = useState('30');
  const queryClient = useQueryClient();
  const create = useMutation({
    ...createTokenMutation(),
    onSuccess: (token) => {
      setName('');
      onCreated(token.token);
      void queryClient.invalidateQueries({ queryKey: listTokensQueryKey() });
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const scopes: ('read' | 'write')[] = write ? ['read', 'write'] : ['read'];
    create.mutate({ body: { name, scopes, expires_in_days: Number(days) } });
  }

  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-token">
      <h2 id="new-token">New token</h2>
      <Field label="Name" name="name" error={create.error} hint="What it is for, e.g. “nightly export”.">
        <input required maxLength={255} value={name} onChange={(event) => setName(event.target.value)} />
      </Field>
      <fieldset>
        <legend>Scopes</legend>
        <label className="checkbox">
          <input type="checkbox" checked readOnly disabled /> Read
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={write} onChange={(event) => setWrite(event.target.checked)} /> Write (change
          and upload what you may change)
        </label>
      </fieldset>
      <Field label="Expires in days" name="expires_in_days" error={create.error} hint="1 to 365.">
        <input type="number" min={1} max={365} required value={days} onChange={(event) => setDays(event.target.value)} />
      </Field>
      <OtherProblems error={create.error} shown={['name', 'expires_in_days']} />
      <button type="submit" className="button button--primary" disabled={create.isPending}>
        Create token
      </button>
    </form>
  );
}
