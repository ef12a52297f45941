/** What starts runs besides a person: nothing, a new version of an input, or a schedule. */
import { useId, useMemo } from 'react';

import { Field } from '../../../components/Field';
import type { PipelineDraft, TriggerKind } from './draft';

interface Props {
  draft: PipelineDraft;
  error: unknown;
  onChange: (changes: Partial<PipelineDraft>) => void;
}

const KINDS: { kind: TriggerKind; label: string }[] = [
  { kind: 'none', label: 'None: runs start only when someone runs it' },
  { kind: 'new_version', label: 'On a new version of the source or a joined dataset' },
  { kind: 'schedule', label: 'On a schedule (cron, in a time zone)' },
];

function timeZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  return intl.supportedValuesOf ? intl.supportedValuesOf('timeZone') : ['UTC'];
}

export function TriggerFields({ draft, error, onChange }: Props) {
  const name = useId();
  const zones = useMemo(() => timeZones(), []);
  return (
    <fieldset className="pipelines-group">
      <legend>Trigger</legend>
      {KINDS.map(({ kind, label }) => (
        <label key={kind} className="pipelines-check">
          <input type="radio" name={name} value={kind} checked={draft.trigger === kind} onChange={() => onChange({ trigger: kind })} />
          {label}
        </label>
      ))}
      {draft.trigger === 'schedule' && (
        <div className="pipelines-row">
          <Field
            label="Cron expression"
            name="trigger.cron"
            error={error}
            hint="Five fields: minute hour day-of-month month day-of-week, e.g. 0 6 * * 1-5 (06:00 on weekdays)."
          >
            <input type="text" value={draft.cron} autoComplete="off" onChange={(event) => onChange({ cron: event.target.value })} />
          </Field>
          <Field label="Time zone" name="trigger.timezone" error={error} hint="A time zone name such as Europe/Oslo; UTC when empty.">
            <input type="text" list={`${name}-zones`} value={draft.timezone} autoComplete="off" onChange={(event) => onChange({ timezone: event.target.value })} />
          </Field>
          <datalist id={`${name}-zones`}>
            {zones.map((zone) => (
              <option key={zone} value={zone} />
            ))}
          </datalist>
        </div>
      )}
    </fieldset>
  );
}
