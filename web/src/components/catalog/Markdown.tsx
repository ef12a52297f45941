import { useEffect, useState } from 'react';

import './catalog.css';

/** A description written in Markdown, rendered and sanitised. The renderer (marked and
 *  DOMPurify) loads the first time one is shown; until then the text shows as it is. */
export function Markdown({ text }: { text: string }) {
  const [html, setHtml] = useState<{ source: string; html: string } | null>(null);
  useEffect(() => {
    let current = true;
    void import('./renderMarkdown').then(({ renderMarkdown }) => {
      if (current) setHtml({ source: text, html: renderMarkdown(text) });
    });
    return () => {
      current = false;
    };
  }, [text]);
  if (!html || html.source !== text) {
    return (
      <div className="catalog-markdown" aria-busy="true">
        <p>{text}</p>
      </div>
    );
  }
  // Sanitised by DOMPurify in renderMarkdown.
  return <div className="catalog-markdown" dangerouslySetInnerHTML={{ __html: html.html }} />;
}
