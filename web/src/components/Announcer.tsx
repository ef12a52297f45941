import { createContext, useCallback, useContext, useState } from 'react';
import type { ReactNode } from 'react';

const AnnounceContext = createContext<(text: string) => void>(() => {});

/** One polite live region for the app: live updates and finished actions are announced
 *  without taking the focus. */
export function AnnouncerProvider({ children }: { children: ReactNode }) {
  const [text, setText] = useState('');
  const announce = useCallback((next: string) => {
    setText('');
    window.setTimeout(() => setText(next), 50);
  }, []);
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
