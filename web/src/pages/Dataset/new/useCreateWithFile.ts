import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';

import { createDataset, deleteDataset } from '../../../api/gen/sdk.gen';
import type { Dataset, DatasetCreate } from '../../../api/gen/types.gen';
import { uploadDatasetFile } from '../../../api/upload';

export type Phase =
  | { step: 'editing'; error?: unknown }
  | { step: 'creating' }
  | { step: 'uploading'; dataset: Dataset; fraction: number }
  | { step: 'upload-failed'; dataset: Dataset; error: unknown; cancelled: boolean }
  | { step: 'deleting'; dataset: Dataset }
  | { step: 'done'; dataset: Dataset }
  | { step: 'kept'; dataset: Dataset };

const isDatasetQuery = (query: { queryKey: readonly unknown[] }) =>
  /Dataset/.test((query.queryKey[0] as { _id?: string } | undefined)?._id ?? '');

/** Create a dataset and upload its file as one task. When the upload fails or is
 *  cancelled after the dataset exists, the phase says so and waits for the person's
 *  choice: upload again, keep it without a file, or delete it. */
export function useCreateWithFile() {
  const [phase, setPhase] = useState<Phase>({ step: 'editing' });
  const controller = useRef<AbortController | null>(null);
  const queryClient = useQueryClient();

  async function upload(dataset: Dataset, file: File) {
    controller.current = new AbortController();
    setPhase({ step: 'uploading', dataset, fraction: 0 });
    try {
      await uploadDatasetFile(dataset.id, file, 'First upload', {
        signal: controller.current.signal,
        onProgress: (fraction) => setPhase({ step: 'uploading', dataset, fraction }),
      });
      await queryClient.invalidateQueries({ predicate: isDatasetQuery });
      setPhase({ step: 'done', dataset });
    } catch (error) {
      const cancelled = error instanceof DOMException && error.name === 'AbortError';
      setPhase({ step: 'upload-failed', dataset, error, cancelled });
    }
  }

  async function create(body: DatasetCreate, file: File | null) {
    setPhase({ step: 'creating' });
    let dataset: Dataset;
    try {
      dataset = (await createDataset({ body, throwOnError: true })).data;
    } catch (error) {
      setPhase({ step: 'editing', error });
      return;
    }
    await queryClient.invalidateQueries({ predicate: isDatasetQuery });
    if (file) await upload(dataset, file);
    else setPhase({ step: 'done', dataset });
  }

  async function remove(dataset: Dataset) {
    setPhase({ step: 'deleting', dataset });
    try {
      await deleteDataset({ path: { dataset_id: dataset.id }, throwOnError: true });
      await queryClient.invalidateQueries({ predicate: isDatasetQuery });
      setPhase({ step: 'editing' });
      return true;
    } catch (error) {
      setPhase({ step: 'upload-failed', dataset, error, cancelled: false });
      return false;
    }
  }

  return {
    phase,
    create,
    retry: (dataset: Dataset, file: File) => upload(dataset, file),
    cancel: () => controller.current?.abort(),
    keep: (dataset: Dataset) => setPhase({ step: 'kept', dataset }),
    remove,
  };
}
