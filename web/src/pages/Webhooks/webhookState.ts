import type { Webhook } from '../../api/gen/types.gen';

export function webhookState(webhook: Webhook): string {
  if (webhook.disabled_reason) return `Turned off: ${webhook.disabled_reason}`;
  return webhook.active ? 'Active' : 'Inactive';
}

export function isWebhookQuery(key: readonly unknown[]): boolean {
  return /Webhook/.test((key[0] as { _id?: string } | undefined)?._id ?? '');
}
