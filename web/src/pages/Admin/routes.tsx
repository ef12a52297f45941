import { Navigate } from 'react-router';
import type { RouteObject } from 'react-router';

/**
 * The Admin screens (/app/admin/...): users, groups, usage, each its own URL. The frame
 * (AdminPage) asks the server whether the caller is an admin; the screens load when first
 * opened.
 */
export const adminRoutes: RouteObject[] = [
  {
    path: 'admin',
    lazy: async () => ({ Component: (await import('./AdminPage')).AdminPage }),
    children: [
      { index: true, element: <Navigate to="users" replace /> },
      { path: 'users', lazy: async () => ({ Component: (await import('./users/UsersPage')).UsersPage }) },
      { path: 'users/new', lazy: async () => ({ Component: (await import('./users/NewUserPage')).NewUserPage }) },
      { path: 'users/:userId', lazy: async () => ({ Component: (await import('./users/UserPage')).UserPage }) },
      { path: 'groups', lazy: async () => ({ Component: (await import('./groups/GroupsPage')).GroupsPage }) },
      { path: 'groups/:groupId', lazy: async () => ({ Component: (await import('./groups/GroupPage')).GroupPage }) },
      { path: 'usage', lazy: async () => ({ Component: (await import('./usage/UsagePage')).UsagePage }) },
    ],
  },
];
