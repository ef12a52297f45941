import type { RouteObject } from 'react-router';

/** The Webhooks screens (their paths under /app/). */
export const webhookRoutes: RouteObject[] = [];
