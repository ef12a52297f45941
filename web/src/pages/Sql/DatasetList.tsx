/** The console's side list: the datasets a query can read, filtered by name; a name inserts
 *  itself at the cursor, and each opens to its columns (which insert themselves too). */
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { getDatasetColumnsOptions } from '../../api/gen/@tanstack/react-query.gen';
import type { Dataset } from '../../api/gen/types.gen';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/States';
import { CATALOG_MAX, useCatalog } from './tables';
import { identifier } from './names';

interface Props {
  opened: Set<number>;
  onToggle: (datasetId: number) => void;
  onInsert: (text: string) => void;
}

function Columns({ dataset, onInsert }: { dataset: Dataset; onInsert: (text: string) => void }) {
  const columns = useQuery({ ...getDatasetColumnsOptions({ path: { dataset_id: dataset.id } }), staleTime: 60_000 });
  if (columns.error) return <ErrorNotice error={columns.error} title="The columns could not be read" />;
  if (!columns.data) return <Loading label="Reading the columns…" />;
  if (columns.data.columns.length === 0) return <p className="muted">No columns.</p>;
  return (
    <ul className="sql-columns" aria-label={`Columns of ${dataset.name}`}>
      {columns.data.columns.map((column) => (
        <li key={column.name}>
          <button
            type="button"
            className="link-button"
            aria-label={`Insert column ${column.name}`}
            onClick={() => onInsert(identifier(column.name))}
          >
            {column.name}
          </button>{' '}
          <span className="sql-type">{column.type}</span>
        </li>
      ))}
    </ul>
  );
}

function DatasetItem({ dataset, open, onToggle, onInsert }: { dataset: Dataset; open: boolean } & Omit<Props, 'opened' | 'onToggle'> & { onToggle: () => void }) {
  const columnsId = useId();
  return (
    <li>
      <div className="sql-dataset">
        <button
          type="button"
          className="sql-dataset__toggle"
          aria-expanded={open}
          aria-controls={open ? columnsId : undefined}
          aria-label={`Columns of ${dataset.name}`}
          onClick={onToggle}
        >
          <span aria-hidden="true">{open ? '▾' : '▸'}</span>
        </button>
        <button
          type="button"
          className="link-button sql-dataset__name"
          aria-label={`Insert ${dataset.name}`}
          onClick={() => onInsert(identifier(dataset.name))}
        >
          {dataset.name}
        </button>
      </div>
      {open && (
        <div id={columnsId} className="sql-dataset__columns">
          <Columns dataset={dataset} onInsert={onInsert} />
        </div>
      )}
    </li>
  );
}

export function DatasetList({ opened, onToggle, onInsert }: Props) {
  const filterId = useId();
  const [filter, setFilter] = useState('');
  const catalog = useCatalog();
  const datasets = catalog.data?.datasets ?? [];
  const wanted = filter.trim().toLowerCase();
  const shown = wanted ? datasets.filter((dataset) => dataset.name.toLowerCase().includes(wanted)) : datasets;
  return (
    <aside className="sql-aside" aria-labelledby="sql-datasets-title">
      <h2 id="sql-datasets-title">Datasets</h2>
      <div className="field">
        <label htmlFor={filterId}>Filter datasets</label>
        <input id={filterId} type="search" value={filter} autoComplete="off" onChange={(event) => setFilter(event.target.value)} />
      </div>
      {catalog.error ? (
        <ErrorNotice error={catalog.error} title="The datasets could not be listed" />
      ) : !catalog.data ? (
        <Loading label="Listing the datasets…" />
      ) : shown.length === 0 ? (
        <p className="muted">{datasets.length === 0 ? 'No dataset with a file to query yet.' : 'No dataset matches.'}</p>
      ) : (
        <ul className="sql-datasets" aria-labelledby="sql-datasets-title">
          {shown.map((dataset) => (
            <DatasetItem
              key={dataset.id}
              dataset={dataset}
              open={opened.has(dataset.id)}
              onToggle={() => onToggle(dataset.id)}
              onInsert={onInsert}
            />
          ))}
        </ul>
      )}
      {catalog.data && catalog.data.total > CATALOG_MAX && (
        <p className="field__hint">
          The first {CATALOG_MAX.toLocaleString()} of {catalog.data.total.toLocaleString()} datasets are listed; a query may
          name any other you may read.
        </p>
      )}
    </aside>
  );
}
