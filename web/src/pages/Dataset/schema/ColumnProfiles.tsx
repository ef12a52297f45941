import { Fragment, useId } from 'react';
import type { ReactNode } from 'react';

import type { Bin, ProfileColumn, ValueCount } from '../../../api/gen/types.gen';
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

function plural(count: number, word: string): string {
  return `${count.toLocaleString()} ${word}${count === 1 ? '' : 's'}`;
}

/** The histogram, named by its range and where most rows are. */
function Histogram({ name, bins }: { name: string; bins: Bin[] }) {
  const first = statistic(bins[0].from);
  const last = statistic(bins[bins.length - 1].to);
  const peak = bins.reduce((most, bin) => (bin.count > most.count ? bin : most), bins[0]);
  return (
    <BarChart
      title={`Distribution of ${name}: ${bins.length} ranges from ${first} to ${last}; the most rows (${peak.count.toLocaleString()}) from ${statistic(peak.from)} to ${statistic(peak.to)}`}
      caption="Distribution"
      axis={[first, last]}
      headings={['Range', 'Rows']}
      bars={bins.map((bin) => ({ label: `${statistic(bin.from)} to ${statistic(bin.to)}`, value: bin.count }))}
    />
  );
}

/** The most frequent values (the server's order), named by how many and the first. */
function TopValues({ name, values }: { name: string; values: ValueCount[] }) {
  const top = values[0];
  return (
    <BarChart
      title={`Most frequent values of ${name}: ${plural(values.length, 'value')}, the first ${statistic(top.value)} (${plural(top.count, 'row')})`}
      caption="Most frequent values"
      headings={['Value', 'Rows']}
      orientation="horizontal"
      bars={values.map((item) => ({ label: statistic(item.value), value: item.count }))}
    />
  );
}

/** Each column's statistics, with its histogram and most frequent values as charts;
 *  `partial`: the quartiles come from a sample. */
export function ColumnProfiles({ columns, partial }: { columns: ProfileColumn[]; partial: boolean }) {
  // Ids from the position, not the name: a name may hold spaces.
  const id = useId();
  return (
    <div className="profile-columns">
      {columns.map((column, index) => (
        <article key={column.name} className="profile-column" aria-labelledby={`${id}-${index}`}>
          <h4 id={`${id}-${index}`}>
            {column.name} <code>{column.type}</code>
          </h4>
          <Statistics column={column} partial={partial} />
          {column.histogram && column.histogram.length > 0 && <Histogram name={column.name} bins={column.histogram} />}
          {column.top_values && column.top_values.length > 0 && <TopValues name={column.name} values={column.top_values} />}
        </article>
      ))}
    </div>
  );
}
