import { useQuery } from '@tanstack/react-query';

import { getDatasetVersionProfileOptions } from '../../../api/gen/@tanstack/react-query.gen';
import type { Profile } from '../../../api/gen/types.gen';

const PENDING_POLL_MS = 2000;

/** A version's profile; asked again every 2 s while a worker has not read it (202). */
export function useProfile(datasetId: number, version: number | null) {
  return useQuery({
    ...getDatasetVersionProfileOptions({ path: { dataset_id: datasetId, version: version ?? 0 } }),
    enabled: version !== null,
    refetchInterval: (query) => ((query.state.data as Profile | undefined)?.status === 'pending' ? PENDING_POLL_MS : false),
  });
}
