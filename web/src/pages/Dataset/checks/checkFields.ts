/** The fields of each type of check as a form shows them, and their conversion between the
 *  API's values and the form's text (the service validates them: a 422 shows at its field). */

export type CheckValue = string | number | boolean | null | CheckValue[] | { [key: string]: CheckValue };
export type Check = { name: string; type: string; severity?: string } & Record<string, CheckValue | undefined>;
export type Draft = { name: string; type: string; severity: string; values: Record<string, string> };

type Kind = 'text' | 'list' | 'number' | 'scalar' | 'columns' | 'query';
export interface FieldSpec {
  key: string;
  label: string;
  kind: Kind;
  hint?: string;
}

const column: FieldSpec = { key: 'column', label: 'Column', kind: 'text' };

export const TYPES: Record<string, { label: string; fields: FieldSpec[] }> = {
  not_null: { label: 'Not null', fields: [column] },
  unique: { label: 'Unique', fields: [{ key: 'columns', label: 'Columns', kind: 'list', hint: 'Comma-separated: together they must be unique.' }] },
  accepted_values: { label: 'Accepted values', fields: [column, { key: 'values', label: 'Values', kind: 'list', hint: 'Comma-separated.' }] },
  range: { label: 'Range', fields: [column, { key: 'min', label: 'At least', kind: 'scalar' }, { key: 'max', label: 'At most', kind: 'scalar' }] },
  regex: { label: 'Pattern', fields: [column, { key: 'pattern', label: 'Regular expression', kind: 'text', hint: 'The whole value must match.' }] },
  row_count: { label: 'Row count', fields: [{ key: 'min', label: 'At least', kind: 'number' }, { key: 'max', label: 'At most', kind: 'number' }] },
  row_count_change: {
    label: 'Row count change',
    fields: [
      { key: 'max_drop_fraction', label: 'Largest drop (0 to 1)', kind: 'number' },
      { key: 'max_growth_fraction', label: 'Largest growth (0.5 is 50%)', kind: 'number' },
    ],
  },
  schema: { label: 'Schema', fields: [{ key: 'columns', label: 'Columns', kind: 'columns', hint: 'Comma-separated, a type after a colon if it matters: id:BIGINT, city.' }] },
  freshness: { label: 'Freshness', fields: [column, { key: 'max_age', label: 'Newest value at most this old', kind: 'text', hint: 'ISO 8601: P1D, PT6H, P1W.' }] },
  sql: { label: 'SQL', fields: [{ key: 'query', label: 'Query (its rows are the failures)', kind: 'query', hint: 'One SELECT over input.' }] },
};

function scalar(text: string): string | number {
  const trimmed = text.trim();
  return trimmed !== '' && !Number.isNaN(Number(trimmed)) ? Number(trimmed) : trimmed;
}

function list(text: string): string[] {
  return text.split(',').map((item) => item.trim()).filter(Boolean);
}

/** The check a draft stands for, as the API takes it. */
export function toCheck(draft: Draft): Check {
  const check: Check = { name: draft.name.trim(), type: draft.type, severity: draft.severity };
  for (const field of TYPES[draft.type]?.fields ?? []) {
    const text = draft.values[field.key] ?? '';
    if (field.kind === 'list') check[field.key] = list(text);
    else if (field.kind === 'columns') check[field.key] = list(text).map((item) => {
      const [name, type] = item.split(':').map((part) => part.trim());
      const entry: { [key: string]: CheckValue } = { name };
      if (type) entry.type = type;
      return entry;
    });
    else if (field.kind === 'number' || field.kind === 'scalar') {
      if (text.trim() !== '') check[field.key] = scalar(text);
    } else check[field.key] = text;
  }
  return check;
}

/** The draft of a check the API answered. */
export function toDraft(check: Check): Draft {
  const values: Record<string, string> = {};
  for (const field of TYPES[check.type]?.fields ?? []) {
    const value = check[field.key];
    if (value === undefined || value === null) continue;
    if (field.kind === 'columns' && Array.isArray(value)) {
      values[field.key] = value.map((item) => {
        const entry = item as { name: string; type?: string };
        return entry.type ? `${entry.name}:${entry.type}` : entry.name;
      }).join(', ');
    } else if (Array.isArray(value)) values[field.key] = value.map(String).join(', ');
    else values[field.key] = String(value);
  }
  return { name: check.name, type: check.type, severity: check.severity ?? 'error', values };
}
