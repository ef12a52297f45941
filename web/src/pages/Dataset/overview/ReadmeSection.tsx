import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';

import { asApiError } from '../../../api/errors';
import { updateDatasetMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { Dataset } from '../../../api/gen/types.gen';
import { Markdown } from '../../../components/catalog/Markdown';
import { useAnnounce } from '../../../components/Announcer';
import { Field, OtherProblems } from '../../../components/Field';

/** The dataset's README (Markdown, rendered sanitised); writers edit it in place with a
 *  preview. A refused save keeps the editor and everything typed, the problem at the field. */
export function ReadmeSection({ dataset }: { dataset: Dataset }) {
  const [editing, setEditing] = useState(false);
  const readme = dataset.readme;
  return (
    <section className="dataset-section" aria-labelledby="overview-readme">
      <h2 id="overview-readme">README</h2>
      {editing ? (
        <ReadmeEditor dataset={dataset} initial={readme} onDone={() => setEditing(false)} />
      ) : (
        <>
          {readme.trim() ? <Markdown text={readme} /> : <p className="muted">No README yet.</p>}
          {dataset.capabilities.write && (
            <button type="button" className="button" onClick={() => setEditing(true)}>
              {readme.trim() ? 'Edit the README' : 'Write a README'}
            </button>
          )}
        </>
      )}
    </section>
  );
}

function ReadmeEditor({ dataset, initial, onDone }: { dataset: Dataset; initial: string; onDone: () => void }) {
  const [text, setText] = useState(initial);
  const [preview, setPreview] = useState(false);
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const save = useMutation({
    ...updateDatasetMutation(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ predicate: (query) => /Dataset/.test((query.queryKey[0] as { _id?: string } | undefined)?._id ?? '') });
      announce('The README was saved.');
      onDone();
    },
  });
  const problem = save.error ? asApiError(save.error).fieldMessage('readme') : undefined;

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ path: { dataset_id: dataset.id }, body: { readme: text } });
  }

  return (
    <form onSubmit={submit} noValidate className="readme-editor">
      <div className="actions">
        <button type="button" className="button" aria-pressed={preview} onClick={() => setPreview(!preview)}>
          Preview
        </button>
      </div>
      {preview ? (
        <div className="readme-preview" role="region" aria-label="README preview">
          {text.trim() ? <Markdown text={text} /> : <p className="muted">Nothing to preview yet.</p>}
          {problem && <p className="field__error">{problem}</p>}
        </div>
      ) : (
        <Field label="README" problem={problem} hint="Markdown: headings, lists, links, tables, code. Up to 100 KB.">
          <textarea rows={16} value={text} onChange={(event) => setText(event.target.value)} />
        </Field>
      )}
      <OtherProblems error={save.error} shown={['readme']} />
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="button" onClick={onDone} disabled={save.isPending}>
          Cancel
        </button>
      </div>
    </form>
  );
}
