// Tasks and contact exports over HTTP on the real stack: the spec's Task, its live progress to
// FINISHED, the CSV to download, listing, and who may cancel what.
import { parse } from 'csv-parse/sync';
import type { NewAccount } from '../../core/accounts/accounts';
import type { Store } from '../../adapters/store/store';
import { launchTask } from '../../core/tasks/tasks';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
let store: Store;

beforeAll(async () => {
  herald = await startTestHerald();
  store = herald.services.store;
  acme = await herald.newAccount();
  other = await herald.newAccount();
  const account = acme.account;
  const now = new Date();
  await store.lists.insertMany([1, 2].map((id) => ({ _id: `${account}:${id}`, account, id, name: `List ${id}`, description: '', tags: [], created: now, lastModified: now, lastMailed: null })));
  await store.interests.insertOne({ _id: `${account}:1`, account, id: 1, name: 'Cats', description: '', expirationDays: 0, created: now, lastModified: now, lastMailed: null });
  await store.fields.insertOne({ _id: `${account}:10`, account, id: 10, name: 'Customer number', tag: 'CUSTOMERNUMBER', format: 'INT', created: now, lastModified: now });
  for (let i = 1; i <= 25; i++) {
    const answer = await call('POST', '/contacts', {
      json: { email: `person${i}@example.com`, firstName: `P${i}`, lists: i % 2 ? [1] : [2], interests: i <= 5 ? [1] : [], customFields: [{ id: 10, value: i }] },
    });
    expect(answer.status).toBe(200);
  }
  expect((await call('POST', '/contacts/person3@example.com/unsubscribe')).status).toBe(200);
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, options: { key?: string; json?: unknown; form?: string; account?: string } = {}) =>
  callHerald(herald.baseUrl, method, `/v2/${options.account ?? acme.account}${path}`, { ...options, headers: { authorization: `Bearer ${options.key ?? acme.apiKey}` } });

/** Polls the task until it is no longer active. */
async function settled(id: number, key = acme.apiKey): Promise<Json> {
  for (let i = 0; i < 300; i++) {
    const answer = await call('GET', `/tasks/${id}`, { key });
    expect(answer.status).toBe(200);
    if (!['QUEUED', 'INITIALIZING', 'PROCESSING'].includes(answer.body.data.state)) return answer.body.data;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`task ${id} did not settle`);
}

async function download(url: string): Promise<{ status: number; type: string | null; rows: string[][] }> {
  const response = await fetch(`${herald.baseUrl}${url}`, { headers: { authorization: `Bearer ${acme.apiKey}` } });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type'), rows: response.ok ? parse(text) : [] };
}

async function userKey(permissions: string[], email: string): Promise<{ id: number; key: string }> {
  const user = await call('POST', '/users', { json: { email, password: 'password12', permissions } });
  expect(user.status).toBe(201);
  const key = await call('POST', `/users/${user.body.data.id}/keys`);
  return { id: user.body.data.id, key: key.body.data.key };
}

describe('contact export', () => {
  it('answers 201 with the spec\'s queued task, which finishes with a CSV of every contact', async () => {
    const answer = await call('POST', '/contacts/export', { json: {} });
    expect(answer.status).toBe(201);
    expect(answer.body.task.parameters.fileName).toMatch(new RegExp(`-${answer.body.task.id}\\.csv$`));
    expect(answer.body).toEqual({
      href: `/v2/${acme.account}/contacts/export`,
      success: true,
      task: {
        id: expect.any(Number), type: 'CONTACT_EXPORT_TASK', name: 'Export contacts', state: 'QUEUED', cancellable: true, message: 'Queued',
        owner: 'owner', created: expect.stringMatching(/Z$/), init: null, end: null, completed: 0, eta: -1,
        request: `/${acme.account}/contacts/export`,
        parameters: { listId: null, interestId: null, state: null, fileName: expect.stringMatching(/^contacts-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}-\d+\.csv$/) },
        result: null,
      },
    });
    const task = await settled(answer.body.task.id);
    expect(task).toMatchObject({ state: 'FINISHED', completed: 1, eta: 0, message: 'Exported 25 contacts', init: expect.any(String), end: expect.any(String) });
    const { fileName } = answer.body.task.parameters;
    expect(task.result).toEqual({ fileName, url: `/v2/${acme.account}/exports/${fileName}`, contacts: 25 });
    const file = await download(task.result.url);
    expect(file.type).toMatch(/^text\/csv/);
    const [header, ...rows] = file.rows;
    expect(header).toEqual(['id', 'email', 'firstName', 'lastName', 'gender', 'language', 'preferredFormat', 'state', 'source', 'quality',
      'created', 'lastModified', 'lists', 'interests', 'Customer number']);
    expect(rows).toHaveLength(25);
    const third = rows.find((r) => r[1] === 'person3@example.com')!;
    expect(third).toEqual([expect.any(String), 'person3@example.com', 'P3', '', '', '', 'HTML', 'UNSUBSCRIBED', 'MANUAL', '0',
      expect.any(String), expect.any(String), 'List 1', 'Cats', '3']);
  });

  it('exports a selection: by list and state from the body (form-encoded too), by list and by interest paths', async () => {
    const byState = await call('POST', '/contacts/export', { form: 'listId=1&state=active' });
    expect(byState.status).toBe(201);
    expect(byState.body.task.parameters).toMatchObject({ listId: 1, state: 'ACTIVE', interestId: null });
    const stateTask = await settled(byState.body.task.id);
    expect(stateTask.result.contacts).toBe(12); // 13 odd contacts on list 1, one unsubscribed

    const byList = await call('POST', '/lists/2/export');
    expect(byList.status).toBe(201);
    expect(byList.body.task).toMatchObject({ type: 'CONTACT_EXPORT_TASK', name: 'Export List 2', parameters: { listId: 2, interestId: null, state: null } });
    expect(byList.body.task.parameters.fileName).toMatch(/^List_2-/);
    const listFile = await download((await settled(byList.body.task.id)).result.url);
    expect(listFile.rows.slice(1).map((r) => r[1]).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `person${(i + 1) * 2}@example.com`).sort());

    const byInterest = await call('POST', '/interests/1/export', { json: {} });
    expect(byInterest.status).toBe(201);
    expect((await settled(byInterest.body.task.id)).result.contacts).toBe(5);
  });

  it('refuses unknown lists, interests and states, and serves no file of another account', async () => {
    const bad = await call('POST', '/contacts/export', { json: { listId: 99, interestId: '98', state: 'gone' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('VALIDATION_ERROR');
    expect(Object.keys(bad.body.error.validationErrors)).toEqual(['state']);
    const missing = await call('POST', '/contacts/export', { json: { listId: 99, interestId: '98' } });
    expect(missing.body.error.validationErrors).toEqual({ listId: 'No list with id 99', interestId: 'No interest with id 98' });
    expect((await call('POST', '/lists/99/export')).status).toBe(404);
    expect((await call('POST', '/contacts/export', { json: { listId: { $gt: 0 } } })).status).toBe(400);

    const mine = await call('POST', '/contacts/export');
    const { url } = (await settled(mine.body.task.id)).result;
    const theirs = await callHerald(herald.baseUrl, 'GET', url.replace(acme.account, other.account), { headers: { authorization: `Bearer ${other.apiKey}` } });
    expect(theirs.status).toBe(404);
    const crossed = await callHerald(herald.baseUrl, 'GET', url, { headers: { authorization: `Bearer ${other.apiKey}` } });
    expect(crossed.status).toBe(403);
    expect((await call('GET', '/exports/..%2F..%2Fetc%2Fpasswd')).status).toBe(404);
  });
});

describe('tasks', () => {
  it('lists tasks newest first, 5 by default, with paging and sort, and answers 404 for unknown ids', async () => {
    const page = await call('GET', '/tasks');
    expect(page.status).toBe(200);
    expect(page.body.paging).toMatchObject({ offset: 0, limit: 5, results: 5 });
    expect(page.body.paging.total).toBe(5); // the exports above
    expect(page.body.sort).toEqual({ sortby: 'created', sortdir: 'desc' });
    const ids = page.body.data.map((t: Json) => t.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const ascending = await call('GET', '/tasks?sortBy=CREATED&sortDir=ASC&limit=2');
    expect(ascending.body.data.map((t: Json) => t.id)).toEqual([1, 2]);
    expect((await call('GET', '/tasks?sortby=state')).body.error.type).toBe('VALIDATION_ERROR');
    expect((await call('GET', '/tasks/424242')).status).toBe(404);
    expect((await call('GET', '/tasks/1', { account: other.account, key: other.apiKey })).status).toBe(404);
    expect((await call('GET', '/tasks/1', { key: other.apiKey })).status).toBe(403);
  });

  it('cancels an active task for its owner or a user with tasks:cancel, and refuses everyone else', async () => {
    const owner = await userKey(['tasks:list', 'contacts:list'], 'exporter@example.com');
    const stranger = await userKey(['tasks:list'], 'stranger@example.com');
    const canceller = await userKey(['tasks:list', 'tasks:cancel'], 'canceller@example.com');
    // Tasks on a queue no worker serves stay QUEUED: a cancel always finds them active.
    const queued = (ownerId: number) => launchTask({ store, temporal: herald.services.temporal, taskQueue: `idle-${acme.account}` }, {
      account: acme.account, type: 'CONTACT_EXPORT_TASK', name: 'Export contacts', owner: { id: ownerId, username: 'exporter' },
      request: `/${acme.account}/contacts/export`, parameters: { listId: null, interestId: null, state: null, fileName: `held-${ownerId}-${Math.random()}.csv`.replace('0.', '') },
    });
    const first = await queued(owner.id);
    const denied = await call('POST', `/tasks/${first.id}/cancel`, { key: stranger.key });
    expect(denied.status).toBe(403);
    expect(denied.body.error.type).toBe('FORBIDDEN');
    const byOwner = await call('POST', `/tasks/${first.id}/cancel`, { key: owner.key, form: '' });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toEqual({ href: `/v2/${acme.account}/tasks/${first.id}/cancel`, success: true });
    expect((await call('GET', `/tasks/${first.id}`)).body.data).toMatchObject({ state: 'CANCELLED', end: expect.any(String) });
    const again = await call('POST', `/tasks/${first.id}/cancel`, { key: owner.key });
    expect(again.status).toBe(400);
    expect(again.body.error.userMessage).toMatch(/CANCELLED/);

    const second = await queued(owner.id);
    expect((await call('POST', `/tasks/${second.id}/cancel`, { key: canceller.key })).status).toBe(200);
    const third = await queued(owner.id);
    expect((await call('POST', `/tasks/${third.id}/cancel`, { key: other.apiKey, account: other.account })).status).toBe(404);
    expect((await call('GET', `/tasks/${third.id}`)).body.data.state).toBe('QUEUED');
  });

  it('gives exports started in the same second their own files', async () => {
    const started = await Promise.all([1, 2, 3].map(() => call('POST', '/contacts/export')));
    const names = started.map((answer) => answer.body.task.parameters.fileName);
    expect(new Set(names).size).toBe(3);
    for (const answer of started) expect((await settled(answer.body.task.id)).state).toBe('FINISHED');
  });

  it('refuses to cancel a finished task', async () => {
    const answer = await call('POST', '/contacts/export');
    await settled(answer.body.task.id);
    const cancel = await call('POST', `/tasks/${answer.body.task.id}/cancel`);
    expect(cancel.status).toBe(400);
    expect(cancel.body.error).toMatchObject({ type: 'BAD_REQUEST', userMessage: 'A task in state FINISHED cannot be cancelled' });
  });
});
