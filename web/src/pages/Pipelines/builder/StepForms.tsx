/** One small form per step `op`, each field labelled and showing its own 422 (by its path
 *  in the request: "steps.1.query"). */
import type { ReactNode } from 'react';

import { asApiError } from '../../../api/errors';
import { Field } from '../../../components/Field';
import { SqlEditor } from '../../../components/sqlEditor/SqlEditor';
import { DatasetPicker } from './DatasetPicker';
import type { AggregateDraft, StepDraft } from './draft';

export interface StepFormProps {
  draft: StepDraft;
  index: number;
  error: unknown;
  onChange: (changes: Partial<StepDraft>) => void;
}

const NAMES_HINT = 'Column names, separated by commas.';

function at(index: number, name: string): string {
  return `steps.${index}.${name}`;
}

function TextField(props: {
  label: string;
  name: string;
  value: string;
  error: unknown;
  hint?: ReactNode;
  onChange: (value: string) => void;
  inputMode?: 'numeric';
}) {
  return (
    <Field label={props.label} name={props.name} error={props.error} hint={props.hint}>
      <input
        type="text"
        inputMode={props.inputMode}
        value={props.value}
        autoComplete="off"
        onChange={(event) => props.onChange(event.target.value)}
      />
    </Field>
  );
}

/** Several controls under one legend, with the 422 of their common path. */
function GroupField({ legend, name, error, hint, children }: { legend: string; name: string; error: unknown; hint?: string; children: ReactNode }) {
  const message = error ? asApiError(error).fieldMessage(name) : undefined;
  return (
    <fieldset className={`field pipelines-group${message ? ' field--invalid' : ''}`}>
      <legend>{legend}</legend>
      {hint && <p className="field__hint">{hint}</p>}
      {message && (
        <p className="field__error" role="alert">
          {message}
        </p>
      )}
      {children}
    </fieldset>
  );
}

function ColumnsForm({ draft, index, error, onChange, label = 'Columns', hint = NAMES_HINT }: StepFormProps & { label?: string; hint?: string }) {
  return (
    <TextField label={label} name={at(index, 'columns')} value={draft.columns} error={error} hint={hint} onChange={(columns) => onChange({ columns })} />
  );
}

function RenameForm({ draft, index, error, onChange }: StepFormProps) {
  const setPair = (at: number, changes: Partial<StepDraft['pairs'][number]>) =>
    onChange({ pairs: draft.pairs.map((pair, i) => (i === at ? { ...pair, ...changes } : pair)) });
  return (
    <GroupField legend="Renames" name={at(index, 'mapping')} error={error} hint="Each column's old name and its new name.">
      <div className="pipelines-pairs">
        {draft.pairs.map((pair, i) => (
          <div key={i} className="pipelines-pair">
            <label>
              Old name {i + 1}
              <input type="text" value={pair.from} onChange={(event) => setPair(i, { from: event.target.value })} />
            </label>
            <label>
              New name {i + 1}
              <input type="text" value={pair.to} onChange={(event) => setPair(i, { to: event.target.value })} />
            </label>
            {draft.pairs.length > 1 && (
              <button type="button" className="button" onClick={() => onChange({ pairs: draft.pairs.filter((_, j) => j !== i) })}>
                Remove rename {i + 1}
              </button>
            )}
          </div>
        ))}
        <button type="button" className="button" onClick={() => onChange({ pairs: [...draft.pairs, { from: '', to: '' }] })}>
            Add a rename
          </button>
      </div>
    </GroupField>
  );
}

function FilterForm({ draft, index, error, onChange }: StepFormProps) {
  return (
    <div className="pipelines-row">
      <TextField label="Column" name={at(index, 'column')} value={draft.column} error={error} onChange={(column) => onChange({ column })} />
      <Field label="Comparison" name={at(index, 'operator')} error={error}>
        <select value={draft.operator} onChange={(event) => onChange({ operator: event.target.value as StepDraft['operator'] })}>
          <option value="eq">equals</option>
          <option value="ne">does not equal</option>
          <option value="lt">is less than</option>
          <option value="le">is at most</option>
          <option value="gt">is greater than</option>
          <option value="ge">is at least</option>
          <option value="contains">contains</option>
        </select>
      </Field>
      <TextField
        label="Value"
        name={at(index, 'value')}
        value={draft.value}
        error={error}
        hint="Compared in the column's type: numbers as numbers, dates as dates."
        onChange={(value) => onChange({ value })}
      />
    </div>
  );
}

function SortForm(props: StepFormProps) {
  const { draft, onChange } = props;
  return (
    <>
      <ColumnsForm {...props} />
      <label className="pipelines-check">
        <input type="checkbox" checked={draft.descending} onChange={(event) => onChange({ descending: event.target.checked })} />
        Descending (largest first)
      </label>
    </>
  );
}

function LimitForm({ draft, index, error, onChange }: StepFormProps) {
  return (
    <TextField label="Number of rows" name={at(index, 'count')} value={draft.count} error={error} inputMode="numeric" onChange={(count) => onChange({ count })} />
  );
}

