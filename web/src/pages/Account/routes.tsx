import type { RouteObject } from 'react-router';

/** My account (/app/account): who I am, password, sessions, usage. */
export const accountRoutes: RouteObject[] = [
  {
    path: 'account',
    lazy: async () => ({ Component: (await import('./AccountPage')).AccountPage }),
  },
];
