import { render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { Markdown } from './Markdown';

describe('Markdown descriptions', () => {
  it('renders Markdown and strips scripts, event handlers and javascript: links', async () => {
    const text = [
      '# Title',
      '',
      'Some **bold** text and [a link](https://example.com).',
      '',
      '<script>window.hacked = 1</script>',
      '<img src="x.png" alt="picture" onerror="window.hacked = 2">',
      '[click](javascript:window.hacked=3)',
      '<a href="#" onclick="window.hacked = 4">handler</a>',
      '<iframe src="https://example.com"></iframe>',
    ].join('\n\n');
    const { container } = render(<Markdown text={text} />);
    // Under the page's h1 and the section's h2: "# Title" is an h3.
    expect(await screen.findByRole('heading', { name: 'Title', level: 3 })).toBeInTheDocument();
    await waitFor(() => expect(container.querySelector('strong')).toHaveTextContent('bold'));
    expect(screen.getByRole('link', { name: 'a link' })).toHaveAttribute('href', 'https://example.com');
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('iframe')).toBeNull();
    expect(container.querySelector('[onerror], [onclick]')).toBeNull();
    expect(screen.getByRole('img', { name: 'picture' })).not.toHaveAttribute('onerror');
    const click = screen.getByText('click');
    expect(click.getAttribute('href') ?? '').not.toMatch(/javascript/i);
    expect((window as unknown as { hacked?: number }).hacked).toBeUndefined();
  });
});
