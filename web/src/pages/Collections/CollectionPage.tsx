import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';

import {
  deleteCollectionMutation,
  getCollectionOptions,
  updateCollectionMutation,
} from '../../api/gen/@tanstack/react-query.gen';
import type { Collection } from '../../api/gen/types.gen';
import { useAnnounce } from '../../components/Announcer';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatDate } from '../../components/format';
import { SharingPanel } from '../../components/sharing/SharingPanel';
import { Loading } from '../../components/States';
import { usePageTitle } from '../../components/usePageTitle';
import { CollectionDatasets } from './CollectionDatasets';
import { CollectionForm } from './CollectionForm';
import { isCollectionQuery } from './NewCollectionPage';
import './Collections.css';

/** A collection: what it is, its datasets, and (by capabilities) edit and delete. */
export function CollectionPage() {
  const collectionId = Number(useParams().collectionId);
  const collection = useQuery(getCollectionOptions({ path: { collection_id: collectionId } }));
  usePageTitle(collection.data?.name ?? 'Collection');
  if (collection.isPending) return <Loading />;
  if (collection.error) {
    return (
      <>
        <h1>Collection not found</h1>
        <ErrorNotice error={collection.error} />
      </>
    );
  }
  return <CollectionView collection={collection.data} />;
}

function CollectionView({ collection }: { collection: Collection }) {
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const announce = useAnnounce();
  const refresh = () => queryClient.invalidateQueries({ predicate: (query) => isCollectionQuery(query.queryKey) });
  const update = useMutation({
    ...updateCollectionMutation(),
    onSuccess: () => {
      setEditing(false);
      announce('Saved');
      void refresh();
    },
  });
  const remove = useMutation({
    ...deleteCollectionMutation(),
    onSuccess: () => {
      announce(`Deleted the collection ${collection.name}`);
      void refresh();
      navigate('/collections');
    },
  });
  const { write, manage } = collection.capabilities;

  return (
    <>
      <h1>{collection.name}</h1>
      <p className="muted">
        {collection.visibility} · updated {formatDate(collection.updated_at)}
      </p>
      {editing ? (
        <section aria-labelledby="edit-collection" className="card">
          <h2 id="edit-collection">Edit the collection</h2>
          <CollectionForm
            initial={{ name: collection.name, description: collection.description }}
            withVisibility={false}
            submitLabel="Save"
            busy={update.isPending}
            error={update.error}
            onSubmit={(values) =>
              update.mutate({ path: { collection_id: collection.id }, body: { name: values.name, description: values.description } })
            }
            onCancel={() => {
              update.reset();
              setEditing(false);
            }}
          />
        </section>
      ) : (
        <>
          {collection.description ? <p>{collection.description}</p> : <p className="muted">No description.</p>}
          {(write || manage) && (
            <div className="actions">
              {write && (
                <button type="button" className="button" onClick={() => setEditing(true)}>
                  Edit
                </button>
              )}
              {manage && (
                <button type="button" className="button button--danger" onClick={() => setDeleting(true)}>
                  Delete collection
                </button>
              )}
            </div>
          )}
        </>
      )}
      <CollectionDatasets collection={collection} onChanged={refresh} />
      {manage && (
        <section aria-labelledby="collection-sharing">
          <h2 id="collection-sharing">Sharing</h2>
          <SharingPanel kind="collection" id={collection.id} visibility={collection.visibility} />
        </section>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the collection “${collection.name}”?`}
          confirmLabel="Delete collection"
          busy={remove.isPending}
          onConfirm={() => remove.mutate({ path: { collection_id: collection.id } })}
          onCancel={() => {
            remove.reset();
            setDeleting(false);
          }}
        >
          <p>Its {collection.dataset_ids.length} datasets stay: only the collection goes.</p>
          <ErrorNotice error={remove.error} />
        </ConfirmDialog>
      )}
    </>
  );
}
