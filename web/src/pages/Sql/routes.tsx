import type { RouteObject } from 'react-router';

/** The SQL console: /app/sql (loads when first opened). */
export const sqlRoutes: RouteObject[] = [{ path: 'sql', lazy: async () => ({ Component: (await import('./SqlPage')).SqlPage }) }];
