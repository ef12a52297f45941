import { useOutletContext } from 'react-router';

import type { Dataset } from '../../api/gen/types.gen';

/** What the dataset page hands to its tabs. */
export interface DatasetContext {
  dataset: Dataset;
}

export function useDataset(): Dataset {
  return useOutletContext<DatasetContext>().dataset;
}
