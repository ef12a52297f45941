/**
 * /app/sql: the SQL console. One read-only SELECT over the datasets the caller may read, by
 * name; its rows a page at a time, the versions it read, export, a link that runs it again at
 * those versions (?sql=…&pins=…, run when opened), and "make this a pipeline".
 */
import { useMutation } from '@tanstack/react-query';
import type { EditorView } from '@codemirror/view';
import { useDeferredValue, useEffect, useId, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { useSearchParams } from 'react-router';

import { query } from '../../api/gen/sdk.gen';
import type { Query, VersionPin } from '../../api/gen/types.gen';
import { useAnnounce } from '../../components/Announcer';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/States';
import { SqlEditor } from '../../components/sqlEditor/SqlEditor';
import { usePageTitle } from '../../components/usePageTitle';
import { Actions } from './Actions';
import { DatasetList } from './DatasetList';
import { columnWords } from './names';
import { Pins } from './Pins';
import { Result } from './Result';
import { parsePins } from './share';
import { useCatalog, useCompletion } from './tables';
import './Sql.css';

const LIMITS = [100, 1000, 10000];
const DRAFT = 'datahub.sql.draft';

interface Asked {
  sql: string;
  pins: VersionPin[];
  limit: number;
}

function readDraft(): string {
  try {
    return window.sessionStorage.getItem(DRAFT) ?? '';
  } catch {
    return '';
  }
}

function useRun() {
  const controller = useRef<AbortController | null>(null);
  const announce = useAnnounce();
  const run = useMutation({
    mutationFn: async ({ sql, pins, limit }: Asked) => {
      const abort = new AbortController();
      controller.current = abort;
      const body: Query = pins.length ? { sql, limit, pins } : { sql, limit };
      const { data } = await query({ body, signal: abort.signal, throwOnError: true });
      return data;
    },
    onSuccess: (data) => announce(`The query answered ${data.rows.length.toLocaleString()} row${data.rows.length === 1 ? '' : 's'}.`),
  });
  const start = (asked: Asked) => {
    controller.current?.abort();
    run.mutate(asked);
  };
  const cancel = () => {
    controller.current?.abort();
    run.reset();
    announce('The query was cancelled.');
  };
  return { run, start, cancel };
}

export function SqlPage() {
  usePageTitle('SQL console');
  const limitId = useId();
  const [params, setParams] = useSearchParams();
  const shared = params.get('sql');
  const pins = parsePins(params.get('pins'));
  const [text, setText] = useState(() => shared ?? readDraft());
  const [limit, setLimit] = useState(1000);
  const [opened, setOpened] = useState<Set<number>>(() => new Set());
  const view = useRef<EditorView | null>(null);
  const { run, start, cancel } = useRun();
  const catalog = useCatalog();
  const { tables, schema } = useCompletion(catalog.data?.datasets ?? [], useDeferredValue(text), opened);

  // A link (?sql=…&pins=…) fills the editor and runs at once, with its versions pinned.
  const ranShared = useRef<string | null>(null);
  useEffect(() => {
    if (shared === null || ranShared.current === shared) return;
    ranShared.current = shared;
    setText(shared);
    start({ sql: shared, pins: parsePins(params.get('pins')), limit });
  }, [shared]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    try {
      window.sessionStorage.setItem(DRAFT, text);
    } catch {
      // storage refused: the draft is not kept
    }
  }, [text]);

  const runNow = () => {
    if (text.trim()) start({ sql: text, pins, limit });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    runNow();
  };
  const unpin = () => {
    const next = new URLSearchParams(params);
    next.delete('pins');
    setParams(next, { replace: true });
    if (text.trim()) start({ sql: text, pins: [], limit });
  };
  const insert = (words: string) => {
    const editor = view.current;
    if (!editor) {
      setText((current) => `${current}${current && !/[\s(,.]$/.test(current) ? ' ' : ''}${words}`);
      return;
    }
    // A space before a name unless it follows a space, an opening bracket, a comma or a dot.
    const before = editor.state.sliceDoc(editor.state.selection.main.from - 1, editor.state.selection.main.from);
    editor.dispatch(editor.state.replaceSelection(before && !/[\s(,.]/.test(before) ? ` ${words}` : words));
    editor.focus();
  };
  const toggle = (datasetId: number) =>
    setOpened((current) => {
      const next = new Set(current);
      if (!next.delete(datasetId)) next.add(datasetId);
      return next;
    });

  const asked = run.variables;
  return (
    <div className="sql-page">
      <h1>SQL console</h1>
      <p className="sql-intro">
        One <code>SELECT</code> over the datasets you may read, each by name (quoted when it has spaces:{' '}
        <code>&quot;Sales 2025&quot;</code>) at its current version, or at a version: <code>&quot;Sales 2025@3&quot;</code>.
      </p>
      <div className="sql-layout">
        <DatasetList opened={opened} onToggle={toggle} onInsert={insert} />
        <div className="sql-work">
          <form className="sql-form" onSubmit={submit} aria-label="Query" noValidate>
            <div className="field">
              <label htmlFor="sql-text">SQL query</label>
              <p id="sql-text-hint" className="field__hint">
                Ctrl+Enter (⌘+Enter on a Mac) runs it. Ctrl+Space completes dataset and column names.
              </p>
              <SqlEditor
                id="sql-text"
                label="SQL query"
                aria-describedby="sql-text-hint"
                className="sql-editor--tall"
                value={text}
                onChange={setText}
                schema={schema}
                words={(doc) => columnWords(tables, doc)}
                onRun={runNow}
                onView={(editor) => {
                  view.current = editor;
                }}
              />
            </div>
            {pins.length > 0 && <Pins pins={pins} result={run.data} datasets={catalog.data?.datasets ?? []} onUnpin={unpin} />}
            <div className="actions sql-run">
              <div className="field sql-limit">
                <label htmlFor={limitId}>Rows to show</label>
                <select id={limitId} value={limit} onChange={(event) => setLimit(Number(event.target.value))}>
                  {LIMITS.map((value) => (
                    <option key={value} value={value}>
                      {value.toLocaleString()}
                    </option>
                  ))}
                </select>
              </div>
              <button type="submit" className="button button--primary" disabled={!text.trim()}>
                Run
              </button>
              {run.isPending && (
                <button type="button" className="button" onClick={cancel}>
                  Cancel
                </button>
              )}
            </div>
          </form>
          <section className="sql-result" aria-labelledby="sql-result-title" aria-busy={run.isPending}>
            <h2 id="sql-result-title">Result</h2>
            {run.isPending && <Loading label="Running the query…" />}
            {!run.isPending && run.error && <ErrorNotice error={run.error} title="The query failed" />}
            {!run.isPending && run.data && asked && (
              <>
                <Result result={run.data} />
                <Actions sql={asked.sql} result={run.data} />
              </>
            )}
            {run.isIdle && <p className="muted">Write a query and run it: its rows show here.</p>}
          </section>
        </div>
      </div>
    </div>
  );
}
