import type { RouteObject } from 'react-router';

/** The Account screens (their paths under /app/). */
export const accountRoutes: RouteObject[] = [];
