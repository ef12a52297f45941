import type { RouteObject } from 'react-router';

/**
 * The dataset page (/app/datasets/:datasetId/...) and its tabs, each its own URL. The
 * frame (DatasetPage) loads the dataset and hands it to the tabs (./context); the tabs
 * load when first opened.
 */
export const datasetRoutes: RouteObject[] = [
  {
    path: 'datasets/new',
    lazy: async () => ({ Component: (await import('./new/NewDatasetPage')).NewDatasetPage }),
  },
  {
    path: 'datasets/:datasetId',
    lazy: async () => ({ Component: (await import('./DatasetPage')).DatasetPage }),
    children: [
      { index: true, lazy: async () => ({ Component: (await import('./overview/OverviewTab')).OverviewTab }) },
      { path: 'schema', lazy: async () => ({ Component: (await import('./schema/SchemaTab')).SchemaTab }) },
      { path: 'checks', lazy: async () => ({ Component: (await import('./checks/ChecksTab')).ChecksTab }) },
      { path: 'preview', lazy: async () => ({ Component: (await import('./preview/PreviewTab')).PreviewTab }) },
      { path: 'versions', lazy: async () => ({ Component: (await import('./versions/VersionsTab')).VersionsTab }) },
      { path: 'versions/compare', lazy: async () => ({ Component: (await import('./versions/DiffTab')).DiffTab }) },
      { path: 'lineage', lazy: async () => ({ Component: (await import('./lineage/LineageTab')).LineageTab }) },
      { path: 'activity', lazy: async () => ({ Component: (await import('./activity/ActivityTab')).ActivityTab }) },
      { path: 'sharing', lazy: async () => ({ Component: (await import('./sharing/SharingTab')).SharingTab }) },
      { path: 'settings', lazy: async () => ({ Component: (await import('./settings/SettingsTab')).SettingsTab }) },
    ],
  },
];
