import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';

const AnnounceContext = createContext<(text: string) => void>(() => {});

/** One polite live region for the app: live updates and finished actions are announced
 *  without taking the focus. */
export function AnnouncerProvider({ children }: { children: ReactNode }) {
  const [text, setText] = useState('');
  const timer = useRef<number | undefined>(undefined);
  const announce = useCallback((next: string) => {
    setText('');
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setText(next), 50);
  }, []);
  // Nothing is announced once the app is gone (a test's page torn down included).
  useEffect(() => () => window.clearTimeout(timer.current), []);
  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
        {text}
      </div>
    </AnnounceContext.Provider>
  );
}

export function useAnnounce(): (text: string) => void {
  return useContext(AnnounceContext);
}
