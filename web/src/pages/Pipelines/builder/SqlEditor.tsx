/** The sql step's editor: CodeMirror 6, whose code loads only when a sql step is shown. */
import { lazy, Suspense } from 'react';

import type { CodeEditorProps } from './CodeEditor';

const CodeEditor = lazy(async () => ({ default: (await import('./CodeEditor')).CodeEditor }));

/** Field gives `id`, `aria-invalid` and `aria-describedby`: they go to the editable text. */
export function SqlEditor(props: CodeEditorProps) {
  return (
    <Suspense
      fallback={
        <p className="loading" role="status">
          Loading the SQL editor…
        </p>
      }
    >
      <CodeEditor {...props} />
    </Suspense>
  );
}
