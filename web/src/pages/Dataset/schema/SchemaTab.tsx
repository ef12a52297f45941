import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { getDatasetColumnsOptions } from '../../../api/gen/@tanstack/react-query.gen';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Loading } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';
import { ColumnsTable } from './ColumnsTable';
import { ProfileSection } from './ProfileSection';

/** The dataset's Schema tab: the current version's columns, their types and descriptions
 *  (writers edit the descriptions), then each column's statistics. */
export function SchemaTab() {
  const dataset = useDataset();
  usePageTitle(`${dataset.name}: schema`);
  const columns = useQuery({
    ...getDatasetColumnsOptions({ path: { dataset_id: dataset.id } }),
    enabled: dataset.file !== null,
  });

  let body;
  if (!dataset.file) {
    body = (
      <div className="notice notice--warn">
        <p>This dataset has no file yet, so it has no columns.</p>
        {dataset.capabilities.write && (
          <p>
            <Link to={`/datasets/${dataset.id}/versions`}>Upload a file in the Versions tab.</Link>
          </p>
        )}
      </div>
    );
  } else if (columns.error) {
    body = <ErrorNotice error={columns.error} title="The columns could not be read" />;
  } else if (!columns.data) {
    body = <Loading label="Reading the columns…" />;
  } else {
    const count = columns.data.columns.length;
    const rows = dataset.schema?.rows;
    body = (
      <>
        <p>
          {count.toLocaleString()} column{count === 1 ? '' : 's'}
          {rows !== undefined && ` and ${rows.toLocaleString()} row${rows === 1 ? '' : 's'}`} in version{' '}
          {columns.data.version ?? dataset.current_version}.
        </p>
        <ColumnsTable key={columns.data.version} dataset={dataset} columns={columns.data.columns} />
        <ProfileSection dataset={dataset} />
      </>
    );
  }
  return (
    <section aria-labelledby="schema-title">
      <h2 id="schema-title">Schema</h2>
      {body}
    </section>
  );
}
