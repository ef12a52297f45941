import { useState } from 'react';
import type { FormEvent } from 'react';

import type { Visibility } from '../../api/gen/types.gen';
import { Field, OtherProblems } from '../../components/Field';

export interface CollectionValues {
  name: string;
  description: string;
  visibility?: Visibility;
}

interface Props {
  initial: CollectionValues;
  /** Whether the form asks for the visibility (creating; later it is in Sharing). */
  withVisibility: boolean;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: (values: CollectionValues) => void;
  onCancel?: () => void;
}

/** Name, description (and on creation, visibility), with the service's 409/422 in place. */
export function CollectionForm({ initial, withVisibility, submitLabel, busy, error, onSubmit, onCancel }: Props) {
  const [values, setValues] = useState(initial);
  function submit(event: FormEvent) {
    event.preventDefault();
    onSubmit(values);
  }
  const nameTaken = (error as { status?: number } | null)?.status === 409 ? 'Another collection has this name.' : undefined;
  return (
    <form onSubmit={submit}>
      <Field label="Name" name="name" error={error} problem={nameTaken}>
        <input required maxLength={255} value={values.name} onChange={(event) => setValues({ ...values, name: event.target.value })} />
      </Field>
      <Field label="Description" name="description" error={error}>
        <textarea rows={3} value={values.description} onChange={(event) => setValues({ ...values, description: event.target.value })} />
      </Field>
      {withVisibility && (
        <Field label="Who can see it" name="visibility" error={error}>
          <select
            value={values.visibility ?? 'internal'}
            onChange={(event) => setValues({ ...values, visibility: event.target.value as Visibility })}
          >
            <option value="internal">Everyone signed in (internal)</option>
            <option value="private">Only me, those I share it with, and admins (private)</option>
          </select>
        </Field>
      )}
      {nameTaken ? null : <OtherProblems error={error} shown={['name', 'description', 'visibility']} />}
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
