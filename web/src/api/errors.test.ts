import { describe, expect, it } from 'vitest';

import { ApiError, plainWords, retryAfterSeconds } from './errors';

describe('ApiError', () => {
  it('puts each 422 item at its field, without the body/query prefix', () => {
    const error = new ApiError(422, [
      { loc: ['body', 'steps', 1, 'sql'], msg: 'Not a single SELECT', type: 'value_error' },
      { loc: ['query', 'limit'], msg: 'Must be between 1 and 100.', type: 'value_error' },
    ]);
    expect(error.fieldMessage('steps.1.sql')).toBe('Not a single SELECT');
    expect(error.fieldMessage('limit')).toBe('Must be between 1 and 100.');
    expect(error.otherProblems(['limit']).map((p) => p.path)).toEqual([['steps', 1, 'sql']]);
  });

  it('never shows a regular expression', () => {
    const error = new ApiError(422, [
      { loc: ['body', 'name'], msg: "String does not match expected pattern '^[a-z0-9_-]+$'.", type: 'value_error' },
    ]);
    expect(error.message).not.toMatch(/\^|\$|\[/);
    expect(error.fieldMessage('name')).toBe('This value is not in the expected form.');
    expect(plainWords('Must match \\d+')).toBe('This value is not in the expected form.');
  });

  it('says when to retry a 429 or a 503', () => {
    expect(new ApiError(429, 'Too many requests', 30).message).toBe('Too many requests. Try again in 30 seconds.');
    expect(new ApiError(503, 'Service unavailable', 120).message).toBe('Service unavailable. Try again in 2 minutes.');
    expect(new ApiError(503, 'Service unavailable').message).toBe('Service unavailable. Try again in a moment.');
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterSeconds('7')).toBe(7);
    expect(retryAfterSeconds(null)).toBeNull();
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    expect(retryAfterSeconds(inAMinute)).toBeGreaterThan(50);
  });
});
