import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';

import { createCollectionMutation } from '../../api/gen/@tanstack/react-query.gen';
import { useAnnounce } from '../../components/Announcer';
import { usePageTitle } from '../../components/usePageTitle';
import { CollectionForm } from './CollectionForm';

export function NewCollectionPage() {
  usePageTitle('New collection');
  const navigate = useNavigate();
  const announce = useAnnounce();
  const queryClient = useQueryClient();
  const create = useMutation({
    ...createCollectionMutation(),
    onSuccess: (collection) => {
      void queryClient.invalidateQueries({ predicate: (query) => isCollectionQuery(query.queryKey) });
      announce(`Created the collection ${collection.name}`);
      navigate(`/collections/${collection.id}`);
    },
  });
  return (
    <>
      <h1>New collection</h1>
      <CollectionForm
        initial={{ name: '', description: '', visibility: 'internal' }}
        withVisibility
        submitLabel="Create collection"
        busy={create.isPending}
        error={create.error}
        onSubmit={(values) => create.mutate({ body: values })}
        onCancel={() => navigate('/collections')}
      />
    </>
  );
}

export function isCollectionQuery(key: readonly unknown[]): boolean {
  return /Collection/.test((key[0] as { _id?: string } | undefined)?._id ?? '');
}
