import type { Preview } from '../../api/gen/types.gen';
import './catalog.css';

/** A cell as text: null shows as an empty marker, lists and objects as JSON. */
function cell(value: unknown) {
  if (value === null || value === undefined) return <span className="catalog-null">null</span>;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Rows of a preview as a table that scrolls sideways by itself (never the page). */
export function DataTable({ preview, caption }: { preview: Preview; caption: string }) {
  return (
    // The region is focusable so that keyboard users can scroll it.
    // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table className="catalog-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {preview.columns.map((column) => (
              <th key={column.name} scope="col">
                {column.name}
                <span className="visually-hidden"> ({column.type})</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {preview.rows.map((row, index) => (
            // Rows have no identity but their place.
            <tr key={index}>
              {row.map((value, column) => (
                <td key={column}>{cell(value)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
