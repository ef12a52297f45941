import type { RouteObject } from 'react-router';

/** The Pipelines screens (their paths under /app/). */
export const pipelineRoutes: RouteObject[] = [];
