import { ApiError, asApiError } from '../../api/errors';

/** A problem the form found itself, shown at its field like a 422 (Field's `error`). */
export function problemAt(field: string, message: string): ApiError {
  return new ApiError(422, [{ loc: [field], msg: message }]);
}

/** A 409 (the email or name is taken) shown at the field it is about; any other error
 *  as it is. */
export function conflictAt(error: unknown, field: string, message: string): unknown {
  if (error && asApiError(error).status === 409) return problemAt(field, message);
  return error;
}
