/**
 * CodeMirror 6 with SQL highlighting (lazily loaded by SqlEditor). Its generated styles go
 * into a constructable stylesheet (./adoptedStyles): the service's Content-Security-Policy
 * blocks the <style> element CodeMirror would otherwise add.
 */
import type { Completion, CompletionContext } from '@codemirror/autocomplete';
import { indentWithTab } from '@codemirror/commands';
import { syntaxHighlighting, syntaxTree } from '@codemirror/language';
import { sql, StandardSQL } from '@codemirror/lang-sql';
import type { SQLNamespace } from '@codemirror/lang-sql';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useLayoutEffect, useRef } from 'react';

import { adoptCodeMirrorStyles } from './adoptedStyles';
import { accessibleHighlightStyle } from './highlight';
import './sqlEditor.css';

adoptCodeMirrorStyles();

export interface CodeEditorProps {
  value: string;
  label: string;
  onChange: (value: string) => void;
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
  /** Tables (and their columns) that completion offers; `table.` then offers its columns. */
  schema?: SQLNamespace;
  /** Completions for a bare word, given the whole text (e.g. the columns of the tables it names). */
  words?: (text: string) => Completion[];
  /** Ctrl+Enter (Cmd+Enter on a Mac) calls it. */
  onRun?: () => void;
  /** The editor once made (null once gone), e.g. to insert text at the cursor. */
  onView?: (view: EditorView | null) => void;
  className?: string;
}

function contentAttributes(props: CodeEditorProps) {
  const attributes: Record<string, string> = { 'aria-label': props.label };
  if (props.id) attributes.id = props.id;
  if (props['aria-invalid']) attributes['aria-invalid'] = 'true';
  if (props['aria-describedby']) attributes['aria-describedby'] = props['aria-describedby'];
  return EditorView.contentAttributes.of(attributes);
}

const NOT_A_WORD = new Set(['String', 'QuotedIdentifier', 'LineComment', 'BlockComment']);

export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const attributes = useRef(new Compartment());
  const language = useRef(new Compartment());
  const latest = useRef(props);
  useLayoutEffect(() => {
    latest.current = props;
  });
  const first = useRef(props);

  useEffect(() => {
    const start = first.current;
    const words = (context: CompletionContext) => {
      const make = latest.current.words;
      const word = context.matchBefore(/\w*/);
      if (!make || !word || (word.from === word.to && !context.explicit)) return null;
      if (context.state.sliceDoc(word.from - 1, word.from) === '.') return null;
      if (NOT_A_WORD.has(syntaxTree(context.state).resolveInner(context.pos, -1).name)) return null;
      return { from: word.from, options: make(context.state.doc.toString()), validFor: /^\w*$/ };
    };
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: start.value,
        extensions: [
          Prec.highest(
            keymap.of([{ key: 'Mod-Enter', run: () => (latest.current.onRun ? (latest.current.onRun(), true) : false) }]),
          ),
          basicSetup,
          syntaxHighlighting(accessibleHighlightStyle),
          // Tab indents; Escape then Tab leaves the editor (CodeMirror's keyboard escape).
          keymap.of([indentWithTab]),
          language.current.of(sql({ schema: start.schema })),
          StandardSQL.language.data.of({ autocomplete: words }),
          EditorView.lineWrapping,
          attributes.current.of(contentAttributes(start)),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latest.current.onChange(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    latest.current.onView?.(editor);
    return () => {
      latest.current.onView?.(null);
      editor.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: attributes.current.reconfigure(contentAttributes(props)) });
  }, [props.id, props.label, props['aria-invalid'], props['aria-describedby']]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (props.schema) view.current?.dispatch({ effects: language.current.reconfigure(sql({ schema: props.schema })) });
  }, [props.schema]);

  // A value set from outside (not typed here) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== props.value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: props.value } });
    }
  }, [props.value]);

  return <div ref={host} className={props.className ? `sql-editor ${props.className}` : 'sql-editor'} />;
}
