/**
 * CodeMirror 6 with SQL highlighting (lazily loaded by SqlEditor). Its generated styles go
 * into a constructable stylesheet (./adoptedStyles): the service's Content-Security-Policy
 * blocks the <style> element CodeMirror would otherwise add.
 */
import { sql } from '@codemirror/lang-sql';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { indentWithTab } from '@codemirror/commands';
import { useEffect, useLayoutEffect, useRef } from 'react';

import { adoptCodeMirrorStyles } from './adoptedStyles';

adoptCodeMirrorStyles();

export interface CodeEditorProps {
  value: string;
  label: string;
  onChange: (value: string) => void;
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

function contentAttributes(props: CodeEditorProps) {
  const attributes: Record<string, string> = { 'aria-label': props.label };
  if (props.id) attributes.id = props.id;
  if (props['aria-invalid']) attributes['aria-invalid'] = 'true';
  if (props['aria-describedby']) attributes['aria-describedby'] = props['aria-describedby'];
  return EditorView.contentAttributes.of(attributes);
}

export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const attributes = useRef(new Compartment());
  const onChange = useRef(props.onChange);
  useLayoutEffect(() => {
    onChange.current = props.onChange;
  });
  const first = useRef(props);

  useEffect(() => {
    const start = first.current;
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: start.value,
        extensions: [
          basicSetup,
          // Tab indents; Escape then Tab leaves the editor (CodeMirror's keyboard escape).
          keymap.of([indentWithTab]),
          sql(),
          EditorView.lineWrapping,
          attributes.current.of(contentAttributes(start)),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) onChange.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: attributes.current.reconfigure(contentAttributes(props)) });
  }, [props.id, props.label, props['aria-invalid'], props['aria-describedby']]); // eslint-disable-line react-hooks/exhaustive-deps

  // A value set from outside (not typed here) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== props.value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: props.value } });
    }
  }, [props.value]);

  return <div ref={host} className="pipelines-editor" />;
}
