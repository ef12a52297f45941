/** Saving what the API answers as a file: the request needs the bearer token, so it is
 *  fetched, then saved from an object URL through a temporary <a download>. */
import { errorFrom } from './errors';
import { sessionFetch } from './session';

export async function saveAs(path: string, filename: string): Promise<void> {
  const response = await sessionFetch(path);
  if (!response.ok) throw await errorFrom(response);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
