import { useMutation, useQueries, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';

import {
  addCollectionDatasetMutation,
  getDatasetOptions,
  listDatasetsOptions,
  removeCollectionDatasetMutation,
} from '../../api/gen/@tanstack/react-query.gen';
import type { Collection, Dataset } from '../../api/gen/types.gen';
import { useAnnounce } from '../../components/Announcer';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { EmptyState, Loading } from '../../components/States';

const SHOWN = 100;

/** The collection's datasets (those the caller may read), added and removed by writers. */
export function CollectionDatasets({ collection, onChanged }: { collection: Collection; onChanged: () => void }) {
  const [removing, setRemoving] = useState<Dataset | null>(null);
  const announce = useAnnounce();
  const ids = collection.dataset_ids.slice(0, SHOWN);
  const datasets = useQueries({
    queries: ids.map((id) => ({ ...getDatasetOptions({ path: { dataset_id: id } }), retry: false })),
  });
  const remove = useMutation({
    ...removeCollectionDatasetMutation(),
    onSuccess: () => {
      announce(`Removed ${removing?.name ?? 'the dataset'} from the collection`);
      setRemoving(null);
      onChanged();
    },
  });
  const write = collection.capabilities.write;
  const shown = datasets.filter((query) => query.data).map((query) => query.data as Dataset);
  const waiting = datasets.some((query) => query.isPending);

  return (
    <section aria-labelledby="collection-datasets">
      <h2 id="collection-datasets">Datasets</h2>
      {write && <AddDataset collection={collection} onAdded={onChanged} />}
      {waiting && <Loading />}
      {!waiting && shown.length === 0 && (
        <EmptyState>{write ? 'No datasets yet: find one above to add it.' : 'No datasets you may see.'}</EmptyState>
      )}
      <ul className="card-list" aria-label="Datasets in this collection">
        {shown.map((dataset) => (
          <li key={dataset.id} className="card">
            <h3 className="collections__name">
              <Link to={`/datasets/${dataset.id}`}>{dataset.name}</Link>
            </h3>
            {dataset.description && <p className="collections__description">{dataset.description}</p>}
            {write && (
              <button type="button" className="button" onClick={() => setRemoving(dataset)}>
                Remove<span className="visually-hidden"> {dataset.name}</span> from the collection
              </button>
            )}
          </li>
        ))}
      </ul>
      {collection.dataset_ids.length > SHOWN && (
        <p className="muted">The first {SHOWN} of {collection.dataset_ids.length} datasets are shown.</p>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove “${removing.name}” from the collection?`}
          confirmLabel="Remove"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ path: { collection_id: collection.id, dataset_id: removing.id } })}
          onCancel={() => {
            remove.reset();
            setRemoving(null);
          }}
        >
          <p>The dataset itself stays.</p>
          <ErrorNotice error={remove.error} />
        </ConfirmDialog>
      )}
    </section>
  );
}

function AddDataset({ collection, onAdded }: { collection: Collection; onAdded: () => void }) {
  const [q, setQ] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const announce = useAnnounce();
  const found = useQuery({
    ...listDatasetsOptions({ query: { q: asked ?? '', limit: 10, sort: 'name' } }),
    enabled: asked !== null,
  });
  const add = useMutation({
    ...addCollectionDatasetMutation(),
    onSuccess: () => {
      announce('Added to the collection');
      onAdded();
    },
  });

  function search(event: FormEvent) {
    event.preventDefault();
    setAsked(q.trim());
  }

  const candidates = (found.data?.items ?? []).filter((dataset) => !collection.dataset_ids.includes(dataset.id));
  return (
    <div className="card">
      <form role="search" className="collections__search" onSubmit={search}>
        <label htmlFor="add-dataset-q">Find a dataset to add</label>
        <input id="add-dataset-q" type="search" value={q} onChange={(event) => setQ(event.target.value)} />
        <button type="submit" className="button">
          Find
        </button>
      </form>
      <ErrorNotice error={found.error ?? add.error} />
      {asked !== null && found.data && (
        <ul className="collections__picker-results" aria-label="Datasets found">
          {candidates.length === 0 && <li>No dataset to add matches “{asked}”.</li>}
          {candidates.map((dataset) => (
            <li key={dataset.id}>
              <span>{dataset.name}</span>
              <button
                type="button"
                className="button"
                disabled={add.isPending}
                onClick={() => add.mutate({ path: { collection_id: collection.id, dataset_id: dataset.id } })}
              >
                Add<span className="visually-hidden"> {dataset.name}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
