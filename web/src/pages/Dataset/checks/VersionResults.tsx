import { useQuery } from '@tanstack/react-query';

import { getDatasetVersionChecksOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { VersionChecks } from '../../../api/gen/types.gen';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { formatCount, formatDate, formatStatistic } from '../../../components/format';
import { Loading } from '../../../components/States';

const STATES: Record<string, string> = {
  pending: 'is pending: its checks are running',
  published: 'is published',
  quarantined: 'is quarantined: a check that is an error failed, so it is not current and feeds nothing',
};
const POLL_MS = 2000;

/** A version's state and each check's result, with the failing rows it sampled. */
export function VersionResults({ datasetId, version }: { datasetId: number; version: number }) {
  const query = useQuery({
    ...getDatasetVersionChecksOptions({ path: { dataset_id: datasetId, version } }),
    refetchInterval: (state) => ((state.state.data as VersionChecks | undefined)?.state === 'pending' ? POLL_MS : false),
  });
  if (query.error) return <ErrorNotice error={query.error} title="The results could not be read" />;
  if (!query.data) return <Loading label="Reading the results…" />;
  const { state, results, checked_at: checkedAt } = query.data;
  return (
    <>
      <p role="status">
        Version {version} {STATES[state] ?? state}
        {checkedAt ? ` (checked ${formatDate(checkedAt)})` : ''}.
      </p>
      {results.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Results of the checks of version {version}</caption>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Result</th>
                <th scope="col">Failing rows</th>
                <th scope="col">What was found</th>
              </tr>
            </thead>
            <tbody>
              {results.map((result) => (
                <tr key={result.name} className={`check-result check-result--${result.status}`}>
                  <th scope="row">{result.name}</th>
                  <td>{result.status}</td>
                  <td>{formatCount(result.failing_rows)}</td>
                  <td>
                    {result.message}
                    {result.sample.length > 0 && (
                      <details>
                        <summary>Show the failing rows</summary>
                        <ul>
                          {result.sample.map((row, index) => (
                            <li key={index}>
                              <code>{row.map(formatStatistic).join(', ')}</code>
                            </li>
                          ))}
                        </ul>
                      </details>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
