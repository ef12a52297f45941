/**
 * A walk-through of the service with the TypeScript client that @hey-api/openapi-ts
 * generates from the served document (into ./generated beside a copy of this file), as a
 * third-party developer would write it. Type-checked with tsc (strict), then run by tsx
 * in Node (test_typescript_client.py).
 *
 * Usage: tsx typescript_walkthrough.ts BASE_URL EMAIL PASSWORD
 *
 * The refresh cookie travels through the generated client's own `auth` callback: the
 * document names it as the refresh operation's security (an apiKey in a cookie), and
 * Node's fetch keeps no cookie jar.
 */
import { createClient, createConfig } from './generated/client';
import {
  addDatasetGrant,
  createDataset,
  createGroup,
  createToken,
  deleteToken,
  downloadDatasetFile,
  getDataset,
  getMe,
  listDatasetGrants,
  listDatasets,
  login,
  logout,
  query,
  refreshToken,
  updateDataset,
  uploadDatasetFile,
} from './generated';
import type { Dataset, DatasetPage, QueryResult, Token, ValidationItem } from './generated';

function commandLine(): [string, string, string] {
  const [baseUrl, email, password] = process.argv.slice(2);
  if (baseUrl === undefined || email === undefined || password === undefined) {
    throw new Error('usage: tsx typescript_walkthrough.ts BASE_URL EMAIL PASSWORD');
  }
  return [baseUrl, email, password];
}

const [baseUrl, email, password] = commandLine();
const CSV = new TextEncoder().encode('city,temp\nBergen,7\nTromsø,-3\n');

function step(text: string): void {
  console.log(`- ${text}`);
}

function check(condition: unknown, what: string): asserts condition {
  if (!condition) {
    throw new Error(`failed: ${what}`);
  }
}

function present<T>(value: T | undefined, what: string): T {
  check(value !== undefined, what);
  return value;
}

