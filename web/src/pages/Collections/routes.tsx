import type { RouteObject } from 'react-router';

/** Collections: the list, a new one, a collection's page. */
export const collectionRoutes: RouteObject[] = [
  { path: 'collections', lazy: async () => ({ Component: (await import('./CollectionsPage')).CollectionsPage }) },
  { path: 'collections/new', lazy: async () => ({ Component: (await import('./NewCollectionPage')).NewCollectionPage }) },
  {
    path: 'collections/:collectionId',
    lazy: async () => ({ Component: (await import('./CollectionPage')).CollectionPage }),
  },
];
