import type { RouteObject } from 'react-router';

/** Webhooks: the list (and a new one), a webhook's page with its deliveries. */
export const webhookRoutes: RouteObject[] = [
  { path: 'webhooks', lazy: async () => ({ Component: (await import('./WebhooksPage')).WebhooksPage }) },
  { path: 'webhooks/:webhookId', lazy: async () => ({ Component: (await import('./WebhookPage')).WebhookPage }) },
];
