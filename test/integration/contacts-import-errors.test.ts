// Contacts import when things go wrong: invalid requests, rows with errors counted and sampled,
// uploads refused (type, size, no file), a running import cancelled, and who may import what.
import { MAX_UPLOAD_BYTES } from '../../core/contacts/import/start';
import type { NewAccount } from '../../core/accounts/accounts';
import type { Store } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { importClient, type ImportClient } from '../support/import-client';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
let store: Store;
let api: ImportClient;

beforeAll(async () => {
  herald = await startTestHerald({ ownStack: true }); // the last test counts every upload chunk of its database
  store = herald.services.store;
  acme = await herald.newAccount();
  other = await herald.newAccount();
  api = importClient(herald.baseUrl, () => acme);
  expect((await api.call('POST', '/lists', { json: { name: 'Customers' } })).status).toBe(201);
  expect((await api.call('POST', '/fields', { json: { name: 'Points', format: 'INT' } })).status).toBe(201);
});
afterAll(() => herald?.stop());

async function userKey(permissions: string[], email: string): Promise<string> {
  const user = await api.call('POST', '/users', { json: { email, password: 'password12', permissions } });
  expect(user.status).toBe(201);
  return (await api.call('POST', `/users/${user.body.data.id}/keys`)).body.data.key;
}

const uploadCount = () => store.db.collection('files.files').countDocuments({ 'metadata.account': acme.account });

