/** A searchable dataset picker: type part of a name, choose one of the matches. */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';

import { getDatasetOptions, listDatasetsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import { Field } from '../../../components/Field';

interface Props {
  label: string;
  /** The field's path in the request ("source_dataset_id", "steps.2.dataset_id"). */
  name: string;
  error: unknown;
  value: number | null;
  onChange: (datasetId: number | null) => void;
}

function useDebounced(value: string, ms = 250): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export function DatasetPicker({ label, name, error, value, onChange }: Props) {
  const searchId = useId();
  const [search, setSearch] = useState('');
  const q = useDebounced(search.trim());
  const matches = useQuery(listDatasetsOptions({ query: { q: q || undefined, sort: 'name', limit: 50 } }));
  const chosen = useQuery({ ...getDatasetOptions({ path: { dataset_id: value ?? 0 } }), enabled: value !== null });
  const items = matches.data?.items ?? [];
  const chosenShown = value !== null && !items.some((item) => item.id === value);
  return (
    <div className="pipelines-picker">
      <div className="field">
        <label htmlFor={searchId}>Find: {label.toLowerCase()}</label>
        <input
          id={searchId}
          type="search"
          value={search}
          autoComplete="off"
          placeholder="Part of its name"
          onChange={(event) => setSearch(event.target.value)}
        />
      </div>
      <Field
        label={label}
        name={name}
        error={error}
        hint={matches.isPending ? 'Searching…' : `${matches.data?.total ?? 0} found${(matches.data?.total ?? 0) > items.length ? `; the first ${items.length} are listed` : ''}.`}
      >
        <select value={value ?? ''} onChange={(event) => onChange(event.target.value ? Number(event.target.value) : null)}>
          <option value="">Choose a dataset</option>
          {chosenShown && (
            <option value={value}>{chosen.data ? `${chosen.data.name} (#${value})` : `Dataset #${value}`}</option>
          )}
          {items.map((item) => (
            <option key={item.id} value={item.id}>
              {item.name} (#{item.id}){item.current_version === null ? ', no file yet' : ''}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}
