import { useQuery } from '@tanstack/react-query';

import { getMyUsageOptions } from '../../api/gen/@tanstack/react-query.gen';
import type { User } from '../../api/gen/types.gen';
import { useSession } from '../../app/session';
import { UsageMeters } from '../../components/admin/UsageMeters';
import { formatDate } from '../../components/format';
import { Loading, QueryState } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import './Account.css';
import { PasswordForm } from './PasswordForm';
import { SessionsList } from './SessionsList';

const PROVIDERS: Record<string, string> = { local: 'Password', ldap: 'LDAP directory', oidc: 'Single sign-on (OIDC)' };

/** Who I am, my password (local users), my sessions and my usage. */
export function AccountPage() {
  usePageTitle('My account');
  const { me } = useSession();
  return (
    <div className="account">
      <h1>My account</h1>
      {me ? <WhoIAm me={me} /> : <Loading />}
      {me?.provider === 'local' && <PasswordForm />}
      {me && me.provider !== 'local' && (
        <section className="account-section" aria-labelledby="password">
          <h2 id="password">Password</h2>
          <p>Your password is kept by {PROVIDERS[me.provider] ?? me.provider}: change it there.</p>
        </section>
      )}
      <SessionsList />
      <MyUsage />
    </div>
  );
}

function WhoIAm({ me }: { me: User }) {
  return (
    <section className="account-section" aria-labelledby="who">
      <h2 id="who">Who you are</h2>
      <dl className="account-details">
        <dt>Name</dt>
        <dd>{me.name || <span className="muted">Not set</span>}</dd>
        <dt>Email</dt>
        <dd>{me.email}</dd>
        <dt>Roles</dt>
        <dd>
          {me.roles.length ? (
            me.roles.map((role) => (
              <span key={role} className="tag">
                {role}
              </span>
            ))
          ) : (
            <span className="muted">None</span>
          )}
        </dd>
        <dt>Signs in with</dt>
        <dd>{PROVIDERS[me.provider] ?? me.provider}</dd>
        <dt>Member since</dt>
        <dd>{formatDate(me.created_at)}</dd>
      </dl>
    </section>
  );
}

function MyUsage() {
  const usage = useQuery(getMyUsageOptions());
  return (
    <section className="account-section" aria-labelledby="usage">
      <h2 id="usage">Your usage</h2>
      <p className="muted">What you own, counted as the quotas count it.</p>
      <QueryState isPending={usage.isPending} error={usage.error}>
        {usage.data && <UsageMeters usage={usage.data} />}
      </QueryState>
    </section>
  );
}
