/** Markdown to safe HTML: marked renders, DOMPurify removes scripts, event handlers and
 *  javascript: links. Loaded on first use only (it is heavy), by Markdown.tsx. */
import DOMPurify from 'dompurify';
import { marked } from 'marked';

export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false, gfm: true });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ['style', 'form', 'input', 'button'] });
}
