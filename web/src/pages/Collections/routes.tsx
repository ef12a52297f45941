import type { RouteObject } from 'react-router';

/** The Collections screens (their paths under /app/). */
export const collectionRoutes: RouteObject[] = [];
