import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import { listWebhookDeliveriesOptions, redeliverWebhookDeliveryMutation } from '../../api/gen/@tanstack/react-query.gen';
import { useAnnounce } from '../../components/Announcer';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatDate } from '../../components/format';
import { Pager } from '../../components/Pager';
import { QueryState } from '../../components/States';
import { isWebhookQuery } from './webhookState';

const LIMIT = 20;
const STATUS_WORDS = { pending: 'Waiting', sending: 'Sending', succeeded: 'Delivered', failed: 'Failed', skipped: 'Skipped' };

/** A webhook's deliveries, each one redeliverable; refreshed while any waits. */
export function Deliveries({ webhookId }: { webhookId: number }) {
  const [params, setParams] = useSearchParams();
  const offset = Number(params.get('offset') ?? 0) || 0;
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const deliveries = useQuery({
    ...listWebhookDeliveriesOptions({ path: { webhook_id: webhookId }, query: { limit: LIMIT, offset } }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      query.state.data?.items.some((item) => item.status === 'pending' || item.status === 'sending') ? 2000 : false,
  });
  const redeliver = useMutation({
    ...redeliverWebhookDeliveryMutation(),
    onSuccess: () => {
      announce('Redelivery queued');
      void queryClient.invalidateQueries({ predicate: (query) => isWebhookQuery(query.queryKey) });
    },
  });

  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      <ErrorNotice error={redeliver.error} title="The redelivery was refused" />
      <QueryState
        isPending={deliveries.isPending}
        error={deliveries.error}
        empty={deliveries.data?.total === 0}
        emptyText="No deliveries yet. Send a ping to try the receiver."
      >
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Deliveries</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Answer</th>
                <th scope="col">Attempts</th>
                <th scope="col">Error</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data?.items.map((delivery) => (
                <tr key={delivery.id}>
                  <td>{formatDate(delivery.created_at)}</td>
                  <td>{delivery.event_type}</td>
                  <td>{STATUS_WORDS[delivery.status]}</td>
                  <td>{delivery.response_status ?? '—'}</td>
                  <td>{delivery.attempts}</td>
                  <td>{delivery.error ?? ''}</td>
                  <td>
                    <button
                      type="button"
                      className="button"
                      disabled={redeliver.isPending}
                      onClick={() => redeliver.mutate({ path: { webhook_id: webhookId, delivery_id: delivery.id } })}
                    >
                      Redeliver<span className="visually-hidden"> delivery {delivery.id}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager
          total={deliveries.data?.total ?? 0}
          limit={LIMIT}
          offset={offset}
          onOffset={(next) => setParams(next ? { offset: String(next) } : {})}
          label="Delivery pages"
        />
      </QueryState>
    </section>
  );
}
