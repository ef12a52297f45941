/** Downloading a version's file. */
import { saveAs } from '../../../api/save';

export function downloadVersion(datasetId: number, version: number, filename: string): Promise<void> {
  return saveAs(`/api/v1/datasets/${datasetId}/versions/${version}/file`, filename || `dataset-${datasetId}-v${version}`);
}
