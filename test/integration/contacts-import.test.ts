// Contacts import over HTTP on the real stack: upload, import followed through its task to the
// contacts it made, inline data as JSON and form, the original's options (modes, separators,
// quotes, encodings, dates, columns given or inferred), preview, and an export imported back.
// Errors, limits, cancelling and permissions: contacts-import-errors.test.ts.
import type { NewAccount } from '../../core/accounts/accounts';
import { findFile } from '../../adapters/store/files';
import type { Store } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import type { Json } from '../support/http';
import { importClient, type ImportClient } from '../support/import-client';

let herald: TestHerald;
let acme: NewAccount;
let store: Store;
let api: ImportClient;

beforeAll(async () => {
  herald = await startTestHerald();
  store = herald.services.store;
  acme = await herald.newAccount();
  api = importClient(herald.baseUrl, () => acme);
  const account = acme.account;
  const now = new Date();
  await store.lists.insertMany([1, 2].map((id) => ({ _id: `${account}:${id}`, account, id, name: `List ${id}`, description: '', tags: [], created: now, lastModified: now, lastMailed: null })));
  await store.interests.insertOne({ _id: `${account}:1`, account, id: 1, name: 'Cats', description: '', expirationDays: 0, created: now, lastModified: now, lastMailed: null });
  await store.counters.insertOne({ _id: `${account}:interests`, seq: 1 });
  for (const [name, format] of [['Customer number', 'INT'], ['Birthday', 'DATE'], ['City', 'TEXT']] as const) {
    expect((await api.call('POST', '/fields', { json: { name, format } })).status).toBe(201);
  }
});
afterAll(() => herald?.stop());

const contact = async (email: string): Promise<Json> => (await api.call('GET', `/contacts/${email}`)).body.data;
const value = (record: Json, name: string) => record.customFields.find((f: Json) => f.name === name)?.value;