function CastForm({ draft, index, error, onChange }: StepFormProps) {
  return (
    <div className="pipelines-row">
      <TextField label="Column" name={at(index, 'column')} value={draft.column} error={error} onChange={(column) => onChange({ column })} />
      <Field label="New type" name={at(index, 'type')} error={error}>
        <select value={draft.type} onChange={(event) => onChange({ type: event.target.value as StepDraft['type'] })}>
          {['integer', 'float', 'string', 'boolean', 'date', 'timestamp'].map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </Field>
    </div>
  );
}

function AggregateForm({ draft, index, error, onChange }: StepFormProps) {
  const setOne = (at: number, changes: Partial<AggregateDraft>) =>
    onChange({ aggregates: draft.aggregates.map((item, i) => (i === at ? { ...item, ...changes } : item)) });
  return (
    <>
      <TextField label="Group by" name={at(index, 'group_by')} value={draft.groupBy} error={error} hint="Column names, separated by commas; none: one row." onChange={(groupBy) => onChange({ groupBy })} />
      <GroupField legend="Results" name={at(index, 'aggregates')} error={error}>
        <div className="pipelines-pairs">
          {draft.aggregates.map((item, i) => (
            <div key={i} className="pipelines-row">
              <Field label={`Function ${i + 1}`} name={at(index, `aggregates.${i}.function`)} error={error}>
                <select value={item.function} onChange={(event) => setOne(i, { function: event.target.value as AggregateDraft['function'] })}>
                  {['count', 'sum', 'avg', 'min', 'max'].map((name) => (
                    <option key={name} value={name}>
                      {name}
                    </option>
                  ))}
                </select>
              </Field>
              <TextField
                label={`Of column ${i + 1}`}
                name={at(index, `aggregates.${i}.column`)}
                value={item.column}
                error={error}
                hint={item.function === 'count' ? 'Empty: count rows.' : undefined}
                onChange={(column) => setOne(i, { column })}
              />
              <TextField label={`Named ${i + 1}`} name={at(index, `aggregates.${i}.as`)} value={item.as} error={error} onChange={(as) => setOne(i, { as })} />
              {draft.aggregates.length > 1 && (
                <button type="button" className="button" onClick={() => onChange({ aggregates: draft.aggregates.filter((_, j) => j !== i) })}>
                  Remove result {i + 1}
                </button>
              )}
            </div>
          ))}
          <button type="button" className="button" onClick={() => onChange({ aggregates: [...draft.aggregates, { function: 'sum', column: '', as: '' }] })}>
              Add a result
            </button>
        </div>
      </GroupField>
    </>
  );
}

function JoinForm({ draft, index, error, onChange }: StepFormProps) {
  return (
    <>
      <DatasetPicker
        label="Dataset to join"
        name={at(index, 'dataset_id')}
        error={error}
        value={draft.datasetId}
        onChange={(datasetId) => onChange({ datasetId })}
      />
      <div className="pipelines-row">
        <TextField label="Join on" name={at(index, 'on')} value={draft.columns} error={error} hint={NAMES_HINT} onChange={(columns) => onChange({ columns })} />
        <Field label="Keep" name={at(index, 'how')} error={error}>
          <select value={draft.how} onChange={(event) => onChange({ how: event.target.value as StepDraft['how'] })}>
            <option value="inner">matching rows only (inner)</option>
            <option value="left">every row of this side (left)</option>
          </select>
        </Field>
        <TextField
          label="Its version"
          name={at(index, 'version')}
          value={draft.version}
          error={error}
          inputMode="numeric"
          hint="Empty: its current version when each run starts."
          onChange={(version) => onChange({ version })}
        />
      </div>
    </>
  );
}

function SqlForm({ draft, index, error, onChange }: StepFormProps) {
  return (
    <Field
      label={`SQL query of step ${index + 1}`}
      name={at(index, 'query')}
      error={error}
      hint="One SELECT over the previous step's result, which is named input."
    >
      <SqlEditor value={draft.query} label={`SQL query of step ${index + 1}`} onChange={(query) => onChange({ query })} />
    </Field>
  );
}

/** The form of a step's own fields. */
export function StepFields(props: StepFormProps) {
  switch (props.draft.op) {
    case 'select':
      return <ColumnsForm {...props} hint="The columns to keep, in this order, separated by commas." />;
    case 'rename':
      return <RenameForm {...props} />;
    case 'filter':
      return <FilterForm {...props} />;
    case 'sort':
      return <SortForm {...props} />;
    case 'dedupe':
      return <ColumnsForm {...props} hint="Rows equal on these columns are dropped after the first; empty: on all columns." />;
    case 'limit':
      return <LimitForm {...props} />;
    case 'cast':
      return <CastForm {...props} />;
    case 'aggregate':
      return <AggregateForm {...props} />;
    case 'join':
      return <JoinForm {...props} />;
    case 'sql':
      return <SqlForm {...props} />;
  }
}
