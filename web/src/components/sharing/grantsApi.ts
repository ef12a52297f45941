/** The grants and visibility calls of the three kinds of shareable things, behind one
 *  shape, so that one panel shares datasets, collections and pipelines. */
import type { QueryClient } from '@tanstack/react-query';

import {
  addCollectionGrant,
  addDatasetGrant,
  addPipelineGrant,
  deleteCollectionGrant,
  deleteDatasetGrant,
  deletePipelineGrant,
  listCollectionGrants,
  listDatasetGrants,
  listPipelineGrants,
  updateCollection,
  updateDataset,
  updatePipeline,
} from '../../api/gen/sdk.gen';
import type { Grant, GrantCreate, GrantPage, Visibility } from '../../api/gen/types.gen';

export type ShareableKind = 'dataset' | 'collection' | 'pipeline';

export interface GrantsApi {
  list: () => Promise<GrantPage>;
  add: (body: GrantCreate) => Promise<Grant>;
  remove: (grantId: number) => Promise<void>;
  setVisibility: (visibility: Visibility) => Promise<void>;
}

const LIMIT = 100;

export function grantsApi(kind: ShareableKind, id: number): GrantsApi {
  const query = { limit: LIMIT };
  if (kind === 'dataset') {
    const path = { dataset_id: id };
    return {
      list: async () => (await listDatasetGrants({ path, query, throwOnError: true })).data,
      add: async (body) => (await addDatasetGrant({ path, body, throwOnError: true })).data,
      remove: async (grantId) => void (await deleteDatasetGrant({ path: { ...path, grant_id: grantId }, throwOnError: true })),
      setVisibility: async (visibility) => void (await updateDataset({ path, body: { visibility }, throwOnError: true })),
    };
  }
  if (kind === 'collection') {
    const path = { collection_id: id };
    return {
      list: async () => (await listCollectionGrants({ path, query, throwOnError: true })).data,
      add: async (body) => (await addCollectionGrant({ path, body, throwOnError: true })).data,
      remove: async (grantId) => void (await deleteCollectionGrant({ path: { ...path, grant_id: grantId }, throwOnError: true })),
      setVisibility: async (visibility) => void (await updateCollection({ path, body: { visibility }, throwOnError: true })),
    };
  }
  const path = { pipeline_id: id };
  return {
    list: async () => (await listPipelineGrants({ path, query, throwOnError: true })).data,
    add: async (body) => (await addPipelineGrant({ path, body, throwOnError: true })).data,
    remove: async (grantId) => void (await deletePipelineGrant({ path: { ...path, grant_id: grantId }, throwOnError: true })),
    setVisibility: async (visibility) => void (await updatePipeline({ path, body: { visibility }, throwOnError: true })),
  };
}

const GET_IDS: Record<ShareableKind, string> = {
  dataset: 'getDataset',
  collection: 'getCollection',
  pipeline: 'getPipeline',
};

/** The query key of a thing's grants; its `_id` is the generated one, so live updates
 *  that touch grants refresh it too. */
export function grantsKey(kind: ShareableKind, id: number) {
  const name = `list${kind[0].toUpperCase()}${kind.slice(1)}Grants`;
  return [{ _id: name, path: { [`${kind}_id`]: id }, query: { limit: LIMIT } }] as const;
}

/** After the visibility changed: the thing itself, and the lists it appears in. */
export function refreshShareable(queryClient: QueryClient, kind: ShareableKind): Promise<void> {
  const plural = `list${kind[0].toUpperCase()}${kind.slice(1)}s`;
  return queryClient.invalidateQueries({
    predicate: (query) => {
      const id = String((query.queryKey[0] as { _id?: string } | undefined)?._id);
      return id === GET_IDS[kind] || id === plural;
    },
  });
}
