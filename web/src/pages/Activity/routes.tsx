import type { RouteObject } from 'react-router';

/** The Activity screens (their paths under /app/). */
export const activityRoutes: RouteObject[] = [];
