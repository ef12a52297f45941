/** Downloading a version: the file needs the bearer token, so it is fetched, then saved
 *  from an object URL through a temporary <a download>. */
import { errorFrom } from '../../../api/errors';
import { sessionFetch } from '../../../api/session';

export async function downloadVersion(datasetId: number, version: number, filename: string): Promise<void> {
  const response = await sessionFetch(`/api/v1/datasets/${datasetId}/versions/${version}/file`);
  if (!response.ok) throw await errorFrom(response);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename || `dataset-${datasetId}-v${version}`;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
