// Moving in (core/migration/): Herald to Herald, since Herald speaks the original's API. A source
// account filled through the API (custom fields of each format, interests, lists, suppressions) is
// migrated into a second account; every record is compared through the API. Then: a re-run changes
// nothing and brings over a change; a run killed midway and started again gives the same result; a
// source answering 429 and 503 now and then slows the migration down and it finishes; a key
// without a needed permission and a target holding other data are refused before anything is written.
import { execFile } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { MigrationRefused, runMigration, type MigrationInput } from '../../core/migration/run';
import type { NewAccount } from '../../core/accounts/accounts';
import { listenLocally, startTestHerald, suiteMongodbUri, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';

let herald: TestHerald;
let source: NewAccount;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const call = (account: NewAccount, method: string, path: string, json?: unknown) => callHerald(herald.baseUrl, method, `/v2/${account.account}${path}`, {
  headers: bearer(account.apiKey), ...(json === undefined ? {} : { json }),
});

/** What an account holds, as the API lists it, without ids and dates. */
async function contentsOf(account: NewAccount): Promise<Json> {
  const list = async (path: string) => (await call(account, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=1000`)).body.data as Json[];
  return {
    fields: (await list('/fields')).map((f) => [f.name, f.tag, f.format, f.custom]).sort(),
    interests: (await list('/interests')).map((i) => [i.name, i.description, i.expirationDays]).sort(),
    lists: (await list('/lists')).map((l) => [l.name, l.description, l.tags]).sort(),
    suppressions: (await list('/suppressions')).map((s) => [s.email, s.reason]).sort(),
  };
}

function migrate(target: NewAccount, extra: Partial<MigrationInput> = {}, baseUrl = herald.baseUrl, key = source.apiKey) {
  return runMigration({
    store: herald.services.store, source: { baseUrl, account: source.account, apiKey: key, requestsPerSecond: 200, backoffMs: 20 }, account: target.account, ...extra,
  });
}

/** The installed `herald` command (dist/ is built by npm test), on this test's database. */
function heraldCommand(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, MONGODB_URI: suiteMongodbUri(), HERALD_MONGODB_DATABASE: herald.services.store.db.databaseName, HERALD_LOG_LEVEL: 'silent' };
  return new Promise((resolve) => {
    execFile(process.execPath, [path.resolve(__dirname, '../../bin/herald.js'), ...args], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  herald = await startTestHerald();
  source = await herald.newAccount();
  for (const [name, format] of [['Customer number', 'INT'], ['Birthday', 'DATE'], ['City', 'TEXT'], ['Plan', 'TEXT'], ['Points', 'INT'], ['Renewal', 'DATE']]) {
    expect((await call(source, 'POST', '/fields', { name, format })).status).toBe(201);
  }
  for (const [name, expirationDays] of [['Running', 0], ['Cycling', 30], ['Swimming', 7]] as const) {
    expect((await call(source, 'POST', '/interests', { name, description: `${name} news`, expirationDays })).status).toBe(201);
  }
  for (let i = 1; i <= 5; i += 1) expect((await call(source, 'POST', '/lists', { name: `List ${i}`, description: `The ${i} list`, tags: [`t${i}`, 'all'] })).status).toBe(201);
  for (let i = 0; i < 30; i += 1) {
    const reason = ['manual', 'bounced', 'complained', 'unsubscribed'][i % 4];
    expect((await call(source, 'POST', '/suppressions', { email: `gone${i}@example.net`, reason })).status).toBe(201);
  }
}, 120_000);
afterAll(() => herald?.stop());

it('copies fields, interests, lists and the suppression list; a re-run changes nothing, then brings over a change', async () => {
  const target = await herald.newAccount();
  const report = await migrate(target);
  expect(report.kinds.fields).toMatchObject({ created: 6, skipped: {} });
  expect(report.kinds.lists).toMatchObject({ read: 5, created: 5 });
  expect(report.kinds.interests).toMatchObject({ read: 3, created: 3 });
  expect(report.kinds.suppressions).toMatchObject({ read: 30, created: 30 });
  expect(await contentsOf(target)).toEqual(await contentsOf(source));

  const again = await migrate(target);
  for (const kind of ['fields', 'interests', 'lists']) expect(again.kinds[kind]).toMatchObject({ created: 0, updated: 0 });
  expect(again.kinds.suppressions).toMatchObject({ created: 0, unchanged: 30 });

  const sourceLists = (await call(source, 'GET', '/lists?limit=1000')).body.data as Json[];
  expect((await call(source, 'PUT', `/lists/${sourceLists[0].id}`, { description: 'Changed at the source' })).status).toBe(200);
  const third = await migrate(target);
  expect(third.kinds.lists).toMatchObject({ created: 0, updated: 1, unchanged: 4 });
  expect(await contentsOf(target)).toEqual(await contentsOf(source));
});

it('a run killed midway and started again gives the same result as one clean run', async () => {
  const target = await herald.newAccount();
  const killed = new Error('killed');
  await expect(migrate(target, {
    onProgress: (step, _index, done) => { if (step === 'lists' && done > 0) throw killed; },
  })).rejects.toBe(killed);
  const report = await migrate(target);
  expect(report.kinds.fields).toMatchObject({ created: 6 }); // kept from the first run, which finished that step
  expect(await contentsOf(target)).toEqual(await contentsOf(source));
});

it('slows down for a source answering 429 and 503 now and then, and finishes', async () => {
  let requests = 0;
  let refused = 0;
  const proxy = http.createServer((request, response) => {
    requests += 1;
    if (requests % 2 === 1) { // every other request: each call of the migration is refused once
      refused += 1;
      response.writeHead(refused % 2 === 1 ? 429 : 503, { 'retry-after': '0', 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: false, error: { status: 503, type: 'UNAVAILABLE', userMessage: 'busy' } }));
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      fetch(`${herald.baseUrl}${request.url}`, {
        method: request.method, headers: { authorization: request.headers.authorization ?? '', 'content-type': request.headers['content-type'] ?? 'application/json' }, body: chunks.length ? Buffer.concat(chunks) : undefined,
      }).then(async (answer) => {
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        response.end(Buffer.from(await answer.arrayBuffer()));
      }, () => { response.writeHead(502); response.end(); });
    });
  });
  const proxyUrl = await listenLocally(proxy);
  try {
    const target = await herald.newAccount();
    const retries: number[] = [];
    const report = await migrate(target, { onRetry: ({ status }) => { retries.push(status ?? 0); } }, proxyUrl);
    expect(refused).toBeGreaterThan(3);
    expect(retries).toEqual(expect.arrayContaining([429, 503]));
    expect(report.finished).not.toBeNull();
    expect(await contentsOf(target)).toEqual(await contentsOf(source));
  } finally {
    proxy.close();
  }
});

it('refuses before writing anything: a key lacking a permission (named), a target holding other data, an unknown target', async () => {
  const user = await call(source, 'POST', '/users', { email: 'lister@example.com', password: 'lister pass', permissions: ['fields:list', 'interests:list', 'contacts:list'] });
  expect(user.status).toBe(201);
  const key = (await call(source, 'POST', `/users/${user.body.data.id}/keys`)).body.data.key as string;
  const target = await herald.newAccount();
  await expect(migrate(target, {}, herald.baseUrl, key)).rejects.toThrow(new MigrationRefused('The key lacks the permission lists:list at the source'));
  await expect(migrate(target, {}, herald.baseUrl, `${source.account}-${'x'.repeat(32)}`)).rejects.toThrow(/refused the key \(401/);
  expect(await herald.services.store.lists.countDocuments({ account: target.account })).toBe(0);

  expect((await call(target, 'POST', '/lists', { name: 'Mine' })).status).toBe(201);
  await expect(migrate(target)).rejects.toThrow(/already holds data that did not come from this source: give --merge/);
  const merged = await migrate(target, { merge: true });
  expect(merged.kinds.lists).toMatchObject({ created: 5 });

  await expect(runMigration({ store: herald.services.store, source: { baseUrl: herald.baseUrl, account: source.account, apiKey: source.apiKey }, account: 'nosuchaccount' }))
    .rejects.toThrow(/No Herald account "nosuchaccount"/);
  await expect(runMigration({ store: herald.services.store, source: { baseUrl: 'http://127.0.0.1:1', account: source.account, apiKey: source.apiKey }, account: target.account }))
    .rejects.toThrow(/did not answer/);
});

it('herald migrate: progress on stderr, the report as one JSON line on stdout; bad arguments are a usage error', async () => {
  const target = await herald.newAccount();
  const result = await heraldCommand(['migrate', '--from', herald.baseUrl, '--account', source.account, '--key', source.apiKey, '--to-account', target.account, '--rate', '100']);
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('step 1/4 fields');
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const report = JSON.parse(lines[0]);
  expect(report).toMatchObject({ account: target.account, source: { account: source.account }, kinds: { lists: { created: 5 }, suppressions: { read: 30 } } });
  expect(await contentsOf(target)).toEqual(await contentsOf(source));

  const usage = await heraldCommand(['migrate', '--from', herald.baseUrl, '--account', source.account]);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('migrate needs --key');
});
