import type { RouteObject } from 'react-router';

/** The Tokens screens (their paths under /app/). */
export const tokenRoutes: RouteObject[] = [];
