import type { ReactNode } from 'react';

import { ErrorNotice } from './ErrorNotice';

/** Waiting, failed or empty — or the content. */
export function QueryState({
  isPending,
  error,
  empty,
  emptyText,
  children,
}: {
  isPending: boolean;
  error: unknown;
  empty?: boolean;
  emptyText?: ReactNode;
  children: ReactNode;
}) {
  if (error) return <ErrorNotice error={error} />;
  if (isPending) return <Loading />;
  if (empty) return <EmptyState>{emptyText}</EmptyState>;
  return <>{children}</>;
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      {label}
    </p>
  );
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <div className="empty">{children}</div>;
}