/** The value of the refresh cookie a response sets. */
function refreshCookie(response: Response): string {
  const header = response.headers.getSetCookie().find((each) => each.includes('refresh_token='));
  check(header !== undefined, 'a refresh cookie is set');
  check(/; HttpOnly/i.test(header) && /; Secure/i.test(header), `HttpOnly and Secure: ${header}`);
  const [pair = ''] = header.split(';', 1);
  return pair.slice(pair.indexOf('=') + 1);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

async function main(): Promise<void> {
  let accessToken: string | undefined;
  let cookie: string | undefined;
  // One client: the bearer token for bearerAuth, the cookie for the refresh operation.
  const client = createClient(createConfig({
    baseUrl,
    auth: (auth) => (auth.in === 'cookie' ? cookie : accessToken),
  }));

  step('login');
  const loggedIn = await login({ client, body: { email, password } });
  check(loggedIn.response.status === 200, `login: ${JSON.stringify(loggedIn.error)}`);
  const token: Token = present(loggedIn.data, 'a token');
  check(token.token_type === 'bearer', 'a bearer token');
  cookie = refreshCookie(loggedIn.response);

  step('refresh with the refresh cookie');
  const refreshed = await refreshToken({ client });
  check(refreshed.response.status === 200, `refresh: ${JSON.stringify(refreshed.error)}`);
  accessToken = present(refreshed.data, 'a new token').access_token;
  cookie = refreshCookie(refreshed.response); // rotated

  step('create a dataset');
  const name = `weather ${Math.random().toString(16).slice(2, 10)}`;
  const created = await createDataset({
    client, body: { name, description: 'Daily', tags: ['weather'] },
  });
  check(created.response.status === 201, `create: ${JSON.stringify(created.error)}`);
  const dataset: Dataset = present(created.data, 'the dataset');
  check(dataset.name === name && dataset.file === null, 'a new dataset without a file');
  check(created.response.headers.get('Location') === `/api/v1/datasets/${dataset.id}`,
    'Location names the dataset');

  step('upload a CSV raw, as text/csv');
  const uploaded = await uploadDatasetFile({
    client,
    path: { dataset_id: dataset.id },
    query: { filename: 'weather.csv' },
    body: new Blob([CSV], { type: 'text/csv' }),
    headers: { 'Content-Type': 'text/csv' },
  });
  check(uploaded.response.status === 200, `upload: ${JSON.stringify(uploaded.error)}`);
  const file = present(uploaded.data, 'the dataset').file;
  check(file !== null, 'the dataset has its file');
  check(file.content_type === 'text/csv', `stored as ${file.content_type}`);
  check(file.filename === 'weather.csv' && file.size_bytes === CSV.length, 'name and size');

  step('download it: the same bytes, type and ETag');
  const downloaded = await downloadDatasetFile({
    client, path: { dataset_id: dataset.id }, parseAs: 'blob',
  });
  check(downloaded.response.status === 200, `download: ${downloaded.response.status}`);
  const blob = present(downloaded.data, 'the file');
  check(sameBytes(new Uint8Array(await blob.arrayBuffer()), CSV), 'the bytes uploaded');
  check(downloaded.response.headers.get('Content-Type')?.startsWith('text/csv') === true,
    'the type uploaded');
  const etag = downloaded.response.headers.get('ETag');
  check(etag === `"${file.sha256}"`, `the ETag is the sha256: ${etag}`);

  step('download a range, and a 304 with the ETag');
  const part = await downloadDatasetFile({
    client, path: { dataset_id: dataset.id }, headers: { Range: 'bytes=0-8' }, parseAs: 'blob',
  });
  check(part.response.status === 206, `range: ${part.response.status}`);
  const partBytes = new Uint8Array(await present(part.data, 'the part').arrayBuffer());
  check(sameBytes(partBytes, CSV.slice(0, 9)), 'the first 9 bytes');
  check(part.response.headers.get('Content-Range') === `bytes 0-8/${CSV.length}`,
    'Content-Range');
  const unchanged = await downloadDatasetFile({
    client, path: { dataset_id: dataset.id }, headers: { 'If-None-Match': etag },
  });
  check(unchanged.response.status === 304, `If-None-Match: ${unchanged.response.status}`);

  step('list datasets');
  const listed = await listDatasets({ client, query: { q: name, sort: '-updated_at' } });
  const page: DatasetPage = present(listed.data, 'a page');
  check(page.total === 1 && page.items[0]?.id === dataset.id, 'the dataset is listed');
  check(page.items[0]?.file?.content_type === 'text/csv', 'with its file');
  check(page.items[0]?.capabilities.manage === true, 'which its owner manages');

  step('the SQL console: one SELECT over the dataset by its name, and its CSV export');
  const sql = `SELECT city, temp FROM "${name}" ORDER BY temp`;
  const queried = await query({ client, body: { sql, limit: 1 } });
  check(queried.response.status === 200, `query: ${JSON.stringify(queried.error)}`);
  const result: QueryResult = present(queried.data, 'a result');
  check(result.columns.map((column) => column.name).join() === 'city,temp', 'its columns');
  check(JSON.stringify(result.rows) === '[["Tromsø",-3]]' && result.truncated, 'the first row');
  check(result.inputs[0]?.dataset_id === dataset.id && result.inputs[0]?.version === 1,
    `the version read: ${JSON.stringify(result.inputs)}`);
  const exported = await query({
    client, body: { sql }, query: { format: 'csv' }, parseAs: 'text',
  });
  // Typed as the JSON answer (the 200's first media type); parsed as text, it is the file.
  const csv: unknown = exported.data;
  check(exported.response.status === 200 && csv === 'city,temp\nTromsø,-3\nBergen,7\n',
    `the whole result as CSV: ${JSON.stringify(csv)}`);
  const unknown = await query({ client, body: { sql: 'SELECT * FROM no_such_table' } });
  check(unknown.response.status === 422
    && present(unknown.error, 'an error').detail === 'Dataset not found: no_such_table',
    `an unknown table: ${JSON.stringify(unknown.error)}`);

  step("a 404's detail, read from the typed error");
  const missing = await getDataset({ client, path: { dataset_id: 1_000_000_000 } });
  check(missing.response.status === 404, `404: ${missing.response.status}`);
  check(present(missing.error, 'an error').detail === 'Dataset not found',
    `detail: ${JSON.stringify(missing.error)}`);

  step("a 422's detail: a list of validation items");
  const invalid = await createDataset({ client, body: { name: '' } });
  check(invalid.response.status === 422, `422: ${invalid.response.status}`);
  const detail = present(invalid.error, 'an error').detail;
  check(Array.isArray(detail), 'a list');
  const items: Array<ValidationItem> = detail;
  check(items.length === 1 && items[0]?.loc.join('.') === 'body.name', JSON.stringify(items));

  step('make the dataset private and share it with a new group');
  const narrowed = await updateDataset({
    client, path: { dataset_id: dataset.id }, body: { visibility: 'private' },
  });
  check(present(narrowed.data, 'the dataset').visibility === 'private', 'private');
  const group = await createGroup({
    client, body: { name: `readers ${Math.random().toString(16).slice(2, 10)}` },
  });
  const principal = `group:${present(group.data, 'a group').id}`;
  const granted = await addDatasetGrant({
    client, path: { dataset_id: dataset.id }, body: { principal, permission: 'read' },
  });
  check(granted.response.status === 201, `grant: ${JSON.stringify(granted.error)}`);
  const grants = await listDatasetGrants({ client, path: { dataset_id: dataset.id } });
  check(present(grants.data, 'grants').items.map((g) => g.principal).join() === principal,
    'the grant is listed');

  step('a read-only personal access token: reads, cannot write, revoked at once');
  const made = await createToken({ client, body: { name: 'walk-through', scopes: ['read'] } });
  const pat = present(made.data, 'a token');
  check(pat.token.startsWith('dhp_') && pat.last_used_at === null, 'a new dhp_ token');
  const script = createClient(createConfig({ baseUrl, auth: () => pat.token }));
  const read = await getDataset({ client: script, path: { dataset_id: dataset.id } });
  check(present(read.data, 'the dataset').name === name, 'the token reads');
  const refused = await createDataset({ client: script, body: { name: `${name} 2` } });
  check(refused.response.status === 403 && present(refused.error, 'an error').detail === 'Forbidden',
    `a read token writes nothing: ${refused.response.status}`);
  const revoked = await deleteToken({ client, path: { token_id: pat.id } });
  check(revoked.response.status === 204, `revoke: ${revoked.response.status}`);
  const after401 = await getMe({ client: script });
  check(after401.response.status === 401
    && present(after401.error, 'an error').detail === 'Invalid token', 'revoked at once');

  step('logout');
  const loggedOut = await logout({ client });
  check(loggedOut.response.status === 200, `logout: ${loggedOut.response.status}`);
  check(present(loggedOut.data, 'a message').message === 'Successfully logged out', 'message');
  const after = await refreshToken({ client });
  check(after.response.status === 401, `refresh after logout: ${after.response.status}`);
  check(present(after.error, 'an error').detail === 'Token has been revoked',
    JSON.stringify(after.error));
  console.log('walk-through done');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
