import { Navigate, useNavigate, useSearchParams } from 'react-router';

import { useSession } from '../../app/session';
import { usePageTitle } from '../../components/usePageTitle';
import { SignInForm } from './SignInForm';

/** Where a signed-out person lands; `?next=` is where they were going. */
export function SignInPage() {
  usePageTitle('Sign in');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { signedIn } = useSession();
  const next = safeNext(params.get('next'));
  if (signedIn) return <Navigate to={next} replace />;
  return (
    <main id="main" className="page page--narrow" tabIndex={-1}>
      <h1>Sign in to datahub</h1>
      <SignInForm next={`/app${next}`} onSignedIn={() => navigate(next, { replace: true })} />
    </main>
  );
}

/** Only a path of this app: never another site. */
export function safeNext(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//')) return '/';
  return next;
}
