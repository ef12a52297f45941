import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';

import type { Visibility } from '../../api/gen/types.gen';
import { ErrorNotice } from '../ErrorNotice';
import type { ShareableKind } from './grantsApi';

const WORDS: Record<Visibility, (kind: string) => string> = {
  internal: (kind) => `Every signed-in user can find and read this ${kind}.`,
  private: (kind) => `Only its owner, the people and groups below, and admins can see this ${kind}; to others it does not exist.`,
};

/** Private or internal, each explained, saved with a button. */
export function VisibilityForm({
  kind,
  visibility,
  mutation,
}: {
  kind: ShareableKind;
  visibility: Visibility;
  mutation: UseMutationResult<void, Error, Visibility>;
}) {
  const [choice, setChoice] = useState<Visibility>(visibility);
  const [shown, setShown] = useState(visibility);
  if (shown !== visibility) {
    setShown(visibility);
    setChoice(visibility);
  }
  function submit(event: FormEvent) {
    event.preventDefault();
    mutation.mutate(choice);
  }
  return (
    <form className="sharing-visibility card" onSubmit={submit}>
      <fieldset>
        <legend>Visibility</legend>
        {(['internal', 'private'] as Visibility[]).map((value) => (
          <div key={value} className="sharing-visibility__choice">
            <input
              type="radio"
              id={`visibility-${value}`}
              name="visibility"
              value={value}
              checked={choice === value}
              aria-describedby={`visibility-${value}-hint`}
              onChange={() => setChoice(value)}
            />
            <label htmlFor={`visibility-${value}`}>{value === 'private' ? 'Private' : 'Internal'}</label>
            <p id={`visibility-${value}-hint`} className="field__hint">
              {WORDS[value](kind)}
            </p>
          </div>
        ))}
      </fieldset>
      <p>
        Now: <strong>{visibility === 'private' ? 'Private' : 'Internal'}</strong>
      </p>
      <ErrorNotice error={mutation.error} title="Visibility not changed" />
      <button type="submit" className="button" disabled={choice === visibility || mutation.isPending}>
        Save visibility
      </button>
    </form>
  );
}
