import { useQuery } from '@tanstack/react-query';
import { Outlet } from 'react-router';

import { asApiError } from '../../api/errors';
import { listUsersOptions } from '../../api/gen/@tanstack/react-query.gen';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/States';
import { Tabs } from '../../components/Tabs';
import { usePageTitle } from '../../components/usePageTitle';
import './Admin.css';

const TABS = [
  { to: '/admin/users', label: 'Users' },
  { to: '/admin/groups', label: 'Groups' },
  { to: '/admin/usage', label: 'Usage' },
];

/** The admin area's frame: the server says whether the caller is an admin (a 403 from the
 *  user list), then the tabs and the screen. */
export function AdminPage() {
  const probe = useQuery({ ...listUsersOptions({ query: { limit: 1 } }), staleTime: 60_000 });
  const forbidden = probe.error && asApiError(probe.error).status === 403;
  usePageTitle(forbidden ? 'Admins only' : undefined);
  if (forbidden) {
    return (
      <>
        <h1>Admin</h1>
        <div role="alert" className="notice notice--warn">
          Only admins can see this. Ask an admin if you need a user, a group or a quota changed.
        </div>
      </>
    );
  }
  if (probe.error) return <ErrorNotice error={probe.error} />;
  if (probe.isPending) return <Loading />;
  return (
    <div className="admin">
      <p className="admin__area">Admin</p>
      <Tabs label="Admin" tabs={TABS} />
      <Outlet />
    </div>
  );
}
