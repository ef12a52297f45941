import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';

import {
  deleteWebhookMutation,
  getWebhookOptions,
  pingWebhookMutation,
  updateWebhookMutation,
} from '../../api/gen/@tanstack/react-query.gen';
import type { Webhook } from '../../api/gen/types.gen';
import { useAnnounce } from '../../components/Announcer';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { EVENT_WORDS } from '../../components/events/eventWords';
import { formatDate } from '../../components/format';
import { Loading } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import { Deliveries } from './Deliveries';
import { isWebhookQuery, webhookState } from './webhookState';
import { WebhookForm } from './WebhookForm';
import './Webhooks.css';

/** A webhook: its settings, a ping, its deliveries, delete. */
export function WebhookPage() {
  const webhookId = Number(useParams().webhookId);
  const webhook = useQuery(getWebhookOptions({ path: { webhook_id: webhookId } }));
  usePageTitle('Webhook');
  if (webhook.isPending) return <Loading />;
  if (webhook.error) {
    return (
      <>
        <h1>Webhook not found</h1>
        <ErrorNotice error={webhook.error} />
      </>
    );
  }
  return <WebhookView webhook={webhook.data} />;
}

function WebhookView({ webhook }: { webhook: Webhook }) {
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const announce = useAnnounce();
  const refresh = () => queryClient.invalidateQueries({ predicate: (query) => isWebhookQuery(query.queryKey) });
  const path = { webhook_id: webhook.id };
  const update = useMutation({
    ...updateWebhookMutation(),
    onSuccess: () => {
      setEditing(false);
      announce('Saved');
      void refresh();
    },
  });
  const ping = useMutation({
    ...pingWebhookMutation(),
    onSuccess: () => {
      announce('Ping queued: it shows in the deliveries');
      void refresh();
    },
  });
  const remove = useMutation({
    ...deleteWebhookMutation(),
    onSuccess: () => {
      announce('Webhook deleted');
      void refresh();
      navigate('/webhooks');
    },
  });

  return (
    <>
      <h1>Webhook</h1>
      <p className="webhook__url">
        <code>{webhook.url}</code>
      </p>
      {editing ? (
        <section className="card" aria-labelledby="edit-webhook">
          <h2 id="edit-webhook">Edit the webhook</h2>
          <WebhookForm
            initial={{ url: webhook.url, event_types: webhook.event_types, dataset_id: webhook.dataset_id, active: webhook.active }}
            submitLabel="Save"
            busy={update.isPending}
            error={update.error}
            onSubmit={(values) => update.mutate({ path, body: values })}
            onCancel={() => {
              update.reset();
              setEditing(false);
            }}
          />
        </section>
      ) : (
        <dl className="webhook__facts">
          <dt>State</dt>
          <dd>{webhookState(webhook)}</dd>
          <dt>Events</dt>
          <dd>{webhook.event_types.length ? webhook.event_types.map((type) => EVENT_WORDS[type]).join(', ') : 'Every event'}</dd>
          <dt>About</dt>
          <dd>{webhook.dataset_id ? `Dataset ${webhook.dataset_id}` : 'Every dataset you may read'}</dd>
          <dt>Failed deliveries in a row</dt>
          <dd>{webhook.failures}</dd>
          <dt>Created</dt>
          <dd>{formatDate(webhook.created_at)}</dd>
        </dl>
      )}
      {!editing && (
        <div className="actions">
          <button type="button" className="button" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" className="button" disabled={ping.isPending} onClick={() => ping.mutate({ path })}>
            Send a ping
          </button>
          <button type="button" className="button button--danger" onClick={() => setDeleting(true)}>
            Delete webhook
          </button>
        </div>
      )}
      <ErrorNotice error={ping.error} title="The ping was refused" />
      <Deliveries webhookId={webhook.id} />
      {deleting && (
        <ConfirmDialog
          title="Delete this webhook?"
          confirmLabel="Delete webhook"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ path })}
          onCancel={() => {
            remove.reset();
            setDeleting(false);
          }}
        >
          <p>Nothing more is sent to {webhook.url}, and its deliveries go with it.</p>
          <ErrorNotice error={remove.error} />
        </ConfirmDialog>
      )}
    </>
  );
}
