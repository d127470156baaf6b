// Moving in (core/migration/): Herald to Herald, since Herald speaks the original's API. A source
// account filled through the API (custom fields of each format, interests, lists, suppressions) is
// migrated into a second account; every record is compared through the API. Then: a re-run changes
// nothing (reading no contact when none was modified) and brings over a change; a source that cannot
// sort contacts by lastModified is read in full again; a run killed midway and started again gives the same result; a
// source answering 429 and 503 now and then slows the migration down and it finishes; a key
// without a needed permission and a target holding other data are refused before anything is written.
import { execFile } from 'node:child_process';
import http from 'node:http';
import { parse } from 'csv-parse/sync';
import path from 'node:path';
import { MigrationRefused, runMigration, type MigrationInput } from '../../core/migration/run';
import type { NewAccount } from '../../core/accounts/accounts';
import { listenLocally, startTestHerald, suiteMongodbUri, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import { waitUntil } from '../support/wait';
import { workflowIds } from '../../adapters/temporal/contracts';

let herald: TestHerald;
let source: NewAccount;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const call = (account: NewAccount, method: string, path: string, json?: unknown) => callHerald(herald.baseUrl, method, `/v2/${account.account}${path}`, {
  headers: bearer(account.apiKey), ...(json === undefined ? {} : { json }),
});

// Each pattern below (every 50th contact unsubscribed, bounced or complained; every 10th, 7th, 5th,
// 3rd, 2nd with lists, interests or values) occurs three times or more.
const CONTACTS = 150;

/** A raw body PUT (a campaign content's HTML or MJML). */
async function putBody(account: NewAccount, path: string, body: string): Promise<number> {
  return (await fetch(`${herald.baseUrl}/v2/${account.account}${path}`, { method: 'PUT', headers: { ...bearer(account.apiKey), 'content-type': 'text/html' }, body })).status;
}

/** A document GET: its status, and its text when found. */
async function getText(account: NewAccount, path: string): Promise<string> {
  const answer = await fetch(`${herald.baseUrl}/v2/${account.account}${path}`, { headers: bearer(account.apiKey) });
  return answer.ok ? `${answer.status}: ${await answer.text()}` : String(answer.status);
}

/** What an account holds, as the API lists it, without ids and dates; every 7th contact in full. */
async function contentsOf(account: NewAccount): Promise<Json> {
  const list = async (path: string) => (await call(account, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=1000`)).body.data as Json[];
  const contacts = (await list('/contacts?sortby=email')).map((c) => [c.email, c.firstName, c.lastName, c.state]);
  const detailed = await Promise.all(contacts.filter((_, i) => i % 7 === 0).map(async ([email]) => {
    const c = (await call(account, 'GET', `/contacts/${encodeURIComponent(email as string)}`)).body.data;
    return [c.email, c.lists.map((l: Json) => l.name).sort(), c.interests.map((i: Json) => i.name).sort(),
      c.customFields.filter((f: Json) => f.value !== '').map((f: Json) => [f.name, f.value]).sort(), c.state, c.source];
  }));
  // Each list's members in creation order: same-named lists must not mix.
  const members = await Promise.all((await list('/lists?sortby=created')).map(async (l) => (await list(`/contacts?filter[list]=${l.id}&sortby=email`)).map((c) => c.email)));
  const templates = await Promise.all((await list('/templates?filter[type]=all&sortby=created')).map(async (t) => {
    const folder = t.location === '/' ? '/' : (await call(account, 'GET', `/templates${t.location}`)).body.data.name;
    const body = t.type === 'FOLDER' ? null : (await call(account, 'GET', `/templates${t.id}.json`)).body.data;
    return [t.name, t.type, folder, body];
  }));
  const nameOf = new Map<string, string>();
  for (const l of await list('/lists')) nameOf.set(`l${l.id}`, l.name);
  for (const i of await list('/interests')) nameOf.set(`i${i.id}`, i.name);
  const campaignList = [...await list('/campaigns?sortby=created'), ...await list('/campaigns?sortby=created&filter[archived]=true')];
  for (const c of campaignList) nameOf.set(`c${c.id}`, c.name);
  const campaigns = await Promise.all(campaignList.map(async (c) => {
    const detail = (await call(account, 'GET', `/campaigns/${c.id}`)).body.data;
    const names = (a: Json) => [...a.lists.map((id: number) => nameOf.get(`l${id}`)), ...a.interests.map((id: number) => nameOf.get(`i${id}`)), ...a.campaigns.map((id: number) => nameOf.get(`c${id}`))];
    const content = detail.contents[0];
    const body = content && [await getText(account, `/campaigns/${c.id}/contents/${content.id}.html`), await getText(account, `/campaigns/${c.id}/contents/${content.id}.mjml`)];
    return [detail.name, detail.description, detail.tags, detail.state, detail.options, names(detail.include), names(detail.exclude),
      content && [content.subject, content.from, content.fromName, content.replyTo], body];
  }));
  const webhooks = (await list('/webhooks')).map((w) => [w.url, w.events, w.enabled]).sort();
  return {
    webhooks,
    campaigns,
    templates,
    members,
    fields: (await list('/fields')).map((f) => [f.name, f.tag, f.format, f.custom]).sort(),
    interests: (await list('/interests')).map((i) => [i.name, i.description, i.expirationDays]).sort(),
    lists: (await list('/lists')).map((l) => [l.name, l.description, l.tags]).sort(),
    suppressions: (await list('/suppressions')).map((s) => [s.email, s.reason]).sort(),
    contacts,
    detailed,
  };
}

function migrate(target: NewAccount, extra: Partial<MigrationInput> = {}, baseUrl = herald.baseUrl, key = source.apiKey) {
  return runMigration({
    store: herald.services.store, source: { baseUrl, account: source.account, apiKey: key, requestsPerSecond: 200, backoffMs: 20 }, account: target.account, allowPrivateWebhooks: true, ...extra,
  });
}

/** The installed `herald` command (dist/ is built by npm test), on this test's database. */
function heraldCommand(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // Webhook URLs on private addresses refused, as in production.
  const env = { ...process.env, MONGODB_URI: suiteMongodbUri(), HERALD_MONGODB_DATABASE: herald.services.store.db.databaseName, HERALD_LOG_LEVEL: 'silent', HERALD_WEBHOOK_ALLOW_PRIVATE: '' };
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
  // A second list of the same name: its members are read by its id, not by the export's names.
  expect((await call(source, 'POST', '/lists', { name: 'List 1', description: 'Another list 1' })).status).toBe(201);
  for (let i = 0; i < 30; i += 1) {
    const reason = ['manual', 'bounced', 'complained', 'unsubscribed'][i % 4];
    expect((await call(source, 'POST', '/suppressions', { email: `gone${i}@example.net`, reason })).status).toBe(201);
  }
  const folder = await call(source, 'POST', '/templates', { name: 'Receipts', type: 'FOLDER' });
  expect(folder.status).toBe(201);
  expect((await call(source, 'POST', '/templates', {
    name: 'Order shipped', type: 'HTML', location: folder.body.data.id, htmlRaw: '<p>Your order ${order} shipped</p>', subject: 'Shipped', from: { email: 'shop@example.com', name: 'Shop' },
  })).status).toBe(201);
  expect((await call(source, 'POST', '/templates', {
    name: 'Newsletter', type: 'MJML', mjmlRaw: '<mjml><mj-body><mj-section><mj-column><mj-text>Hello</mj-text></mj-column></mj-section></mj-body></mjml>',
  })).status).toBe(201);
  // Campaigns: with an audience and an HTML body; with an MJML body including the first's recipients; one without content.
  const listsNow = ((await call(source, 'GET', '/lists?limit=1000')).body.data as Json[]).map((l) => l.id);
  const interestsNow = ((await call(source, 'GET', '/interests?limit=1000')).body.data as Json[]).map((i) => i.id);
  const autumn = await call(source, 'POST', '/campaigns', { name: 'Autumn', description: 'News', tags: ['news'], include: { lists: [listsNow[0], listsNow[1]] }, exclude: { interests: [interestsNow[0]] } });
  expect(autumn.status).toBe(200);
  const autumnContent = await call(source, 'POST', `/campaigns/${autumn.body.data.id}/contents`, { type: 'HTML', subject: 'Autumn news', from: 'news@example.com', fromName: 'Shop', replyTo: 'help@example.com' });
  expect(await putBody(source, `/campaigns/${autumn.body.data.id}/contents/${autumnContent.body.data.id}.html`, '<p>Autumn is here</p>')).toBe(200);
  const winter = await call(source, 'POST', '/campaigns', { name: 'Winter', include: { campaigns: [autumn.body.data.id], lists: [listsNow[2]] } });
  const winterContent = await call(source, 'POST', `/campaigns/${winter.body.data.id}/contents`, { type: 'HTML', subject: 'Winter', from: 'news@example.com', fromName: 'Shop' });
  expect(await putBody(source, `/campaigns/${winter.body.data.id}/contents/${winterContent.body.data.id}.html`,
    '<mjml><mj-body><mj-section><mj-column><mj-text>Winter</mj-text></mj-column></mj-section></mj-body></mjml>')).toBe(200);
  expect((await call(source, 'POST', '/campaigns', { name: 'Old one' })).status).toBe(200);
  expect((await call(source, 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hooks/all', enabled: false })).status).toBe(201);
  expect((await call(source, 'POST', '/webhooks', { url: 'http://127.0.0.1:9/hooks/bounces', events: ['track.mail.bounced'], enabled: false })).status).toBe(201);
  // Contacts in one or two of the lists, some with interests and custom field values; some unsubscribed, bounced, complained.
  const fields = (await call(source, 'GET', '/fields?limit=1000')).body.data as Json[];
  const fieldId = (name: string) => fields.find((f) => f.name === name).id;
  const listIds = ((await call(source, 'GET', '/lists?limit=1000')).body.data as Json[]).map((l) => l.id);
  const interestIds = ((await call(source, 'GET', '/interests?limit=1000')).body.data as Json[]).map((i) => i.id);
  for (let from = 0; from < CONTACTS; from += 25) {
    await Promise.all(Array.from({ length: 25 }, async (_, k) => {
      const i = from + k;
      const email = `reader${String(i).padStart(4, '0')}@example.org`;
      const customFields = [{ id: fieldId('Customer number'), value: String(1000 + i) }, ...(i % 2 ? [{ id: fieldId('City'), value: `City ${i % 9}` }] : []),
        ...(i % 5 === 0 ? [{ id: fieldId('Birthday'), value: '1990-01-15T00:00:00.000Z' }] : [])];
      const interests = interestIds.filter((_, n) => i % (n + 2) === 0).map((id) => ({ id }));
      const first = await call(source, 'POST', `/lists/${listIds[i % 5]}/contacts`, { email, firstName: `Reader ${i}`, lastName: i % 3 ? 'Smith' : '', customFields, interests });
      expect(first.status).toBe(200);
      if (i % 3 === 0) expect((await call(source, 'PUT', `/contacts/${first.body.data.id}/lists/${listIds[(i + 1) % 5]}`)).status).toBe(200);
      if (i % 10 === 7) expect((await call(source, 'PUT', `/contacts/${first.body.data.id}/lists/${listIds[5]}`)).status).toBe(200);
      if (i % 50 === 1) expect((await call(source, 'POST', `/contacts/${first.body.data.id}/unsubscribe`)).status).toBe(200);
      if (i % 50 === 2 || i % 50 === 3) expect((await call(source, 'POST', '/bounces', { email, type: i % 50 === 2 ? 'hard' : 'complaint' })).status).toBe(200);
    }));
  }
}, 180_000);
afterAll(() => herald?.stop());

it('copies fields, interests, lists, contacts (values, lists, interests, states), the suppression list, templates (folders, HTML, MJML) and campaigns as drafts (audience mapped, content, HTML or MJML body); a re-run changes nothing, then brings over a change', async () => {
  // The source's contacts last changed a minute ago: a re-run then needs to read none (one changed
  // within seconds of the last read makes it read them all: core/migration/contacts.ts WRITES_LANDING_MS).
  await herald.services.store.contacts.updateMany({ account: source.account }, { $set: { lastModified: new Date(Date.now() - 60_000) } });
  const target = await herald.newAccount();
  const report = await migrate(target);
  expect(report.kinds.fields).toMatchObject({ created: 6, skipped: {} });
  expect(report.kinds.lists).toMatchObject({ read: 6, created: 6 });
  expect(report.kinds.interests).toMatchObject({ read: 3, created: 3 });
  expect(report.kinds.contacts).toMatchObject({ read: CONTACTS, created: CONTACTS, skipped: {} });
  expect(report.kinds.templates).toMatchObject({ read: 3, created: 3, skipped: {} });
  expect(report.kinds.campaigns).toMatchObject({ read: 3, created: 3, skipped: {} });
  expect(report.kinds.webhooks).toMatchObject({ read: 2, created: 2, skipped: {} });
  expect((await call(target, 'GET', '/webhooks')).body.data.every((w: Json) => w.enabled === false)).toBe(true);
  const suppressed = (await call(source, 'GET', '/suppressions?limit=1000')).body.data.length;
  expect(report.kinds.suppressions).toMatchObject({ read: suppressed, skipped: {} });
  const contents = await contentsOf(target);
  expect(contents).toEqual(await contentsOf(source));
  expect(contents.contacts.filter((c: Json) => c[3] !== 'ACTIVE').map((c: Json) => c[3]).sort()).toEqual(['BOUNCED', 'COMPLAINED', 'UNSUBSCRIBED'].flatMap((state) => Array(CONTACTS / 50).fill(state)));

  // The id mapping, as CSV: every contact, and each list's row pairs two lists of the same name.
  const mapping = await getText(target, report.mapping.replace(`/v2/${target.account}`, ''));
  const rows = parse(mapping.replace(/^200: /, ''), { columns: true }) as Array<Record<string, string>>;
  expect(rows.filter((row) => row.kind === 'contacts')).toHaveLength(CONTACTS);
  const listRows = rows.filter((row) => row.kind === 'lists');
  expect(listRows).toHaveLength(6);
  for (const row of listRows) {
    const [from, to] = await Promise.all([call(source, 'GET', `/lists/${row.source_id}`), call(target, 'GET', `/lists/${row.herald_id}`)]);
    expect([to.body.data.name, to.body.data.description]).toEqual([from.body.data.name, from.body.data.description]);
  }

  const again = await migrate(target);
  for (const kind of ['fields', 'interests', 'lists']) expect(again.kinds[kind]).toMatchObject({ created: 0, updated: 0 });
  expect(again.kinds.suppressions).toMatchObject({ created: 0, unchanged: suppressed });
  expect(again.kinds.contacts).toMatchObject({ read: 0, created: 0, updated: 0, unchanged: CONTACTS }); // nothing modified at the source since the last read
  expect(again.kinds.templates).toMatchObject({ created: 0, updated: 0, unchanged: 3 });
  expect(again.kinds.campaigns).toMatchObject({ created: 0, updated: 0, unchanged: 3 });

  const sourceLists = (await call(source, 'GET', '/lists?limit=1000')).body.data as Json[];
  expect((await call(source, 'PUT', `/lists/${sourceLists[0].id}`, { description: 'Changed at the source' })).status).toBe(200);
  expect((await call(source, 'PUT', '/contacts/reader0004@example.org', { firstName: 'Changed' })).status).toBe(200);
  const newsletter = ((await call(source, 'GET', '/templates?filter[type]=mjml')).body.data as Json[])[0];
  expect((await call(source, 'PUT', `/templates${newsletter.id}`, { mjmlRaw: '<mjml><mj-body><mj-section><mj-column><mj-text>Hello again</mj-text></mj-column></mj-section></mj-body></mjml>' })).status).toBe(200);
  expect((await call(source, 'POST', '/contacts/reader0005@example.org/unsubscribe')).status).toBe(200);
  const third = await migrate(target);
  expect(third.kinds.lists).toMatchObject({ created: 0, updated: 1, unchanged: 5 });
  expect(third.kinds.contacts).toMatchObject({ read: CONTACTS, created: 0, updated: 2, unchanged: CONTACTS - 2 });
  expect(third.kinds.templates).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
  expect(await contentsOf(target)).toEqual(await contentsOf(source));

  // Nobody who left is mailed again: unsubscribed here, ACTIVE at the source (and changed there), stays unsubscribed.
  expect((await call(target, 'POST', '/contacts/reader0006@example.org/unsubscribe')).status).toBe(200);
  expect((await call(source, 'PUT', '/contacts/reader0006@example.org', { lastName: 'Moved' })).status).toBe(200);
  expect((await migrate(target)).kinds.contacts).toMatchObject({ updated: 1 });
  expect((await call(target, 'GET', '/contacts/reader0006@example.org')).body.data).toMatchObject({ lastName: 'Moved', state: 'UNSUBSCRIBED' });
});

it('a run killed midway and started again gives the same result as one clean run', async () => {
  const target = await herald.newAccount();
  const killed = new Error('killed');
  await expect(migrate(target, {
    onProgress: (step, _index, done) => { if (step === 'lists' && done > 0) throw killed; },
  })).rejects.toBe(killed);
  // Killed again, once the contacts are written but before their step was recorded as done.
  await expect(migrate(target, {
    onProgress: (step, _index, done) => { if (step === 'contacts' && done === CONTACTS) throw killed; },
  })).rejects.toBe(killed);
  const report = await migrate(target);
  expect(report.kinds.fields).toMatchObject({ created: 6 }); // kept from the first run, which finished that step
  expect(report.kinds.contacts).toMatchObject({ created: 0, unchanged: CONTACTS }); // written by the second run, found by the third
  expect(await herald.services.store.contacts.countDocuments({ account: target.account })).toBe(CONTACTS);
  expect(await contentsOf(target)).toEqual(await contentsOf(source));
});

/** A proxy in front of the source: `refusal` answers a request itself (status and message), or lets it through. */
async function sourceProxy(refusal: (request: http.IncomingMessage) => { status: number; message: string } | undefined): Promise<{ url: string; close(): void }> {
  const proxy = http.createServer((request, response) => {
    const refused = refusal(request);
    if (refused) {
      response.writeHead(refused.status, { 'retry-after': '0', 'content-type': 'application/json' });
      response.end(JSON.stringify({ success: false, error: { status: refused.status, type: 'REFUSED', userMessage: refused.message } }));
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
  return { url: await listenLocally(proxy), close: () => proxy.close() };
}

it('slows down for a source answering 429 and 503 now and then, and finishes', async () => {
  let requests = 0;
  let refused = 0;
  // Every other request: each call of the migration is refused once.
  const proxy = await sourceProxy(() => {
    requests += 1;
    if (requests % 2 === 0) return undefined;
    refused += 1;
    return { status: refused % 2 === 1 ? 429 : 503, message: 'busy' };
  });
  try {
    const target = await herald.newAccount();
    const retries: number[] = [];
    const report = await migrate(target, { onRetry: ({ status }) => { retries.push(status ?? 0); } }, proxy.url);
    expect(refused).toBeGreaterThan(3);
    expect(retries).toEqual(expect.arrayContaining([429, 503]));
    expect(report.finished).not.toBeNull();
    expect(await contentsOf(target)).toEqual(await contentsOf(source));
  } finally {
    proxy.close();
  }
});

it('re-runs from a source that cannot sort contacts by lastModified (the original documents email and quality) read every contact again', async () => {
  const asked: string[] = [];
  const proxy = await sourceProxy((request) => {
    if (!/sortby=lastModified/i.test(request.url ?? '')) return undefined;
    asked.push(request.url!);
    return { status: 400, message: 'sortby: Must be one of: email, quality' };
  });
  try {
    const target = await herald.newAccount();
    await migrate(target, {}, proxy.url);
    const again = await migrate(target, {}, proxy.url);
    expect(asked).toHaveLength(1);
    expect(again.kinds.contacts).toMatchObject({ read: CONTACTS, created: 0, updated: 0, unchanged: CONTACTS });
  } finally {
    proxy.close();
  }
});

it('refuses before writing anything: a key lacking a permission (named), a target holding other data, an unknown target', async () => {
  const user = await call(source, 'POST', '/users', { email: 'lister@example.com', password: 'lister pass', permissions: ['fields:list', 'interests:list', 'contacts:list', 'tasks:list', 'templates:list', 'campaigns:list', 'webhooks:list'] });
  expect(user.status).toBe(201);
  const key = (await call(source, 'POST', `/users/${user.body.data.id}/keys`)).body.data.key as string;
  const target = await herald.newAccount();
  await expect(migrate(target, {}, herald.baseUrl, key)).rejects.toThrow(new MigrationRefused('The key lacks the permission lists:list at the source'));
  await expect(migrate(target, {}, herald.baseUrl, `${source.account}-${'x'.repeat(32)}`)).rejects.toThrow(/refused the key \(401/);
  expect(await herald.services.store.lists.countDocuments({ account: target.account })).toBe(0);

  expect((await call(target, 'POST', '/lists', { name: 'Mine' })).status).toBe(201);
  await expect(migrate(target)).rejects.toThrow(/already holds data that did not come from this source: give --merge/);
  const merged = await migrate(target, { merge: true });
  expect(merged.kinds.lists).toMatchObject({ created: 6 });
  expect(merged.kinds.contacts).toMatchObject({ created: CONTACTS });

  await expect(runMigration({ store: herald.services.store, source: { baseUrl: herald.baseUrl, account: source.account, apiKey: source.apiKey }, account: 'nosuchaccount' }))
    .rejects.toThrow(/No Herald account "nosuchaccount"/);
  await expect(runMigration({ store: herald.services.store, source: { baseUrl: 'http://127.0.0.1:1', account: source.account, apiKey: source.apiKey }, account: target.account }))
    .rejects.toThrow(/did not answer/);
});

it('herald migrate: progress on stderr, the report as one JSON line on stdout; bad arguments are a usage error', async () => {
  const target = await herald.newAccount();
  const result = await heraldCommand(['migrate', '--from', herald.baseUrl, '--account', source.account, '--key', source.apiKey, '--to-account', target.account, '--rate', '100']);
  expect(result.code).toBe(0);
  expect(result.stderr).toContain('Step 1 of 8, fields');
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const report = JSON.parse(lines[0]);
  expect(report).toMatchObject({ account: target.account, source: { account: source.account }, kinds: { lists: { created: 6 }, contacts: { created: CONTACTS } } });
  // The source's webhooks point at 127.0.0.1: refused here, each with Herald's reason.
  expect(report.kinds.webhooks.created).toBe(0);
  expect(Object.values(report.kinds.webhooks.skipped as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(2);
  const { webhooks: _targetHooks, ...got } = await contentsOf(target);
  const { webhooks: _sourceHooks, ...wanted } = await contentsOf(source);
  expect(got).toEqual(wanted);

  const usage = await heraldCommand(['migrate', '--from', herald.baseUrl, '--account', source.account]);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toContain('migrate needs --key');
  const notUrl = await heraldCommand(['migrate', '--from', 'not a url', '--account', source.account, '--key', source.apiKey, '--to-account', target.account]);
  expect(notUrl.code).toBe(1);
  expect(notUrl.stderr.trim()).toBe('herald: Not a URL: not a url');
});

it('POST /migrations: a task with progress whose result is the report; the source key is in neither the task nor Temporal, and is deleted at the end', async () => {
  const target = await herald.newAccount();
  expect((await call(target, 'POST', '/migrations', { from: herald.baseUrl, account: source.account })).status).toBe(400);
  const started = await call(target, 'POST', '/migrations', { from: herald.baseUrl, account: source.account, key: source.apiKey, rate: 200 });
  expect(started.status).toBe(201);
  const taskId = started.body.task.id as number;
  const done = await waitUntil('the migration task', async () => {
    const task = (await call(target, 'GET', `/tasks/${taskId}`)).body.data;
    return ['FINISHED', 'FAILED'].includes(task.state) ? task : undefined;
  }, 120_000);
  expect(done).toMatchObject({ state: 'FINISHED', type: 'ACCOUNT_MIGRATION', completed: 1 });
  expect(done.result.kinds.contacts).toMatchObject({ created: CONTACTS });
  expect(JSON.stringify(done)).not.toContain(source.apiKey);
  expect(JSON.stringify((await call(target, 'GET', '/tasks')).body)).not.toContain(source.apiKey);
  expect(await herald.services.store.migrationKeys.countDocuments({ account: target.account })).toBe(0);
  const history = await herald.services.temporal.workflow.getHandle(workflowIds.task(target.account, taskId)).fetchHistory();
  expect(history.events!.length).toBeGreaterThan(5);
  expect(JSON.stringify(history)).not.toContain(source.apiKey);
  const { webhooks: _t, ...got } = await contentsOf(target);
  const { webhooks: _s, ...wanted } = await contentsOf(source);
  expect(got).toEqual(wanted);

  // A key the source refuses: the task fails with the source's reason, and its key is deleted.
  const other = await herald.newAccount();
  const refused = await call(other, 'POST', '/migrations', { from: herald.baseUrl, account: source.account, key: `${source.account}-${'y'.repeat(32)}` });
  const failed = await waitUntil('the refused migration', async () => {
    const task = (await call(other, 'GET', `/tasks/${refused.body.task.id}`)).body.data;
    return ['FINISHED', 'FAILED'].includes(task.state) ? task : undefined;
  }, 120_000);
  expect(failed).toMatchObject({ state: 'FAILED', message: expect.stringMatching(/refused the key \(401/) });
  expect(await herald.services.store.migrationKeys.countDocuments({ account: other.account })).toBe(0);
});
