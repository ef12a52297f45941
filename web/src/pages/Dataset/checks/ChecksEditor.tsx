import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';

import { setDatasetChecksMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { Checks } from '../../../api/gen/types.gen';
import { useAnnounce } from '../../../components/Announcer';
import { Field, OtherProblems } from '../../../components/Field';
import type { Check, Draft } from './checkFields';
import { TYPES, toCheck, toDraft } from './checkFields';

interface Props {
  datasetId: number;
  checks: Check[];
}

/** The dataset's checks as a form: each check a group of fields by its type; they are
 *  saved together, and a refused one says why at its field. */
export function ChecksEditor({ datasetId, checks }: Props) {
  const [drafts, setDrafts] = useState<Draft[]>(() => checks.map(toDraft));
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const save = useMutation({
    ...setDatasetChecksMutation(),
    onSuccess: async (answer) => {
      setDrafts(((answer.checks ?? []) as Check[]).map(toDraft));
      await queryClient.invalidateQueries({ predicate: (query) => (query.queryKey[0] as { _id?: string } | undefined)?._id === 'getDatasetChecks' });
      announce('The checks were saved.');
    },
  });
  const change = (index: number, next: Partial<Draft>) => setDrafts(drafts.map((draft, at) => (at === index ? { ...draft, ...next } : draft)));
  const shown = drafts.flatMap((draft, index) => ['name', 'type', 'severity', ...TYPES[draft.type].fields.map((field) => field.key)].map((key) => `checks.${index}.${key}`));

  function submit(event: FormEvent) {
    event.preventDefault();
    // The form's text as the API's values; the service says what does not fit (a 422 at its field).
    save.mutate({ path: { dataset_id: datasetId }, body: { checks: drafts.map(toCheck) as Checks['checks'] } });
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Checks">
      {drafts.length === 0 && <p className="muted">No checks: every new version is published at once.</p>}
      {drafts.map((draft, index) => (
        <fieldset key={index} className="check-fieldset">
          <legend>{draft.name || `Check ${index + 1}`}</legend>
          <Field label="Name" name={`checks.${index}.name`} error={save.error}>
            <input value={draft.name} onChange={(event) => change(index, { name: event.target.value })} />
          </Field>
          <Field label="Type" name={`checks.${index}.type`} error={save.error}>
            <select value={draft.type} onChange={(event) => change(index, { type: event.target.value, values: {} })}>
              {Object.entries(TYPES).map(([type, spec]) => (
                <option key={type} value={type}>
                  {spec.label}
                </option>
              ))}
            </select>
          </Field>
          {TYPES[draft.type].fields.map((field) => (
            <Field key={field.key} label={field.label} hint={field.hint} name={`checks.${index}.${field.key}`} error={save.error}>
              {field.kind === 'query' ? (
                <textarea rows={3} value={draft.values[field.key] ?? ''} onChange={(event) => change(index, { values: { ...draft.values, [field.key]: event.target.value } })} />
              ) : (
                <input value={draft.values[field.key] ?? ''} onChange={(event) => change(index, { values: { ...draft.values, [field.key]: event.target.value } })} />
              )}
            </Field>
          ))}
          <Field label="When it fails" name={`checks.${index}.severity`} error={save.error}>
            <select value={draft.severity} onChange={(event) => change(index, { severity: event.target.value })}>
              <option value="error">Quarantine the version (error)</option>
              <option value="warn">Only report it (warn)</option>
            </select>
          </Field>
          <button type="button" className="button" onClick={() => setDrafts(drafts.filter((_, at) => at !== index))}>
            Remove {draft.name || `check ${index + 1}`}
          </button>
        </fieldset>
      ))}
      <OtherProblems error={save.error} shown={shown} />
      <div className="actions">
        <button type="button" className="button" onClick={() => setDrafts([...drafts, { name: '', type: 'not_null', severity: 'error', values: {} }])}>
          Add a check
        </button>
        <button type="submit" className="button button--primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save checks'}
        </button>
        {save.isSuccess && (
          <span role="status" className="muted">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}
