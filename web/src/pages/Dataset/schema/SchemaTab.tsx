import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';

import { previewDatasetOptions } from '../../../api/gen/@tanstack/react-query.gen';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Loading } from '../../../components/States';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';

/** The dataset's Schema tab: the current version's columns and their types. */
export function SchemaTab() {
  const dataset = useDataset();
  usePageTitle(`${dataset.name}: schema`);
  const preview = useQuery({
    ...previewDatasetOptions({ path: { dataset_id: dataset.id }, query: { limit: 1 } }),
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
  } else if (preview.error) {
    body = <ErrorNotice error={preview.error} title="The columns could not be read" />;
  } else if (!preview.data) {
    body = <Loading label="Reading the columns…" />;
  } else {
    body = (
      <>
        <p>
          {preview.data.columns.length.toLocaleString()} column{preview.data.columns.length === 1 ? '' : 's'} in version{' '}
          {dataset.current_version}, read as {preview.data.format.toUpperCase()}.
        </p>
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Columns of {dataset.name}</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Column</th>
                <th scope="col">Type</th>
              </tr>
            </thead>
            <tbody>
              {preview.data.columns.map((column, index) => (
                <tr key={column.name}>
                  <td>{index + 1}</td>
                  <td>{column.name}</td>
                  <td>
                    <code>{column.type}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
