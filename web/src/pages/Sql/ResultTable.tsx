/** A query's rows as a table, a page at a time (the rows are all here already): each
 *  column's name and type in its header, NULL unlike any value. */
import { useState } from 'react';

import type { QueryResult } from '../../api/gen/types.gen';
import { Pager } from '../../components/Pager';

export const PAGE_ROWS = 50;

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL.*)$/;

function cell(value: unknown) {
  if (value === null || value === undefined) return <span className="sql-null">NULL</span>;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function ResultTable({ result }: { result: QueryResult }) {
  const [offset, setOffset] = useState(0);
  const { columns, rows } = result;
  const page = rows.slice(offset, offset + PAGE_ROWS);
  const numeric = columns.map((column) => NUMERIC.test(column.type));
  const first = rows.length ? offset + 1 : 0;
  const last = offset + page.length;
  const caption = `Query result, rows ${first.toLocaleString()}–${last.toLocaleString()} of ${rows.length.toLocaleString()}`;
  return (
    <>
      {/* The region is focusable so that keyboard users can scroll it sideways. */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
      <div className="table-wrap" role="region" aria-label="Query result" tabIndex={0}>
        <table className="sql-table">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column, index) => (
                <th key={index} scope="col" className={numeric[index] ? 'sql-table__number' : undefined}>
                  <span className="sql-table__name">{column.name}</span> <span className="sql-type">{column.type}</span>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {page.map((row, index) => (
              // Rows have no identity but their place.
              <tr key={offset + index}>
                {row.map((value, column) => (
                  <td key={column} className={numeric[column] ? 'sql-table__number' : undefined}>
                    {cell(value)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager total={rows.length} limit={PAGE_ROWS} offset={offset} onOffset={setOffset} label="Result pages" />
    </>
  );
}
