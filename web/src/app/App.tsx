import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { createBrowserRouter, Navigate, Outlet, RouterProvider, useLocation } from 'react-router';
import type { RouteObject } from 'react-router';

import { AnnouncerProvider } from '../components/Announcer';
import { Layout } from '../components/Layout';
import { Loading } from '../components/States';
import { accountRoutes } from '../pages/Account/routes';
import { activityRoutes } from '../pages/Activity/routes';
import { adminRoutes } from '../pages/Admin/routes';
import { catalogRoutes } from '../pages/Catalog/routes';
import { collectionRoutes } from '../pages/Collections/routes';
import { datasetRoutes } from '../pages/Dataset/routes';
import { NotFoundPage } from '../pages/NotFound/NotFoundPage';
import { pipelineRoutes } from '../pages/Pipelines/routes';
import { SignInPage } from '../pages/SignIn/SignInPage';
import { sqlRoutes } from '../pages/Sql/routes';
import { tokenRoutes } from '../pages/Tokens/routes';
import { webhookRoutes } from '../pages/Webhooks/routes';
import { LiveUpdates } from './LiveUpdates';
import { makeQueryClient } from './queryClient';
import { SessionProvider, useSession } from './session';

/** Signed-in screens: a signed-out person goes to sign-in, and comes back after. */
function RequireSession() {
  const { restored, signedIn } = useSession();
  const location = useLocation();
  if (!restored) return <Loading label="Opening datahub…" />;
  if (!signedIn) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <>
      <LiveUpdates />
      <Layout />
    </>
  );
}

function Root() {
  return (
    <SessionProvider>
      <AnnouncerProvider>
        <Outlet />
      </AnnouncerProvider>
    </SessionProvider>
  );
}

export const routes: RouteObject[] = [
  {
    element: <Root />,
    children: [
      { path: 'sign-in', element: <SignInPage /> },
      {
        element: <RequireSession />,
        children: [
          ...catalogRoutes,
          ...datasetRoutes,
          ...collectionRoutes,
          ...pipelineRoutes,
          ...sqlRoutes,
          ...activityRoutes,
          ...tokenRoutes,
          ...webhookRoutes,
          ...adminRoutes,
          ...accountRoutes,
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
];

export function App() {
  const [queryClient] = useState(makeQueryClient);
  const [router] = useState(() => createBrowserRouter(routes, { basename: '/app' }));
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
