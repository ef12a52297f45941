/**
 * Errors as a person reads them. Every answer that is not 2xx becomes an ApiError (through
 * the generated client's error interceptor, installed by `installErrorInterceptor`): its
 * status, the service's `detail`, and for 422 the items by field, in plain words.
 */
import { client } from './gen/client.gen';

export interface FieldProblem {
  /** The field's path inside the body or query: ["steps", 1, "sql"]. */
  path: (string | number)[];
  message: string;
}

interface ValidationItem {
  loc?: (string | number)[];
  msg?: string;
  type?: string;
}

const PLACES = new Set(['body', 'query', 'path', 'header', 'json', 'form', 'files']);

export class ApiError extends Error {
  readonly status: number;
  readonly detail: unknown;
  /** Seconds to wait before trying again (429 and 503), when the service said. */
  readonly retryAfter: number | null;
  readonly fields: FieldProblem[];

  constructor(status: number, detail: unknown, retryAfter: number | null = null) {
    const fields = Array.isArray(detail) ? (detail as ValidationItem[]).map(toProblem) : [];
    super(describe(status, detail, fields, retryAfter));
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
    this.retryAfter = retryAfter;
    this.fields = fields;
  }

  /** The message for one field (its path joined by dots: "steps.1.sql"), if any. */
  fieldMessage(path: string): string | undefined {
    return this.fields.find((field) => field.path.join('.') === path)?.message;
  }

  /** Problems whose field the form does not show (said above the form instead). */
  otherProblems(shown: string[]): FieldProblem[] {
    return this.fields.filter((field) => !shown.includes(field.path.join('.')));
  }
}

/** A pattern in a message ("does not match '^[a-z]+$'") is never shown to a person. */
export function plainWords(message: string, type?: string): string {
  if (type === 'value_error.str.regex' || /\bpattern\b|\^.*\$|\\[dws]/.test(message)) {
    return 'This value is not in the expected form.';
  }
  if (message === 'Missing data for required field.' || type === 'value_error.missing') {
    return 'This field is required.';
  }
  return message;
}

function toProblem(item: ValidationItem): FieldProblem {
  const loc = item.loc ?? [];
  const path = PLACES.has(String(loc[0])) ? loc.slice(1) : loc;
  return { path, message: plainWords(item.msg ?? 'This value is not valid.', item.type) };
}

function waitWords(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

function describe(
  status: number,
  detail: unknown,
  fields: FieldProblem[],
  retryAfter: number | null,
): string {
  if (status === 0) return 'The service cannot be reached. Check the connection and try again.';
  if (fields.length > 0) {
    return fields
      .map((field) => (field.path.length ? `${field.path.join(' › ')}: ` : '') + field.message)
      .join(' ');
  }
  const text = typeof detail === 'string' ? detail : `The service answered ${status}.`;
  if ((status === 429 || status === 503) && retryAfter !== null) {
    return `${text}. Try again in ${waitWords(retryAfter)}.`;
  }
  if (status === 429 || status === 503) return `${text}. Try again in a moment.`;
  return text;
}

export function retryAfterSeconds(value: string | null): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** An ApiError from a fetch Response that failed (for requests made outside the client). */
export async function errorFrom(response: Response): Promise<ApiError> {
  let detail: unknown = `The service answered ${response.status}.`;
  try {
    detail = ((await response.json()) as { detail?: unknown }).detail ?? detail;
  } catch {
    // not JSON: keep the status sentence
  }
  return new ApiError(response.status, detail, retryAfterSeconds(response.headers.get('Retry-After')));
}

export function installErrorInterceptor(): void {
  client.interceptors.error.use((error, response) => {
    if (!response) return new ApiError(0, String(error));
    const detail = (error as { detail?: unknown } | undefined)?.detail ?? error;
    return new ApiError(
      response.status,
      detail,
      retryAfterSeconds(response.headers.get('Retry-After')),
    );
  });
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof Error) return new ApiError(0, error.message);
  return new ApiError(0, String(error));
}
