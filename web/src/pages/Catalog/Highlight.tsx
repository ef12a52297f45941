import { Fragment } from 'react';
import type { ReactNode } from 'react';

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'", '&#39;': "'" };

/** The service's escaped text back to plain text (each entity once: "&amp;lt;" is "&lt;"). */
export function unescapeHtml(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (entity) => ENTITIES[entity]);
}

/** A highlight ("HTML-escaped text with matches in <mark>…</mark>") as React text nodes:
 *  never parsed as HTML, so whatever the data holds shows as the letters it is. */
export function highlightParts(highlight: string): { text: string; marked: boolean }[] {
  return highlight
    .split(/(<mark>|<\/mark>)/)
    .reduce<{ parts: { text: string; marked: boolean }[]; inMark: boolean }>(
      (state, piece) => {
        if (piece === '<mark>') return { ...state, inMark: true };
        if (piece === '</mark>') return { ...state, inMark: false };
        if (piece) state.parts.push({ text: unescapeHtml(piece), marked: state.inMark });
        return state;
      },
      { parts: [], inMark: false },
    ).parts;
}

/** Markdown's commonest marks left out of an excerpt (bold, code, headings, link targets). */
export function withoutMarkdown(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|__|`+/g, '')
    .replace(/(^|\s)#{1,6}\s/g, '$1');
}

/** A highlight shown with its matches marked, or the plain text when there is none;
 *  `markdown`: the text is Markdown, shown without its marks. */
export function Highlight({ highlight, text, markdown = false }: { highlight?: string | null; text?: string; markdown?: boolean }): ReactNode {
  if (!highlight) return text ?? null;
  const parts = highlightParts(highlight).map((part) => (markdown ? { ...part, text: withoutMarkdown(part.text) } : part));
  return parts.map((part, index) => (part.marked ? <mark key={index}>{part.text}</mark> : <Fragment key={index}>{part.text}</Fragment>));
}
