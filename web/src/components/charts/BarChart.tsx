import { useId } from 'react';

import './charts.css';

export interface Bar {
  label: string;
  value: number;
}

interface Props {
  /** What the chart shows, in words: the image's name and the table's caption. */
  title: string;
  /** A short visible heading over the chart ("Distribution"); the title when not given. */
  caption?: string;
  bars: Bar[];
  /** The table's column headings: what a bar is, and what its length counts. */
  headings: [string, string];
  /** Bars side by side (a histogram) or one under the other (top values). */
  orientation?: 'vertical' | 'horizontal';
  /** Under side-by-side bars: where the first starts and the last ends. */
  axis?: [string, string];
}

const WIDTH = 240;
const HEIGHT = 96;
const ROW = 16;
const LABEL_WIDTH = 96;
const LABEL_CHARACTERS = 16;

function shortened(text: string): string {
  return text.length > LABEL_CHARACTERS ? `${text.slice(0, LABEL_CHARACTERS - 1)}…` : text;
}

/** A bar chart as an SVG image named by `title` (each bar titled with its numbers), and
 *  the same numbers as a table behind "As a table", for whoever does not see the chart.
 *  Bars one under the other carry their labels and numbers; side by side, the axis's ends. */
export function BarChart({ title, caption, bars, headings, orientation = 'vertical', axis }: Props) {
  const id = useId();
  const largest = Math.max(1, ...bars.map((bar) => bar.value));
  const vertical = orientation === 'vertical';
  return (
    <figure className="bar-chart">
      <figcaption className="bar-chart__caption">{caption ?? title}</figcaption>
      <svg
        role="img"
        aria-labelledby={`${id}-title`}
        viewBox={`0 0 ${WIDTH} ${vertical ? HEIGHT : bars.length * ROW}`}
        className={`bar-chart__image bar-chart__image--${orientation}`}
        preserveAspectRatio={vertical ? 'none' : 'xMinYMin meet'}
      >
        <title id={`${id}-title`}>{title}</title>
        {bars.map((bar, index) => {
          const share = bar.value / largest;
          const said = `${bar.label}: ${bar.value.toLocaleString()}`;
          if (vertical) {
            const width = WIDTH / bars.length;
            const height = Math.max(share * HEIGHT, bar.value > 0 ? 1 : 0);
            return (
              <rect key={index} x={index * width + 1} y={HEIGHT - height} width={Math.max(width - 2, 1)} height={height}>
                <title>{said}</title>
              </rect>
            );
          }
          // The count sits inside a long bar, after a short one.
          const length = Math.max(share * (WIDTH - LABEL_WIDTH), 1);
          const inside = share > 0.6;
          return (
            <g key={index}>
              <title>{said}</title>
              <text className="bar-chart__label" x={LABEL_WIDTH - 4} y={index * ROW + 12} textAnchor="end">
                {shortened(bar.label)}
              </text>
              <rect x={LABEL_WIDTH} y={index * ROW + 2} width={length} height={12} />
              <text
                className={`bar-chart__count${inside ? ' bar-chart__count--inside' : ''}`}
                x={LABEL_WIDTH + length + (inside ? -3 : 3)}
                y={index * ROW + 12}
                textAnchor={inside ? 'end' : 'start'}
              >
                {bar.value.toLocaleString()}
              </text>
            </g>
          );
        })}
      </svg>
      {vertical && axis && (
        // The image's name says these ends already: shown, not said twice.
        <div className="bar-chart__axis" aria-hidden="true">
          <span>{axis[0]}</span>
          <span>{axis[1]}</span>
        </div>
      )}
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
