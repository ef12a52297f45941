import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';

import {
  getMyUsageOptions,
  listDatasetsOptions,
  listUsersOptions,
} from '../../../api/gen/@tanstack/react-query.gen';
import type { UsageLimits, User } from '../../../api/gen/types.gen';
import { UsageMeter, UsageMeters } from '../../../components/admin/UsageMeters';
import { formatBytes, formatCount } from '../../../components/format';
import { Pager } from '../../../components/Pager';
import { QueryState } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';

const LIMIT = 10;

/** The quotas in force (the same for every user), the datasets each user owns against the
 *  dataset quota, and the caller's own full usage. */
export function UsagePage() {
  usePageTitle('Usage and quotas');
  const usage = useQuery(getMyUsageOptions());
  return (
    <>
      <h1>Usage and quotas</h1>
      <QueryState isPending={usage.isPending} error={usage.error}>
        {usage.data && (
          <>
            <QuotaList limits={usage.data.limits} />
            <UsersUsage limits={usage.data.limits} />
            <section className="admin-section" aria-labelledby="own-usage">
              <h2 id="own-usage">Your own usage</h2>
              <UsageMeters usage={usage.data} />
            </section>
          </>
        )}
      </QueryState>
    </>
  );
}

function QuotaList({ limits }: { limits: UsageLimits }) {
  const words = (value: number | null, format: (n: number) => string) => (value === null ? 'No limit' : format(value));
  return (
    <section className="admin-section" aria-labelledby="quotas">
      <h2 id="quotas">Quotas for each user</h2>
      <dl className="admin-details">
        <dt>Stored bytes</dt>
        <dd>{words(limits.storage_bytes, formatBytes)}</dd>
        <dt>Datasets owned</dt>
        <dd>{words(limits.datasets, formatCount)}</dd>
        <dt>Runs queued or running</dt>
        <dd>{words(limits.queued_runs, formatCount)}</dd>
      </dl>
      <p className="muted">The operator sets them (QUOTA_STORAGE_BYTES, QUOTA_DATASETS, QUOTA_QUEUED_RUNS).</p>
    </section>
  );
}

function UsersUsage({ limits }: { limits: UsageLimits }) {
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get('offset')) || 0);
  const users = useQuery({ ...listUsersOptions({ query: { limit: LIMIT, offset } }), placeholderData: keepPreviousData });
  return (
    <section className="admin-section" aria-labelledby="users-usage">
      <h2 id="users-usage">Datasets each user owns</h2>
      <p className="muted">
        Stored bytes and queued runs are shown to each person on their own account page.
      </p>
      <QueryState isPending={users.isPending} error={users.error}>
        {users.data && <UsersUsageList users={users.data.items} limit={limits.datasets} />}
        {users.data && (
          <Pager
            total={users.data.total}
            limit={LIMIT}
            offset={offset}
            onOffset={(next) => setParams(next ? { offset: String(next) } : {})}
            label="Pages of users"
          />
        )}
      </QueryState>
    </section>
  );
}

function UsersUsageList({ users, limit }: { users: User[]; limit: number | null }) {
  const owned = useQueries({
    queries: users.map((user) => listDatasetsOptions({ query: { owner: user.id, limit: 1 } })),
  });
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Datasets each user owns</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Datasets owned</th>
          </tr>
        </thead>
        <tbody>
          {users.map((user, index) => {
            const count = owned[index];
            return (
              <tr key={user.id}>
                <td>
                  <Link to={`/admin/users/${user.id}`}>{user.name || user.email}</Link>
                </td>
                <td className="admin-cell-email">{user.email}</td>
                <td className="admin-usage__cell">
                  {count.data ? (
                    <UsageMeter
                      label={`Datasets owned by ${user.name || user.email}`}
                      labelHidden
                      used={count.data.total}
                      limit={limit}
                      format={formatCount}
                    />
                  ) : (
                    <span className="muted">{count.error ? 'Could not count them.' : 'Counting…'}</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
