/** Downloading a version's Frictionless Data Package. */
import { saveAs } from '../../../api/save';

export function downloadDataPackage(datasetId: number, version: number): Promise<void> {
  return saveAs(`/api/v1/datasets/${datasetId}/versions/${version}/datapackage.json`, 'datapackage.json');
}
