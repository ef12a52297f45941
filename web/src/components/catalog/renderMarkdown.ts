/** Markdown to safe HTML: marked renders, DOMPurify removes scripts, event handlers and
 *  javascript: links. Loaded on first use only (it is heavy), by Markdown.tsx. */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

/** The page has its own h1 and the description sits under an h2: a "# Title" in the
 *  text becomes an h3 (and so on down to h6). */
const HEADING_SHIFT = 2;

const marked = new Marked({
  gfm: true,
  walkTokens(token) {
    if (token.type === 'heading') token.depth = Math.min(6, token.depth + HEADING_SHIFT);
  },
});

export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'button'] });
}
