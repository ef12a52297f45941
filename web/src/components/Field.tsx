import { useId } from 'react';
import type { ReactElement, ReactNode } from 'react';
import { cloneElement } from 'react';

import { asApiError } from '../api/errors';

interface Props {
  label: string;
  /** The field's path in the request body ("name", "steps.1.sql"): a 422 there shows here. */
  name?: string;
  error?: unknown;
  hint?: ReactNode;
  /** A message of the form's own for this field (e.g. a 409 "name taken"). */
  problem?: string;
  children: ReactElement<Record<string, unknown>>;
}

/** A labelled control with its hint and its own error (from a 422's `loc`). */
export function Field({ label, name, error, hint, problem, children }: Props) {
  const id = useId();
  const message = problem ?? (name && error ? asApiError(error).fieldMessage(name) : undefined);
  const described = [hint ? `${id}-hint` : null, message ? `${id}-error` : null].filter(Boolean).join(' ');
  return (
    <div className={`field${message ? ' field--invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="field__hint">
          {hint}
        </p>
      )}
      {cloneElement(children, {
        id,
        'aria-invalid': message ? true : undefined,
        'aria-describedby': described || undefined,
      })}
      {message && (
        <p id={`${id}-error`} className="field__error">
          {message}
        </p>
      )}
    </div>
  );
}

/** The problems of a 422 that no Field shows (so nothing is silently dropped). */
export function OtherProblems({ error, shown }: { error: unknown; shown: string[] }) {
  if (!error) return null;
  const problem = asApiError(error);
  const others = problem.fields.length ? problem.otherProblems(shown) : null;
  if (others && others.length === 0) return null;
  return (
    <div role="alert" className="notice notice--error">
      {others
        ? others.map((field) => (
            <p key={field.path.join('.')}>
              {field.path.length > 0 && `${field.path.join(' › ')}: `}
              {field.message}
            </p>
          ))
        : problem.message}
    </div>
  );
}
