/** A query's answer: how many rows and how long, a note when there are more rows than
 *  shown, the dataset versions read (each linking to its dataset), the rows. */
import { Link } from 'react-router';

import type { QueryResult } from '../../api/gen/types.gen';
import { ResultTable } from './ResultTable';

function rowsWords(count: number): string {
  return `${count.toLocaleString()} row${count === 1 ? '' : 's'}`;
}

export function Inputs({ result }: { result: QueryResult }) {
  if (result.inputs.length === 0) return <p>It read no dataset.</p>;
  return (
    <div className="sql-inputs">
      <h3 id="sql-inputs-title">Read</h3>
      <ul aria-labelledby="sql-inputs-title">
        {result.inputs.map((input) => (
          <li key={`${input.dataset_id}@${input.version}`}>
            <Link to={`/datasets/${input.dataset_id}`}>
              {input.name}@{input.version}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Result({ result }: { result: QueryResult }) {
  const elapsed = Math.round(result.elapsed_ms).toLocaleString();
  return (
    <>
      <p className="sql-summary">
        {result.truncated ? `The first ${rowsWords(result.rows.length)}` : rowsWords(result.rows.length)}, {result.columns.length}{' '}
        column{result.columns.length === 1 ? '' : 's'}, in {elapsed} ms.
      </p>
      {result.truncated && (
        <p className="notice notice--warn">
          Showing the first {rowsWords(result.rows.length)}: the result has more. Export it for all of them.
        </p>
      )}
      <Inputs result={result} />
      {result.columns.length > 0 && <ResultTable result={result} />}
    </>
  );
}
