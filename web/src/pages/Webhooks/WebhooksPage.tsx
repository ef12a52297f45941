import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';

import { createWebhookMutation, listWebhooksOptions } from '../../api/gen/@tanstack/react-query.gen';
import type { NewWebhook } from '../../api/gen/types.gen';
import { useSession } from '../../app/session';
import { useAnnounce } from '../../components/Announcer';
import { formatDate } from '../../components/format';
import { Pager } from '../../components/Pager';
import { SecretOnce } from '../../components/secrets/SecretOnce';
import { QueryState } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import { isWebhookQuery, webhookState } from './webhookState';
import { WebhookForm } from './WebhookForm';

const LIMIT = 20;

/** Your webhooks, and a new one (its signing secret shown once). */
export function WebhooksPage() {
  usePageTitle('Webhooks');
  const [params, setParams] = useSearchParams();
  const offset = Number(params.get('offset') ?? 0) || 0;
  const { mayCreate } = useSession();
  const webhooks = useQuery(listWebhooksOptions({ query: { limit: LIMIT, offset } }));
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<NewWebhook | null>(null);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const create = useMutation({
    ...createWebhookMutation(),
    onSuccess: (webhook) => {
      setAdding(false);
      setCreated(webhook);
      announce('Webhook created');
      void queryClient.invalidateQueries({ predicate: (query) => isWebhookQuery(query.queryKey) });
    },
  });

  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">A webhook sends the events you choose to your receiver as they happen, signed with its secret.</p>
      {created && (
        <SecretOnce label={`Signing secret of the webhook to ${created.url}`} secret={created.secret} onDone={() => setCreated(null)} />
      )}
      {!mayCreate ? (
        <p className="notice notice--warn">
          Webhooks are for editors and admins. Ask an admin for the editor role, or follow the{' '}
          <Link to="/activity">activity feed</Link>.
        </p>
      ) : adding ? (
        <section className="card" aria-labelledby="new-webhook">
          <h2 id="new-webhook">New webhook</h2>
          <WebhookForm
            initial={{ url: '', event_types: [], dataset_id: null, active: true }}
            submitLabel="Create webhook"
            busy={create.isPending}
            error={create.error}
            onSubmit={(values) => create.mutate({ body: values })}
            onCancel={() => {
              create.reset();
              setAdding(false);
            }}
          />
        </section>
      ) : (
        <button type="button" className="button button--primary" onClick={() => setAdding(true)}>
          New webhook
        </button>
      )}
      <h2>Your webhooks</h2>
      <QueryState
        isPending={webhooks.isPending}
        error={webhooks.error}
        empty={webhooks.data?.total === 0}
        emptyText="No webhooks yet."
      >
        <ul className="card-list" aria-label="Webhooks">
          {webhooks.data?.items.map((webhook) => (
            <li key={webhook.id} className="card">
              <Link to={`/webhooks/${webhook.id}`}>{webhook.url}</Link>
              <p className="muted">
                {webhookState(webhook)} · {webhook.event_types.length ? `${webhook.event_types.length} event types` : 'every event'} · created{' '}
                {formatDate(webhook.created_at)}
              </p>
            </li>
          ))}
        </ul>
        <Pager
          total={webhooks.data?.total ?? 0}
          limit={LIMIT}
          offset={offset}
          onOffset={(next) => setParams(next ? { offset: String(next) } : {})}
          label="Webhook pages"
        />
      </QueryState>
    </>
  );
}
