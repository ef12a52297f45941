import { useState } from 'react';
import type { FormEvent } from 'react';

import type { EventType } from '../../api/gen/types.gen';
import { EVENT_WORDS } from '../../components/events/eventWords';
import { Field, OtherProblems } from '../../components/Field';

export interface WebhookValues {
  url: string;
  event_types: EventType[];
  dataset_id: number | null;
  active: boolean;
}

interface Props {
  initial: WebhookValues;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  onSubmit: (values: WebhookValues) => void;
  onCancel?: () => void;
}

/** Where to send, which events (none ticked: every type), about which dataset, on or off. */
export function WebhookForm({ initial, submitLabel, busy, error, onSubmit, onCancel }: Props) {
  const [values, setValues] = useState(initial);
  const [dataset, setDataset] = useState(initial.dataset_id ? String(initial.dataset_id) : '');

  function toggle(type: EventType, on: boolean) {
    const types = on ? [...values.event_types, type] : values.event_types.filter((item) => item !== type);
    setValues({ ...values, event_types: types });
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    onSubmit({ ...values, dataset_id: dataset.trim() ? Number(dataset) : null });
  }

  return (
    <form onSubmit={submit}>
      <Field label="Receiver URL" name="url" error={error} hint="https, at a public address. Deliveries are POSTed there, signed with the secret.">
        <input type="url" required value={values.url} onChange={(event) => setValues({ ...values, url: event.target.value })} />
      </Field>
      <fieldset>
        <legend>Events to send (none ticked: every event)</legend>
        {(Object.keys(EVENT_WORDS) as EventType[]).map((type) => (
          <label key={type} className="checkbox">
            <input type="checkbox" checked={values.event_types.includes(type)} onChange={(event) => toggle(type, event.target.checked)} />
            {EVENT_WORDS[type]}
          </label>
        ))}
      </fieldset>
      <Field label="Only about the dataset with id" name="dataset_id" error={error} hint="Leave empty for every dataset you may read.">
        <input inputMode="numeric" pattern="[0-9]*" value={dataset} onChange={(event) => setDataset(event.target.value)} />
      </Field>
      <label className="checkbox">
        <input type="checkbox" checked={values.active} onChange={(event) => setValues({ ...values, active: event.target.checked })} />
        Active (sends deliveries)
      </label>
      <OtherProblems error={error} shown={['url', 'dataset_id']} />
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
