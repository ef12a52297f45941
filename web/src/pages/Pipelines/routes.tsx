import type { RouteObject } from 'react-router';

/** The Pipelines screens (their paths under /app/); each loads when first opened. */
export const pipelineRoutes: RouteObject[] = [
  {
    path: 'pipelines',
    lazy: async () => ({ Component: (await import('./list/PipelineListPage')).PipelineListPage }),
  },
  {
    path: 'pipelines/new',
    lazy: async () => ({ Component: (await import('./builder/NewPipelinePage')).NewPipelinePage }),
  },
  {
    path: 'pipelines/:pipelineId',
    lazy: async () => ({ Component: (await import('./PipelinePage')).PipelinePage }),
  },
  {
    path: 'pipelines/:pipelineId/runs/:runId',
    lazy: async () => ({ Component: (await import('./runs/RunPage')).RunPage }),
  },
];
