/** The SQL editor (a pipeline's sql step, the SQL console): CodeMirror 6, whose code loads
 *  only when an editor is shown. */
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