describe('upload and import', () => {
  it('uploads a file, imports it as a task, and makes the contacts with lists, interests, custom fields and source', async () => {
    const csv = 'email,First name,Apellido,Customer number,Birthday,interests,City\n'
      + 'ada@example.com,Ada,Lovelace,42,1815-12-10,Cats|Dogs,London\n'
      + ' Alan@Example.com ,Alan,Turing,7,,dogs; birds,\n';
    const uploaded = await api.upload(csv, { filename: 'my people.csv' });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body).toEqual({ href: `/v2/${acme.account}/contacts/import/upload`, success: true, data: { id: expect.stringMatching(/^upload-[0-9a-f]{24}-my_people\.csv$/) } });

    const started = await api.call('POST', '/contacts/import', { json: { sourceFile: uploaded.body.data.id, list: 1, interests: [1], interestDefaultExpirationDays: 30 } });
    expect(started.status).toBe(201);
    expect(started.body.task).toEqual({
      id: expect.any(Number), type: 'CONTACT_IMPORT', name: 'Import my_people.csv', state: 'QUEUED', cancellable: true, message: 'Queued',
      owner: 'owner', created: expect.any(String), init: null, end: null, completed: 0, eta: -1, request: `/${acme.account}/contacts/import`,
      parameters: {
        type: 'CSV', sourceFile: uploaded.body.data.id, sourceFileEncoding: 'UTF-8', list: 1, interests: [1], mode: 'IGNORE', normalizeCase: false,
        interestColumn: 5, interestDefaultExpirationDays: 30, columnFields: [3, 1, 2, 10, 11, 0, 12], columnHeaders: true, columnSeparator: ',',
        stringDelimiter: '"', dateFormat: null,
      },
      result: null,
    });
    const task = await api.settled(started.body.task.id);
    expect(task).toMatchObject({ state: 'FINISHED', completed: 1, message: 'Imported 2 rows: 2 created, 0 updated, 0 ignored, 0 with errors' });
    expect(task.result).toEqual({ rows: 2, created: 2, updated: 0, ignored: 0, errors: 0, errorSamples: [] });

    const ada = await contact('ada@example.com');
    expect(ada).toMatchObject({ email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', source: 'IMPORTED_CSV', state: 'ACTIVE', lists: [{ id: 1, name: 'List 1' }] });
    expect(ada.interests.map((i: Json) => i.name).sort()).toEqual(['Cats', 'Dogs']);
    expect([value(ada, 'Customer number'), value(ada, 'Birthday'), value(ada, 'City')]).toEqual(['42', '1815-12-10', 'London']);
    const alan = await contact('alan@example.com');
    expect(alan.interests.map((i: Json) => i.name).sort()).toEqual(['Cats', 'Dogs', 'birds']); // "dogs" is the interest Dogs
    expect(value(alan, 'Birthday')).toBe('');
    const created = await store.interests.find({ account: acme.account, name: { $in: ['Dogs', 'birds'] } }).toArray();
    expect(created.map((i) => i.expirationDays)).toEqual([30, 30]);
    expect(await findFile(store, acme.account, uploaded.body.data.id)).not.toBeNull(); // an upload stays for another import
  });

  it('takes inline CSV (sourceRaw) as JSON and as a form, and keeps no copy of it once done', async () => {
    const json = await api.call('POST', '/contacts/import', { json: { sourceRaw: 'jay@example.com;Jay\nkay@example.com;Kay\n', columnFields: [3, 1], columnSeparator: ';' } });
    expect(json.status).toBe(201);
    expect(json.body.task).toMatchObject({ name: 'Import raw data', parameters: { sourceFile: expect.stringMatching(/^raw-/), columnHeaders: false, columnFields: [3, 1] } });
    expect((await api.settled(json.body.task.id)).result).toMatchObject({ rows: 2, created: 2 });
    expect(await findFile(store, acme.account, json.body.task.parameters.sourceFile)).toBeNull();
    expect((await contact('kay@example.com')).firstName).toBe('Kay');

    const form = await api.call('POST', '/contacts/import', {
      form: `type=CSV&sourceRaw=${encodeURIComponent('Nombre,Correo\nLee,lee@example.com\n')}&list=2&interests[]=1&normalizeCase=1&mode=overwrite`
        + '&columnFields[0]=1&columnFields[1]=3&columnHeaders=1&columnSeparator=%2C',
    });
    expect(form.status).toBe(201);
    expect(form.body.task.parameters).toMatchObject({ list: 2, interests: [1], normalizeCase: true, mode: 'OVERWRITE', columnFields: [1, 3], columnHeaders: true });
    expect((await api.settled(form.body.task.id)).result).toMatchObject({ rows: 1, created: 1 });
    expect(await contact('lee@example.com')).toMatchObject({ firstName: 'Lee', lists: [{ id: 2 }], interests: [{ id: 1, name: 'Cats' }] });
  });
});

describe('existing contacts', () => {
  beforeAll(async () => {
    expect((await api.call('POST', '/contacts', { json: { email: 'old@example.com', firstName: 'Old', lastName: 'Name', lists: [2], customFields: [{ id: 12, value: 'Paris' }] } })).status).toBe(200);
    expect((await api.call('POST', '/contacts', { json: { email: 'gone@example.com', firstName: 'Gone' } })).status).toBe(200);
    expect((await api.call('POST', '/contacts/gone@example.com/unsubscribe')).status).toBe(200);
  });
  const rows = 'email,firstName,lastName,City\nold@example.com,New,,\ngone@example.com,Back,Again,Rome\nfresh@example.com,Fresh,,\n';

  it('leaves them as they are with IGNORE, counting them as ignored', async () => {
    const task = await api.importAndWait({ sourceRaw: rows, list: 1, interests: [1], mode: 'IGNORE' });
    expect(task.result).toMatchObject({ rows: 3, created: 1, ignored: 2, updated: 0 });
    expect(await contact('old@example.com')).toMatchObject({ firstName: 'Old', lists: [{ id: 2 }], interests: [] });
    expect(await contact('gone@example.com')).toMatchObject({ firstName: 'Gone', state: 'UNSUBSCRIBED' });
  });

  it('updates them with the row\'s values with OVERWRITE, empty cells changing nothing, and never re-activates one', async () => {
    const task = await api.importAndWait({ sourceRaw: rows, list: 1, interests: [1], mode: 'OVERWRITE' });
    expect(task.result).toMatchObject({ rows: 3, created: 0, updated: 3, ignored: 0 });
    const old = await contact('old@example.com');
    expect(old).toMatchObject({ firstName: 'New', lastName: 'Name', source: 'MANUAL', state: 'ACTIVE', interests: [{ id: 1, name: 'Cats' }] });
    expect(old.lists.map((l: Json) => l.id)).toEqual([2, 1]);
    expect(value(old, 'City')).toBe('Paris');
    expect(await contact('gone@example.com')).toMatchObject({ firstName: 'Back', lastName: 'Again', state: 'UNSUBSCRIBED' });
  });
});

describe('options', () => {
  it('infers a `;` separator and Spanish headers, and reads values quoted with `\'`', async () => {
    const csv = 'Correo electrónico;Nombre;Sexo;Idioma\n\'quote@example.com\';\'Doe; Jane\';f;ES\n';
    const task = await api.importAndWait({ sourceRaw: csv, stringDelimiter: '\'' });
    expect(task.parameters).toMatchObject({ columnSeparator: ';', stringDelimiter: '\'', columnHeaders: true, columnFields: [3, 1, 4, 5] });
    expect(await contact('quote@example.com')).toMatchObject({ firstName: 'Doe; Jane', gender: 'F', language: 'es' });
  });

  it('finds the email column of a file without a header, or takes explicit columnFields', async () => {
    const inferred = await api.importAndWait({ sourceRaw: 'Noel\tnoel@example.com\nOla\tola@example.com\n' });
    expect(inferred.parameters).toMatchObject({ columnSeparator: '\t', columnHeaders: false, columnFields: [0, 3] });
    expect((await contact('noel@example.com')).firstName).toBe('');
    const explicit = await api.importAndWait({ sourceRaw: 'x|pia@example.com|Pia|Nord\n', columnFields: ['', '3', '1', 0], columnSeparator: '|' });
    expect(explicit.parameters.columnFields).toEqual([0, 3, 1, 0]);
    expect(await contact('pia@example.com')).toMatchObject({ firstName: 'Pia', lastName: '' });
  });

  it('reads an ISO-8859-1 file, named or recognised as not UTF-8', async () => {
    const latin1 = Buffer.from('email,firstName,lastName\njose@example.com,José,Muñoz\n', 'latin1');
    const named = await api.importAndWait({ sourceFile: (await api.upload(latin1)).body.data.id, sourceFileEncoding: 'ISO-8859-1' });
    expect(named.parameters.sourceFileEncoding).toBe('ISO-8859-1');
    expect(await contact('jose@example.com')).toMatchObject({ firstName: 'José', lastName: 'Muñoz' });
    const recognised = await api.importAndWait({ sourceFile: (await api.upload(Buffer.from('email,firstName\nzoe@example.com,Zoë\n', 'latin1'))).body.data.id });
    expect(recognised.parameters.sourceFileEncoding).toBe('ISO-8859-1');
    expect((await contact('zoe@example.com')).firstName).toBe('Zoë');
  });

  it('reads DATE fields in the given dateFormat (ISO always) and writes ISO dates; Title Case on request', async () => {
    const csv = 'email,Birthday,firstName\nd1@example.com,31/12/1990,mARY-jane o\'neil\nd2@example.com,1/2/1985,\nd3@example.com,2001-05-06,\nd4@example.com,31/02/1990,\n';
    const task = await api.importAndWait({ sourceRaw: csv, dateFormat: 'DD/MM/YYYY', normalizeCase: true });
    expect(task.result).toMatchObject({ rows: 4, created: 3, errors: 1, errorSamples: [{ row: 5, message: '"31/02/1990" is not a date (DD/MM/YYYY) for the field Birthday' }] });
    expect(value(await contact('d1@example.com'), 'Birthday')).toBe('1990-12-31');
    expect((await contact('d1@example.com')).firstName).toBe('Mary-Jane O\'Neil');
    expect(value(await contact('d3@example.com'), 'Birthday')).toBe('2001-05-06');
    const short = await api.importAndWait({ sourceRaw: 'email,Birthday\nd5@example.com,1/2/85\n', dateFormat: 'd/m/yy' });
    expect(short.result.created).toBe(1);
    expect(value(await contact('d5@example.com'), 'Birthday')).toBe('1985-02-01');
  });
});

describe('preview', () => {
  it('answers the options, the columns and the first 10 rows as contacts with their problems, writing nothing', async () => {
    const rows = Array.from({ length: 14 }, (_, i) => `p${i}@example.com,P${i},${i === 3 ? 'lots' : i}`);
    rows[1] = 'not-an-email,Bad,1';
    rows[4] = 'old@example.com,Again,4';
    const before = await store.contacts.countDocuments({ account: acme.account });
    const answer = await api.call('POST', '/contacts/import/preview', { json: { sourceRaw: `Email,Name,Customer number\n${rows.join('\n')}\n`, list: 1, mode: 'OVERWRITE' } });
    expect(answer.status).toBe(200);
    const { options, columns, contacts } = answer.body.data;
    expect(options).toEqual({
      type: 'CSV', sourceFileEncoding: 'UTF-8', list: 1, interests: [], mode: 'OVERWRITE', normalizeCase: false, interestColumn: null,
      interestDefaultExpirationDays: 0, columnFields: [3, 1, 10], columnHeaders: true, columnSeparator: ',', stringDelimiter: '"', dateFormat: null,
    });
    expect(columns).toEqual([
      { index: 0, header: 'Email', field: 3, fieldName: 'email', interests: false },
      { index: 1, header: 'Name', field: 1, fieldName: 'firstName', interests: false },
      { index: 2, header: 'Customer number', field: 10, fieldName: 'Customer number', interests: false },
    ]);
    expect(contacts).toHaveLength(10);
    expect(contacts[0]).toEqual({
      row: 2, action: 'create', email: 'p0@example.com', firstName: 'P0', customFields: [{ id: 10, name: 'Customer number', value: '0' }],
      lists: [{ id: 1, name: 'List 1' }], interests: [], problems: [],
    });
    expect(contacts[1]).toMatchObject({ row: 3, action: 'error', email: null, problems: ['Invalid email address "not-an-email"'] });
    expect(contacts[3]).toMatchObject({ action: 'error', problems: ['"lots" is not an integer for the field Customer number'] });
    expect(contacts[4]).toMatchObject({ action: 'update', email: 'old@example.com' });
    expect(await store.contacts.countDocuments({ account: acme.account })).toBe(before);
  });

  it('takes inline CSV beyond the 1 MB of other bodies (reading only its beginning)', async () => {
    const big = `email,firstName\n${Array.from({ length: 80_000 }, (_, i) => `big${i}@example.com,Big`).join('\n')}\n`;
    expect(big.length).toBeGreaterThan(1.5 * 1024 * 1024);
    const answer = await api.call('POST', '/contacts/import/preview', { json: { sourceRaw: big } });
    expect(answer.status).toBe(200);
    expect(answer.body.data.contacts.map((c: Json) => c.email)).toEqual(Array.from({ length: 10 }, (_, i) => `big${i}@example.com`));
    expect((await api.call('POST', '/lists', { json: { name: big.slice(0, 2 * 1024 * 1024) } })).status).toBe(413);
  });

  it('recognises the columns of an export, which imports back as it is', async () => {
    const exported = await api.call('POST', '/contacts/export', { json: { listId: 1 } });
    const { result } = await api.settled(exported.body.task.id);
    const csv = Buffer.from(await (await fetch(`${herald.baseUrl}${result.url}`, { headers: { authorization: `Bearer ${acme.apiKey}` } })).arrayBuffer());
    const preview = await api.call('POST', '/contacts/import/preview', { json: { sourceFile: (await api.upload(csv)).body.data.id } });
    expect(preview.body.data.options).toMatchObject({ columnHeaders: true, interestColumn: 13, columnFields: [0, 3, 1, 2, 4, 5, 7, 0, 0, 0, 0, 0, 0, 0, 10, 11, 12] });
    const again = await api.importAndWait({ sourceFile: preview.body.data.options.sourceFile, mode: 'OVERWRITE' });
    expect(again.result).toMatchObject({ rows: result.contacts, updated: result.contacts, errors: 0 });
    expect(value(await contact('ada@example.com'), 'Birthday')).toBe('1815-12-10');
  });
});
