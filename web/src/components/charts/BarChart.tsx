import { useId } from 'react';

import './charts.css';

export interface Bar {
  label: string;
  value: number;
}

interface Props {
  /** What the chart shows, in words: the image's name and the table's caption. */
  title: string;
  bars: Bar[];
  /** The table's column headings: what a bar is, and what its length counts. */
  headings: [string, string];
  /** Bars side by side (a histogram) or one under the other (top values). */
  orientation?: 'vertical' | 'horizontal';
}

const WIDTH = 240;
const HEIGHT = 96;

/** A bar chart as an SVG image named by `title` (each bar titled with its numbers), and
 *  the same numbers as a table behind "As a table", for whoever does not see the chart. */
export function BarChart({ title, bars, headings, orientation = 'vertical' }: Props) {
  const id = useId();
  const largest = Math.max(1, ...bars.map((bar) => bar.value));
  return (
    <figure className="bar-chart">
      <svg
        role="img"
        aria-labelledby={`${id}-title`}
        viewBox={`0 0 ${WIDTH} ${orientation === 'vertical' ? HEIGHT : bars.length * 16}`}
        className={`bar-chart__image bar-chart__image--${orientation}`}
        preserveAspectRatio="none"
      >
        <title id={`${id}-title`}>{title}</title>
        {bars.map((bar, index) => {
          const share = bar.value / largest;
          if (orientation === 'vertical') {
            const width = WIDTH / bars.length;
            const height = Math.max(share * HEIGHT, bar.value > 0 ? 1 : 0);
            return (
              <rect key={index} x={index * width + 1} y={HEIGHT - height} width={Math.max(width - 2, 1)} height={height}>
                <title>{`${bar.label}: ${bar.value.toLocaleString()}`}</title>
              </rect>
            );
          }
          return (
            <rect key={index} x={0} y={index * 16 + 2} width={Math.max(share * WIDTH, 1)} height={12}>
              <title>{`${bar.label}: ${bar.value.toLocaleString()}`}</title>
            </rect>
          );
        })}
      </svg>
      <details className="bar-chart__data">
        <summary>As a table</summary>
        <table>
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{headings[0]}</th>
              <th scope="col">{headings[1]}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((bar, index) => (
              <tr key={index}>
                <th scope="row">{bar.label}</th>
                <td>{bar.value.toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
