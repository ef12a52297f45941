import { ApiError, asApiError } from '../../api/errors';

/** A 409 about the name ("Name already exists") becomes that field's problem, so the form
 *  shows it at the name field like a 422; other errors pass unchanged. */
export function nameConflictAtField(error: unknown): unknown {
  if (!error) return error;
  const problem = asApiError(error);
  if (problem.status !== 409) return error;
  const detail = typeof problem.detail === 'string' ? problem.detail : 'Name already exists';
  return new ApiError(422, [{ loc: ['body', 'name'], msg: `${detail}: choose another name.`, type: 'conflict' }]);
}

/** "a, b ,, c" → ["a", "b", "c"]: tags as typed, comma-separated. */
export function parseTags(text: string): string[] {
  return [...new Set(text.split(',').map((tag) => tag.trim()).filter(Boolean))];
}
