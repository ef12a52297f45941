/** The signed-in person, for every screen: who they are (GET /auth/me), whether the
 *  session is being restored, and the dialog that signs them in again when it ended. */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';

import { getMeOptions } from '../api/gen/@tanstack/react-query.gen';
import type { User } from '../api/gen/types.gen';
import { isSignedIn, onSignInNeeded, restore, subscribe } from '../api/session';
import { SignInDialog } from '../pages/SignIn/SignInDialog';

interface SessionState {
  /** null until the refresh cookie was tried. */
  restored: boolean;
  signedIn: boolean;
  me: User | undefined;
  isAdmin: boolean;
  mayCreate: boolean;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [restored, setRestored] = useState(false);
  const signedIn = useSyncExternalStore(subscribe, isSignedIn);
  const queryClient = useQueryClient();
  const me = useQuery({ ...getMeOptions(), enabled: signedIn, staleTime: 60_000 });
  const [asking, setAsking] = useState(false);
  const waiting = useRef<((signedInAgain: boolean) => void)[]>([]);

  useEffect(() => {
    restore()
      .catch(() => false)
      .finally(() => setRestored(true));
  }, []);

  useEffect(() => {
    if (!signedIn && restored) queryClient.removeQueries({ predicate: (q) => !isProviders(q.queryKey) });
  }, [signedIn, restored, queryClient]);

  const ask = useCallback(
    () =>
      new Promise<boolean>((resolve) => {
        waiting.current.push(resolve);
        setAsking(true);
      }),
    [],
  );

  useEffect(() => {
    onSignInNeeded(ask);
    return () => onSignInNeeded(null);
  }, [ask]);

  const finish = (again: boolean) => {
    setAsking(false);
    waiting.current.splice(0).forEach((resolve) => resolve(again));
  };

  const roles = me.data?.roles ?? [];
  const value: SessionState = {
    restored,
    signedIn,
    me: me.data,
    isAdmin: roles.includes('admin'),
    mayCreate: roles.includes('admin') || roles.includes('editor'),
  };
  return (
    <SessionContext.Provider value={value}>
      {children}
      {asking && <SignInDialog email={me.data?.email ?? ''} onDone={finish} />}
    </SessionContext.Provider>
  );
}

function isProviders(key: readonly unknown[]): boolean {
  return (key[0] as { _id?: string } | undefined)?._id === 'getLoginProviders';
}

export function useSession(): SessionState {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
