import { defineConfig } from '@hey-api/openapi-ts';

// The API client is generated from the service's document (web/openapi.json, written by
// `python -m datahub.spa.document web/openapi.json`); never edit src/api/gen by hand.
export default defineConfig({
  input: 'openapi.json',
  // The event stream is read by src/api/live.ts (the generated SSE helper does not type-check
  // with the query plugin, and the stream needs the session's renewals anyway).
  parser: { filters: { operations: { exclude: ['GET /api/v1/events/stream'] } } },
  output: { path: 'src/api/gen' },
  plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk', '@tanstack/react-query'],
});
