import { useEffect, useRef } from 'react';

import { SignInForm } from './SignInForm';

/** Over the current screen when the session ended: what was typed below stays. */
export function SignInDialog({ email, onDone }: { email: string; onDone: (again: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="dialog" aria-labelledby="sign-in-again" onCancel={() => onDone(false)}>
      <h2 id="sign-in-again">Your session ended</h2>
      <p>Sign in again to go on. Nothing you typed is lost.</p>
      <SignInForm email={email} next={window.location.pathname} onSignedIn={() => onDone(true)} />
      <button type="button" className="button" onClick={() => onDone(false)}>
        Cancel
      </button>
    </dialog>
  );
}
