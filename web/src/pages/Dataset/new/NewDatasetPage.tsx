import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';

import type { Visibility } from '../../../api/gen/types.gen';
import { useSession } from '../../../app/session';
import { nameConflictAtField, parseTags } from '../../../components/catalog/nameConflict';
import { useAnnounce } from '../../../components/Announcer';
import { Field, OtherProblems } from '../../../components/Field';
import { formatBytes } from '../../../components/format';
import { usePageTitle } from '../../../components/usePageTitle';
import '../../../components/catalog/dataset.css';
import { LeaveGuard, UploadChoice, UploadProgress } from './UploadState';
import { useCreateWithFile } from './useCreateWithFile';

/** /app/datasets/new: create a dataset and upload its first file in one go. */
export function NewDatasetPage() {
  usePageTitle('New dataset');
  const { mayCreate } = useSession();
  const navigate = useNavigate();
  const announce = useAnnounce();
  const task = useCreateWithFile();
  const { phase } = task;
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [tags, setTags] = useState('');
  const [visibility, setVisibility] = useState<Visibility>('private');
  const [file, setFile] = useState<File | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (phase.step !== 'done' && phase.step !== 'kept') return;
    announce(`The dataset ${phase.dataset.name} was ${phase.step === 'done' ? 'created' : 'kept without a file'}.`);
    navigate(`/datasets/${phase.dataset.id}`);
  }, [phase, announce, navigate]);

  const error = phase.step === 'editing' ? nameConflictAtField(phase.error) : undefined;
  const locked = phase.step !== 'editing';

  function submit(event: FormEvent) {
    event.preventDefault();
    void task.create({ name: name.trim(), description, tags: parseTags(tags), visibility }, file);
  }

  async function deleteCreated() {
    if (phase.step !== 'upload-failed') return;
    const name = phase.dataset.name;
    if (await task.remove(phase.dataset)) announce(`The dataset ${name} was deleted; nothing was kept.`);
  }

  return (
    <div className="page--form">
      <h1>New dataset</h1>
      {!mayCreate && (
        <p className="notice notice--warn">Your role may not create datasets: the service will refuse. Ask an admin for the editor role.</p>
      )}
      <form onSubmit={submit} noValidate aria-describedby="new-dataset-intro">
        <p id="new-dataset-intro">A dataset is a named, described file with its versions. The file can come later.</p>
        <fieldset disabled={locked}>
          <legend>About the dataset</legend>
          <Field label="Name" name="name" error={error} hint="Unique across datahub.">
            <input value={name} onChange={(event) => setName(event.target.value)} required autoComplete="off" />
          </Field>
          <Field label="Description" name="description" error={error} hint="Markdown: headings, lists, links, tables.">
            <textarea rows={6} value={description} onChange={(event) => setDescription(event.target.value)} />
          </Field>
          <Field label="Tags" name="tags" error={error} hint="Separated by commas, e.g. climate, daily.">
            <input value={tags} onChange={(event) => setTags(event.target.value)} autoComplete="off" />
          </Field>
          <Field label="Visibility" name="visibility" error={error}>
            <select value={visibility} onChange={(event) => setVisibility(event.target.value as Visibility)}>
              <option value="private">Private: only you and the people you share it with</option>
              <option value="internal">Internal: every signed-in person may read it</option>
            </select>
          </Field>
        </fieldset>
        <fieldset disabled={phase.step === 'uploading' || phase.step === 'creating' || phase.step === 'deleting'}>
          <legend>File (optional)</legend>
          <Field label="File" hint="CSV, Parquet or JSON lines; any other file is kept but not previewed.">
            <input ref={fileInput} type="file" onChange={(event) => setFile(event.target.files?.[0] ?? null)} />
          </Field>
          {file && (
            <p className="muted">
              {file.name}, {formatBytes(file.size)}
            </p>
          )}
        </fieldset>
        <OtherProblems error={error} shown={['name', 'description', 'tags', 'visibility']} />
        {phase.step === 'uploading' && <UploadProgress fraction={phase.fraction} onCancel={task.cancel} />}
        {(phase.step === 'upload-failed' || phase.step === 'deleting') && (
          <UploadChoice
            dataset={phase.dataset}
            error={phase.step === 'upload-failed' ? phase.error : null}
            cancelled={phase.step === 'upload-failed' && phase.cancelled}
            busy={phase.step === 'deleting'}
            canRetry={file !== null}
            onRetry={() => file && void task.retry(phase.dataset, file)}
            onKeep={() => task.keep(phase.dataset)}
            onDelete={() => void deleteCreated()}
          />
        )}
        {!locked && (
          <div className="actions">
            <button type="submit" className="button button--primary">
              {file ? 'Create and upload' : 'Create'}
            </button>
            <Link to="/" className="button">
              Cancel
            </Link>
          </div>
        )}
        {phase.step === 'creating' && (
          <p role="status" className="muted">
            Creating the dataset…
          </p>
        )}
      </form>
      <LeaveGuard phase={phase} />
    </div>
  );
}
