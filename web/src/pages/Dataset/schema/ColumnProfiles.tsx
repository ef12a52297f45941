import { Fragment } from 'react';
import type { ReactNode } from 'react';

import type { ProfileColumn } from '../../../api/gen/types.gen';
import { BarChart } from '../../../components/charts/BarChart';
import { formatCount, formatStatistic as statistic } from '../../../components/format';

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(fraction > 0 && fraction < 0.001 ? 2 : 1)}%`;
}

function Statistics({ column, partial }: { column: ProfileColumn; partial: boolean }) {
  const rows: [string, ReactNode][] = [
    ['Values', formatCount(column.count)],
    ['Nulls', `${formatCount(column.nulls)} (${percent(column.null_fraction)})`],
    ['Distinct (about)', formatCount(column.distinct)],
  ];
  if (column.min !== null && column.min !== undefined) rows.push(['Smallest', statistic(column.min)], ['Largest', statistic(column.max)]);
  if (column.mean !== null && column.mean !== undefined) rows.push(['Mean', statistic(column.mean)], ['Standard deviation', statistic(column.stddev)]);
  if (column.quantiles) {
    const { p25, p50, p75 } = column.quantiles;
    const quartiles = ([['25%', p25], ['50%', p50], ['75%', p75]] as const).map(([at, value], index) => (
      <Fragment key={at}>
        {index > 0 && ' · '}
        <span className="profile-stats__pair">{`${at}: ${statistic(value)}`}</span>
      </Fragment>
    ));
    rows.push([partial ? 'Quartiles (from a sample)' : 'Quartiles', quartiles]);
  }
  if (column.length) rows.push(['Length', `${statistic(column.length.min)} to ${statistic(column.length.max)} characters (mean ${statistic(column.length.mean)})`]);
  return (
    <dl className="profile-stats">
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Each column's statistics, with its histogram and most frequent values as charts;
 *  `partial`: the quartiles come from a sample. */
export function ColumnProfiles({ columns, partial }: { columns: ProfileColumn[]; partial: boolean }) {
  return (
    <div className="profile-columns">
      {columns.map((column) => (
        <article key={column.name} className="profile-column" aria-labelledby={`profile-${column.name}`}>
          <h4 id={`profile-${column.name}`}>
            {column.name} <code>{column.type}</code>
          </h4>
          <Statistics column={column} partial={partial} />
          {column.histogram && column.histogram.length > 0 && (
            <BarChart
              title={`Distribution of ${column.name}: ${column.histogram.length} ranges from ${statistic(column.histogram[0].from)} to ${statistic(column.histogram[column.histogram.length - 1].to)}`}
              caption="Distribution"
              axis={[statistic(column.histogram[0].from), statistic(column.histogram[column.histogram.length - 1].to)]}
              headings={['Range', 'Rows']}
              bars={column.histogram.map((bin) => ({ label: `${statistic(bin.from)} to ${statistic(bin.to)}`, value: bin.count }))}
            />
          )}
          {column.top_values && column.top_values.length > 0 && (
            <BarChart
              title={`Most frequent values of ${column.name}`}
              caption="Most frequent values"
              headings={['Value', 'Rows']}
              orientation="horizontal"
              bars={column.top_values.map((item) => ({ label: statistic(item.value), value: item.count }))}
            />
          )}
        </article>
      ))}
    </div>
  );
}
