import { useEffect } from 'react';

/** The document's title: "<page> · datahub" (what a screen reader announces on navigation). */
export function usePageTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} · datahub` : 'datahub';
  }, [title]);
}
