/**
 * File uploads with progress and cancel: the generated client uses fetch, which reports no
 * upload progress, so an upload is an XMLHttpRequest carrying the session's bearer token
 * (renewed once on 401, as every request is).
 */
import { ApiError, retryAfterSeconds } from './errors';
import { bearer, refresh } from './session';

export interface UploadOptions {
  /** Called with the fraction sent, 0 to 1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

function send(url: string, file: Blob, options: UploadOptions): Promise<XMLHttpRequest> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', url);
    Object.entries(bearer()).forEach(([name, value]) => request.setRequestHeader(name, value));
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) options.onProgress?.(event.loaded / event.total);
    };
    request.onload = () => resolve(request);
    request.onerror = () => reject(new ApiError(0, 'network'));
    request.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    options.signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(file);
  });
}

function failure(request: XMLHttpRequest): ApiError {
  let detail: unknown = `The service answered ${request.status}.`;
  try {
    detail = (JSON.parse(request.responseText) as { detail?: unknown }).detail ?? detail;
  } catch {
    // not JSON: keep the status sentence
  }
  return new ApiError(request.status, detail, retryAfterSeconds(request.getResponseHeader('Retry-After')));
}

/** PUT a file as a dataset's new version; resolves to the service's answer (the dataset). */
export async function uploadDatasetFile(
  datasetId: number,
  file: File,
  message: string,
  options: UploadOptions = {},
): Promise<unknown> {
  const query = new URLSearchParams();
  if (file.name) query.set('filename', file.name);
  if (message) query.set('message', message);
  const url = `/api/v1/datasets/${datasetId}/file?${query}`;
  let request = await send(url, file, options);
  if (request.status === 401 && (await refresh().catch(() => false))) {
    request = await send(url, file, options);
  }
  if (request.status < 200 || request.status >= 300) throw failure(request);
  return request.responseText ? JSON.parse(request.responseText) : null;
}
