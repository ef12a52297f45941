import type { RouteObject } from 'react-router';

/** The Catalog screens (their paths under /app/). */
export const catalogRoutes: RouteObject[] = [];
