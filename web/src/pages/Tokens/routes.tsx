import type { RouteObject } from 'react-router';

/** Personal access tokens: /app/tokens. */
export const tokenRoutes: RouteObject[] = [
  { path: 'tokens', lazy: async () => ({ Component: (await import('./TokensPage')).TokensPage }) },
];
