import type { RouteObject } from 'react-router';

/** The Admin screens (their paths under /app/). */
export const adminRoutes: RouteObject[] = [];
