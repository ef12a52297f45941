import type { ColumnDrift, Diff } from '../../../api/gen/types.gen';
import { formatCount, formatStatistic as statistic } from '../../../components/format';

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The schema changes as a table: each column with what happened to it, in words. */
function SchemaChanges({ diff }: { diff: Diff }) {
  const { added, removed, changed } = diff.schema;
  if (added.length + removed.length + changed.length === 0) {
    return <p>The columns and their types are the same.</p>;
  }
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Column changes</caption>
        <thead>
          <tr>
            <th scope="col">Change</th>
            <th scope="col">Column</th>
            <th scope="col">Type</th>
          </tr>
        </thead>
        <tbody>
          {added.map((column) => (
            <tr key={`added-${column.name}`}>
              <td className="diff-kind diff-kind--added">+ added</td>
              <th scope="row">{column.name}</th>
              <td>{column.type}</td>
            </tr>
          ))}
          {removed.map((column) => (
            <tr key={`removed-${column.name}`}>
              <td className="diff-kind diff-kind--removed">− removed</td>
              <th scope="row">{column.name}</th>
              <td>{column.type}</td>
            </tr>
          ))}
          {changed.map((column) => (
            <tr key={`changed-${column.name}`}>
              <td className="diff-kind">~ type changed</td>
              <th scope="row">{column.name}</th>
              <td>
                {column.from} → {column.to}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Sample rows, each with its kind in words (added, removed, before, after). */
function SampleRows({ diff }: { diff: Diff }) {
  const { added, removed, changed } = diff.sample;
  if (added.length + removed.length + changed.length === 0) return <p>No rows differ.</p>;
  const rows: { kind: string; label: string; values: unknown[] }[] = [
    ...added.map((values) => ({ kind: 'added', label: '+ added', values })),
    ...removed.map((values) => ({ kind: 'removed', label: '− removed', values })),
    ...changed.flatMap((row) => [
      { kind: 'removed', label: `~ changed (before)`, values: row.from },
      { kind: 'added', label: `~ changed (after)`, values: row.to },
    ]),
  ];
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Sample of the rows that differ</caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            {diff.columns.map((name) => (
              <th scope="col" key={name}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              <th scope="row" className={`diff-kind diff-kind--${row.kind}`}>
                {row.label}
              </th>
              {row.values.map((value, column) => (
                <td key={column}>{cell(value)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function percent(value: unknown): string {
  return typeof value === 'number' ? `${(value * 100).toFixed(1)}%` : '—';
}

/** What changed in a column's statistics, in words (nothing: none). */
function changes(column: ColumnDrift): string[] {
  const said: string[] = [];
  if (column.null_fraction.from !== column.null_fraction.to) said.push(`nulls ${percent(column.null_fraction.from)} → ${percent(column.null_fraction.to)}`);
  if (column.distinct.from !== column.distinct.to) said.push(`distinct ${statistic(column.distinct.from)} → ${statistic(column.distinct.to)}`);
  if (column.mean.from !== column.mean.to) said.push(`mean ${statistic(column.mean.from)} → ${statistic(column.mean.to)}`);
  if (column.new_values.length) said.push(`new: ${column.new_values.map(statistic).join(', ')}`);
  if (column.missing_values.length) said.push(`gone: ${column.missing_values.map(statistic).join(', ')}`);
  return said;
}

interface Recheck {
  /** Asks for the diff again (the drift may be ready by now). */
  recheck?: () => void;
  checking?: boolean;
}

/** How the statistics of the columns both versions have changed (their profiles). */
function Drift({ diff, recheck, checking = false }: { diff: Diff } & Recheck) {
  if (!diff.profile) {
    return (
      <>
        <p className="muted">Shown once a worker has computed the statistics of both versions.</p>
        {recheck && (
          <p>
            <button type="button" className="button" disabled={checking} onClick={recheck}>
              {checking ? 'Checking…' : 'Check again'}
            </button>
          </p>
        )}
      </>
    );
  }
  const changed = diff.profile.map((column) => ({ name: column.name, said: changes(column) })).filter((column) => column.said.length);
  if (changed.length === 0) return <p>The columns' statistics are the same.</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Drift of the columns' statistics</caption>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">What changed</th>
          </tr>
        </thead>
        <tbody>
          {changed.map((column) => (
            <tr key={column.name}>
              <th scope="row">{column.name}</th>
              <td>{column.said.join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What a diff says: columns, row counts, the columns' drift, sample rows. */
export function DiffResult({ diff, recheck, checking }: { diff: Diff } & Recheck) {
  const counts: [string, number][] = [
    ['added', diff.rows.added],
    ['removed', diff.rows.removed],
    ['changed', diff.rows.changed],
    ['unchanged', diff.rows.unchanged],
  ];
  return (
    <>
      <h3>Rows</h3>
      <ul className="diff-summary">
        {counts.map(([label, count]) => (
          <li key={label}>
            <strong>{formatCount(count)}</strong> {count === 1 ? 'row' : 'rows'} {label}
          </li>
        ))}
      </ul>
      <h3>Columns</h3>
      <SchemaChanges diff={diff} />
      <h3>Drift</h3>
      <Drift diff={diff} recheck={recheck} checking={checking} />
      <h3>Sample rows</h3>
      <p className="muted">At most 20 rows of each kind.</p>
      <SampleRows diff={diff} />
    </>
  );
}
