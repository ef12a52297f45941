import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';

import { BarChart } from './BarChart';

const TOP = [
  { label: 'Oslo', value: 800 },
  { label: 'A name far longer than a label has room for', value: 40 },
];

describe('a bar chart', () => {
  it('is an image named by what it shows, with the same numbers as a table', async () => {
    const { container } = render(
      <BarChart title="Most frequent values of city" caption="Most frequent values" headings={['Value', 'Rows']} orientation="horizontal" bars={TOP} />,
    );
    const image = screen.getByRole('img', { name: 'Most frequent values of city' });
    // Bars one under the other carry their labels (shortened) and counts.
    expect(image).toHaveTextContent('Oslo');
    expect(image).toHaveTextContent('A name far long…');
    expect(image).toHaveTextContent('800');
    expect(screen.getByText('Most frequent values')).toBeVisible();
    await userEvent.setup().click(screen.getByText('As a table'));
    const table = screen.getByRole('table', { name: 'Most frequent values of city' });
    expect(within(table).getByRole('row', { name: 'A name far longer than a label has room for 40' })).toBeInTheDocument();
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    const results = await axe.run(container);
    expect(results.violations).toEqual([]);
  });

  it('shows where side-by-side bars start and end without saying it twice', () => {
    render(
      <BarChart
        title="Distribution of temp: 2 ranges from -12.5 to 31"
        caption="Distribution"
        axis={['-12.5', '31']}
        headings={['Range', 'Rows']}
        bars={[
          { label: '-12.5 to 9.25', value: 500 },
          { label: '9.25 to 31', value: 220 },
        ]}
      />,
    );
    const image = screen.getByRole('img', { name: 'Distribution of temp: 2 ranges from -12.5 to 31' });
    expect(image.querySelectorAll('rect')).toHaveLength(2);
    const start = screen.getByText('-12.5', { selector: 'span' });
    expect(start.parentElement).toHaveAttribute('aria-hidden', 'true');
  });
});
