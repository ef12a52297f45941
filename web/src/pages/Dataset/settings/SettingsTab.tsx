import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Navigate, useNavigate } from 'react-router';

import { deleteDatasetMutation, updateDatasetMutation } from '../../../api/gen/@tanstack/react-query.gen';
import type { Dataset } from '../../../api/gen/types.gen';
import { nameConflictAtField, parseTags } from '../../../components/catalog/nameConflict';
import { useAnnounce } from '../../../components/Announcer';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Field, OtherProblems } from '../../../components/Field';
import { usePageTitle } from '../../../components/usePageTitle';
import { useDataset } from '../context';

/** Every query about datasets (the list, this one, collections showing it). */
const aboutDatasets = (query: { queryKey: readonly unknown[] }) =>
  /Dataset|Collection/.test((query.queryKey[0] as { _id?: string } | undefined)?._id ?? '');

/** The dataset's Settings tab (writers): rename, describe, tag; managers also delete. */
export function SettingsTab() {
  const dataset = useDataset();
  usePageTitle(`${dataset.name}: settings`);
  const { write, manage } = dataset.capabilities;
  if (!write && !manage) return <Navigate to={`/datasets/${dataset.id}`} replace />;
  return (
    <>
      {write && <EditForm key={dataset.id} dataset={dataset} />}
      {manage && <DeleteSection dataset={dataset} />}
    </>
  );
}

function EditForm({ dataset }: { dataset: Dataset }) {
  const [name, setName] = useState(dataset.name);
  const [description, setDescription] = useState(dataset.description);
  const [tags, setTags] = useState(dataset.tags.join(', '));
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const save = useMutation({
    ...updateDatasetMutation(),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ predicate: aboutDatasets });
      announce('The dataset was saved.');
    },
  });
  const error = nameConflictAtField(save.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ path: { dataset_id: dataset.id }, body: { name: name.trim(), description, tags: parseTags(tags) } });
  }

  return (
    <section className="dataset-section" aria-labelledby="settings-edit">
      <h2 id="settings-edit">Details</h2>
      <form onSubmit={submit} noValidate>
        <Field label="Name" name="name" error={error}>
          <input value={name} onChange={(event) => setName(event.target.value)} required autoComplete="off" />
        </Field>
        <Field label="Description" name="description" error={error} hint="Markdown: headings, lists, links, tables.">
          <textarea rows={8} value={description} onChange={(event) => setDescription(event.target.value)} />
        </Field>
        <Field label="Tags" name="tags" error={error} hint="Separated by commas, e.g. climate, daily.">
          <input value={tags} onChange={(event) => setTags(event.target.value)} autoComplete="off" />
        </Field>
        <OtherProblems error={error} shown={['name', 'description', 'tags']} />
        <div className="actions">
          <button type="submit" className="button button--primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Save'}
          </button>
          {save.isSuccess && !save.isPending && (
            <span role="status" className="muted">
              Saved.
            </span>
          )}
        </div>
      </form>
    </section>
  );
}

function DeleteSection({ dataset }: { dataset: Dataset }) {
  const [asking, setAsking] = useState(false);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const announce = useAnnounce();
  const remove = useMutation({
    ...deleteDatasetMutation(),
    onSuccess: () => {
      setAsking(false);
      queryClient.removeQueries({ predicate: (query) => JSON.stringify(query.queryKey).includes(`"dataset_id":${dataset.id}`) });
      void queryClient.invalidateQueries({ predicate: aboutDatasets });
      announce(`The dataset ${dataset.name} was deleted.`);
      navigate('/');
    },
  });
  return (
    <section className="dataset-section" aria-labelledby="settings-delete">
      <h2 id="settings-delete">Delete the dataset</h2>
      <p>Deleting removes the dataset, all its versions and its files. It cannot be undone.</p>
      <button type="button" className="button button--danger" onClick={() => setAsking(true)}>
        Delete this dataset
      </button>
      <ErrorNotice error={!asking ? remove.error : null} title="The dataset was not deleted" />
      {asking && (
        <ConfirmDialog
          title={`Delete ${dataset.name}?`}
          confirmLabel="Delete the dataset"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ path: { dataset_id: dataset.id } })}
          onCancel={() => {
            setAsking(false);
            remove.reset();
          }}
        >
          <p>Its {dataset.current_version ? 'versions and files' : 'description and tags'} will be gone for good.</p>
          <ErrorNotice error={remove.error} title="The dataset was not deleted" />
        </ConfirmDialog>
      )}
    </section>
  );
}
