import type { RouteObject } from 'react-router';

/** The Catalog screens (their paths under /app/): the dataset list is the app's home. */
export const catalogRoutes: RouteObject[] = [
  {
    index: true,
    lazy: async () => ({ Component: (await import('./CatalogPage')).CatalogPage }),
  },
];