describe('invalid requests', () => {
  it('names every unknown list, interest and field, and refuses a source without an email column', async () => {
    const bad = await api.call('POST', '/contacts/import', { json: { sourceRaw: 'a@example.com,1\n', list: 9, interests: [1, '8'], columnFields: [3, 77] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'VALIDATION_ERROR' });
    expect(bad.body.error.validationErrors).toEqual({
      list: 'No list with id 9', 'interests[0]': 'No interest with id 1', 'interests[1]': 'No interest with id 8', 'columnFields[1]': 'No field with id 77',
    });
    const noEmail = await api.call('POST', '/contacts/import/preview', { json: { sourceRaw: 'name,city\nAda,London\n' } });
    expect(noEmail.status).toBe(400);
    expect(noEmail.body.error.validationErrors).toEqual({ columnFields: expect.stringMatching(/^No column holds email addresses/) });
    const twice = await api.call('POST', '/contacts/import', { json: { sourceRaw: 'a@example.com,b@example.com\n', columnFields: [3, 3] } });
    expect(twice.body.error.validationErrors).toEqual({ 'columnFields[1]': 'Field 3 is already read from column 0' });
    const options = await api.call('POST', '/contacts/import', {
      json: { sourceRaw: 'a@example.com\n', sourceFileEncoding: 'klingon', dateFormat: 'yyyy', mode: 'replace', columnSeparator: ';;' },
    });
    expect(Object.keys(options.body.error.validationErrors).sort()).toEqual(['columnSeparator', 'dateFormat', 'mode']);
    const encoding = await api.call('POST', '/contacts/import', { json: { sourceRaw: 'a@example.com\n', sourceFileEncoding: 'klingon' } });
    expect(encoding.body.error.validationErrors).toEqual({ sourceFileEncoding: 'Unknown encoding (try UTF-8 or ISO-8859-1)' });
    for (const body of [{}, { sourceRaw: 'a@example.com', sourceFile: 'upload-x.csv' }, { sourceFile: '../etc/passwd' }, { sourceRaw: 'x', list: { $gt: 0 } }]) {
      expect((await api.call('POST', '/contacts/import', { json: body })).status).toBe(400);
    }
    expect(await store.tasks.countDocuments({ account: acme.account })).toBe(0);
  });

  it('finds no sourceFile of another account (404), and refuses other accounts\' paths (403)', async () => {
    const theirs = await importClient(herald.baseUrl, () => other).upload('email\nx@example.com\n');
    expect(theirs.status).toBe(200);
    const mine = await api.call('POST', '/contacts/import', { json: { sourceFile: theirs.body.data.id } });
    expect(mine.status).toBe(404);
    expect(mine.body.error.type).toBe('NOT_FOUND');
    expect((await api.call('POST', '/contacts/import/preview', { json: { sourceFile: theirs.body.data.id } })).status).toBe(404);
    const crossed = await api.call('POST', '/contacts/import', { account: other.account, json: { sourceFile: theirs.body.data.id } });
    expect(crossed.status).toBe(403);
    expect((await api.call('POST', '/contacts/import/upload', { account: other.account, form: '' })).status).toBe(403);
  });
});

describe('rows with errors', () => {
  it('counts invalid rows, duplicates in the file and values that do not fit, and reports the first 100 with their row', async () => {
    const lines = ['email,Points'];
    for (let i = 0; i < 150; i++) lines.push(`bad${i}-at-example.com,${i}`);
    lines.push('ok@example.com,1', 'OK@example.com,2', 'pts@example.com,many', '', 'later@example.com,"unclosed');
    const task = await api.importAndWait({ sourceRaw: `${lines.join('\n')}\n` });
    expect(task).toMatchObject({ state: 'FINISHED', message: 'Imported 154 rows: 1 created, 0 updated, 0 ignored, 153 with errors' });
    expect(task.result).toMatchObject({ rows: 154, created: 1, errors: 153 });
    expect(task.result.errorSamples).toHaveLength(100);
    expect(task.result.errorSamples[0]).toEqual({ row: 2, message: 'Invalid email address "bad0-at-example.com"' });
    expect(task.result.errorSamples[99]).toEqual({ row: 101, message: 'Invalid email address "bad99-at-example.com"' });
    const last = await api.importAndWait({ sourceRaw: 'email,Points\nok2@example.com,1\nOK2@example.com,2\npts@example.com,many\n\n\nlater@example.com,"unclosed\n' });
    expect(last.result).toEqual({
      rows: 4, created: 1, updated: 0, ignored: 0, errors: 3, errorSamples: [
        { row: 3, message: 'Duplicate of row 2 (same email ok2@example.com)' },
        { row: 4, message: '"many" is not an integer for the field Points' },
        { row: 7, message: expect.stringMatching(/^Unreadable row: Quote Not Closed/) },
      ],
    });
  });
});

describe('uploads', () => {
  it('refuses other content types (415), a body without the file part (400) and an empty file (400)', async () => {
    const json = await api.call('POST', '/contacts/import/upload', { json: { fileToUpload: 'email\na@example.com' } });
    expect(json.status).toBe(415);
    expect(json.body.error.type).toBe('UNSUPPORTED_MEDIA_TYPE');
    const before = await uploadCount();
    const wrongPart = await api.upload('email\na@example.com\n', { field: 'file' });
    expect(wrongPart.status).toBe(400);
    expect(wrongPart.body.error.userMessage).toBe('No file in a part named fileToUpload');
    expect((await api.upload('')).status).toBe(400);
    expect(await uploadCount()).toBe(before);
  });

  it('stops an upload beyond the limit with 413 and keeps nothing of it, announced or streamed', async () => {
    const before = await uploadCount();
    const announced = await api.upload(Buffer.alloc(MAX_UPLOAD_BYTES + 1, 'a'));
    expect(announced.status).toBe(413);
    // Streamed without a length: the limit stops it as it arrives.
    const boundary = 'herald-test-boundary';
    const chunk = Buffer.alloc(1024 * 1024, 'b');
    let sent = 0;
    const body = new ReadableStream({
      pull(controller) {
        if (sent === 0) controller.enqueue(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fileToUpload"; filename="big.csv"\r\n\r\n`));
        if (sent * chunk.length > MAX_UPLOAD_BYTES + chunk.length) controller.close();
        else controller.enqueue(chunk);
        sent += 1;
      },
    });
    const response = await fetch(`${herald.baseUrl}/v2/${acme.account}/contacts/import/upload`, {
      method: 'POST', body, duplex: 'half', headers: { authorization: `Bearer ${acme.apiKey}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    } as RequestInit).catch((error: Error) => error);
    // The server answers 413 and closes the connection; the client may see the answer or the reset.
    if (response instanceof Response) expect(response.status).toBe(413);
    // The aborted upload's chunks are removed after the answer: wait for that (a busy machine took
    // longer than the 5 s this waited before), then check nothing is left.
    const chunks = () => store.db.collection('files.chunks').countDocuments({});
    await waitUntil('the refused upload to be removed', async () => (await uploadCount()) === before && (await chunks()) < 20).catch(() => undefined);
    expect(await uploadCount()).toBe(before);
    expect(await chunks()).toBeLessThan(20); // no 50 MB of chunks left behind
  });
});

describe('cancelling', () => {
  it('stops a running import: the task ends CANCELLED and stays so, with fewer contacts than the file has', async () => {
    const rows = 100_000;
    const csv = `email,Points\n${Array.from({ length: rows }, (_, i) => `many${i}@example.com,${i}`).join('\n')}\n`;
    const started = await api.call('POST', '/contacts/import', { json: { sourceFile: (await api.upload(csv, { filename: 'big.csv' })).body.data.id } });
    const id = started.body.task.id;
    for (let i = 0; i < 600; i++) {
      const { state } = (await api.call('GET', `/tasks/${id}`)).body.data;
      if (state === 'PROCESSING') break;
      expect(['QUEUED', 'INITIALIZING']).toContain(state);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const cancel = await api.call('POST', `/tasks/${id}/cancel`);
    expect(cancel.status).toBe(200);
    const workflow = herald.services.temporal.workflow.getHandle(`task-${acme.account}-${id}`);
    // The workflow ends either cancelled or, when its activity saw the CANCELLED task first, on its own.
    await workflow.result().catch((error: Error) => expect(error.message).toMatch(/cancel/i));
    // The activity stops before its next batch: wait until the count of contacts stops moving.
    const imported = () => store.contacts.countDocuments({ account: acme.account, email: /^many/ });
    let count = await imported();
    for (let previous = -1; previous !== count;) {
      previous = count;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      count = await imported();
    }
    expect(count).toBeGreaterThan(0);
    expect(count).toBeLessThan(rows);
    expect((await api.call('GET', `/tasks/${id}`)).body.data).toMatchObject({ state: 'CANCELLED', message: 'Cancelled', result: null });
  });
});

describe('permissions', () => {
  it('needs contacts:create to upload, preview and import, and contacts:update as well to OVERWRITE', async () => {
    const reader = await userKey(['contacts:list', 'tasks:list'], 'reader@example.com');
    const creator = await userKey(['contacts:create', 'tasks:list'], 'creator@example.com');
    const source = { sourceRaw: 'email\nperm@example.com\n' };
    expect((await api.upload('email\na@example.com\n', { key: reader })).status).toBe(403);
    for (const path of ['/contacts/import', '/contacts/import/preview']) {
      const denied = await api.call('POST', path, { key: reader, json: source });
      expect(denied.status).toBe(403);
      expect(denied.body.error.userMessage).toBe('Missing permission contacts:create');
    }
    const overwrite = await api.call('POST', '/contacts/import', { key: creator, json: { ...source, mode: 'OVERWRITE' } });
    expect(overwrite.status).toBe(403);
    expect(overwrite.body.error.userMessage).toMatch(/contacts:update/);
    expect((await api.upload('email\na@example.com\n', { key: creator })).status).toBe(200);
    const allowed = await api.call('POST', '/contacts/import', { key: creator, json: source });
    expect(allowed.status).toBe(201);
    expect(allowed.body.task.owner).toBe('creator');
    expect((await api.settled(allowed.body.task.id)).state).toBe('FINISHED');
    const listed = await api.call('GET', '/tasks', { key: creator });
    expect(listed.body.data[0]).toMatchObject({ id: allowed.body.task.id, type: 'CONTACT_IMPORT', state: 'FINISHED' });
  });
});
