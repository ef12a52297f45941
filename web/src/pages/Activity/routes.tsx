import type { RouteObject } from 'react-router';

/** The event feed: /app/activity. */
export const activityRoutes: RouteObject[] = [
  { path: 'activity', lazy: async () => ({ Component: (await import('./ActivityPage')).ActivityPage }) },
];
