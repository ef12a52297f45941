import { useQuery } from '@tanstack/react-query';

import { getMyUsageOptions, listDatasetsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { User } from '../../../api/gen/types.gen';
import { UsageMeter } from '../../../components/admin/UsageMeters';
import { formatCount } from '../../../components/format';
import { QueryState } from '../../../components/States';

/** The datasets a user owns (the catalog filtered by owner) against QUOTA_DATASETS (the
 *  same for every user). The API counts stored bytes and queued runs only for the caller
 *  (GET /auth/me/usage), so those are not shown for someone else. */
export function UserUsage({ user }: { user: User }) {
  const owned = useQuery(listDatasetsOptions({ query: { owner: user.id, limit: 1 } }));
  const limits = useQuery({ ...getMyUsageOptions(), select: (usage) => usage.limits });
  return (
    <section className="admin-section" aria-labelledby="user-usage">
      <h2 id="user-usage">Usage</h2>
      <QueryState isPending={owned.isPending || limits.isPending} error={owned.error ?? limits.error}>
        {owned.data && limits.data && (
          <UsageMeter label="Datasets owned" used={owned.data.total} limit={limits.data.datasets} format={formatCount} />
        )}
        <p className="muted">
          Stored bytes and queued runs are counted for each person on their own account page.
        </p>
      </QueryState>
    </section>
  );
}
