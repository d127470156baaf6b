// Lists, interests and custom fields of the account API (/v2/{account}/lists|interests|fields):
// the generic REST convention over HTTP against the real stack, JSON and form bodies, listing
// options, permissions, other accounts, built-in fields, and what a delete does to contacts.
import type { NewAccount } from '../../core/accounts/accounts';
import type { ContactDoc, FieldDoc } from '../../adapters/store/store';
import { EXACT_LIST_COUNTS_BELOW } from '../../core/contacts/lists';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
  other = await herald.newAccount();
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, options: { key?: string; json?: unknown; form?: string } = {}) =>
  callHerald(herald.baseUrl, method, path, { ...options, headers: { authorization: `Bearer ${options.key ?? acme.apiKey}` } });

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
let contacts = 0;

/** A contact written straight into the store (the contacts API is not what is tested here). */
async function insertContact(account: string, fields: Partial<ContactDoc>): Promise<ContactDoc> {
  const id = 100_000 + (contacts += 1);
  const now = new Date();
  const contact: ContactDoc = {
    _id: `${account}:${id}`, account, id, email: `c${id}@example.com`, firstName: '', lastName: '', gender: '', language: '',
    preferredFormat: 'HTML', source: 'test', state: 'ACTIVE', quality: 0, lists: [], interests: [], customFields: {},
    created: now, lastModified: now, lastMailed: null, lastAction: null, inactivated: null, ...fields,
  };
  await herald.services.store.contacts.insertOne(contact);
  return contact;
}
const storedContact = (contact: ContactDoc) => herald.services.store.contacts.findOne({ _id: contact._id });

function expectValidationError(answer: { status: number; body: Json }, fields: string[]) {
  expect(answer.status).toBe(400);
  expect(answer.body.error.type).toBe('VALIDATION_ERROR');
  expect(Object.keys(answer.body.error.validationErrors).sort()).toEqual([...fields].sort());
}

describe('lists', () => {
  const base = () => `/v2/${acme.account}/lists`;

  it('creates a list from JSON: 201 with a Location and the full record, which GET shows too', async () => {
    const created = await call('POST', base(), { json: { name: '  Clients  ', description: 'Who bought', tags: ['vip', 'vip', 'ar'] } });
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    expect(created.headers.get('location')).toBe(`${base()}/${id}`);
    const record = {
      id, name: 'Clients', description: 'Who bought', created: ISO, lastMailed: null,
      activeContacts: 0, totalContacts: 0, quality: 0, tags: ['vip', 'ar'],
    };
    expect(created.body).toEqual({ href: base(), success: true, data: record });
    expect((await call('GET', `${base()}/${id}`)).body).toEqual({ href: `${base()}/${id}`, success: true, data: { ...record, created: created.body.data.created } });
  });

  it('creates a list from a form body with PHP-style tags[]', async () => {
    const created = await call('POST', base(), { form: 'name=Newsletter&description=Weekly&tags[]=news&tags[]=es' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${base()}/${created.body.data.id}`);
    expect(created.body.data).toMatchObject({ name: 'Newsletter', description: 'Weekly', tags: ['news', 'es'] });
  });

  it('modifies a list from JSON and form, answering the id and only what changed', async () => {
    const { id } = (await call('POST', base(), { json: { name: 'To change', tags: ['a'] } })).body.data;
    const put = await call('PUT', `${base()}/${id}`, { json: { name: 'To change', description: 'Now described' } });
    expect(put.body).toEqual({ href: `${base()}/${id}`, success: true, data: { id, description: 'Now described' } });
    const form = await call('PUT', `${base()}/${id}`, { form: 'tags[]=b&tags[]=c&name=Changed' });
    expect(form.body.data).toEqual({ id, name: 'Changed', tags: ['b', 'c'] });
    const empty = await fetch(`${herald.baseUrl}${base()}/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${acme.apiKey}`, 'content-type': 'application/json' } });
    expect(await empty.json()).toEqual({ href: `${base()}/${id}`, success: true, data: { id } });
    expect((await call('GET', `${base()}/${id}`)).body.data).toMatchObject({ name: 'Changed', description: 'Now described', tags: ['b', 'c'] });
  });

  it('counts its active and total contacts from the contacts', async () => {
    const { id } = (await call('POST', base(), { json: { name: 'Counted' } })).body.data;
    await insertContact(acme.account, { lists: [id] });
    await insertContact(acme.account, { lists: [id, 999], state: 'UNSUBSCRIBED' });
    await insertContact(acme.account, { lists: [999] });
    await insertContact(other.account, { lists: [id] });
    expect((await call('GET', `${base()}/${id}`)).body.data).toMatchObject({ activeContacts: 1, totalContacts: 2 });
    const listed = (await call('GET', `${base()}?q=Counted`)).body.data;
    expect(listed).toEqual([expect.objectContaining({ id, activeContacts: 1, totalContacts: 2 })]);
  });

  it('counts a large account\'s lists once per few seconds: the next requests show that count', async () => {
    const large = await herald.newAccount();
    const auth = { key: large.apiKey };
    const { id } = (await call('POST', `/v2/${large.account}/lists`, { ...auth, json: { name: 'Large' } })).body.data;
    const now = new Date();
    await herald.services.store.contacts.insertMany(Array.from({ length: EXACT_LIST_COUNTS_BELOW }, (_, i): ContactDoc => ({
      _id: `${large.account}:${i + 1}`, account: large.account, id: i + 1, email: `l${i}@example.com`, firstName: '', lastName: '', gender: '', language: '',
      preferredFormat: 'HTML', source: 'test', state: i % 5 === 0 ? 'UNSUBSCRIBED' : 'ACTIVE', quality: 0, lists: [id], interests: [], customFields: {},
      created: now, lastModified: now, lastMailed: null, lastAction: null, inactivated: null,
    })));
    const counted = { activeContacts: EXACT_LIST_COUNTS_BELOW * 0.8, totalContacts: EXACT_LIST_COUNTS_BELOW };
    expect((await call('GET', `/v2/${large.account}/lists/${id}`, auth)).body.data).toMatchObject(counted);
    await insertContact(large.account, { lists: [id] });
    // Served from the count just made (or, past COUNT_TTL_MS, still shown while it is redone).
    expect((await call('GET', `/v2/${large.account}/lists`, auth)).body.data).toEqual([expect.objectContaining({ id, ...counted })]);
  });

  it('deletes a list: 200 {href, success}, then 404, and no contact is in it any more', async () => {
    const { id } = (await call('POST', base(), { json: { name: 'Doomed' } })).body.data;
    const member = await insertContact(acme.account, { lists: [1, id] });
    const deleted = await call('DELETE', `${base()}/${id}`, { form: '' });
    expect(deleted).toMatchObject({ status: 200, body: { href: `${base()}/${id}`, success: true } });
    expect(Object.keys(deleted.body)).toEqual(['href', 'success']);
    expect((await storedContact(member))?.lists).toEqual([1]);
    expect((await call('GET', `${base()}/${id}`)).status).toBe(404);
    expect((await call('DELETE', `${base()}/${id}`)).status).toBe(404);
  });

  it('answers VALIDATION_ERROR naming every bad field', async () => {
    expectValidationError(await call('POST', base(), { json: {} }), ['name']);
    expectValidationError(await call('POST', base(), { json: { name: '   ' } }), ['name']);
    expectValidationError(await call('POST', base(), { json: [] }), ['body']);
    expectValidationError(await call('POST', base(), {
      json: { name: 'n'.repeat(101), description: 'd'.repeat(1001), tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
    }), ['name', 'description', 'tags']);
    expectValidationError(await call('POST', base(), { form: `name=ok&tags[]=${'t'.repeat(51)}` }), ['tags[0]']);
  });
});

describe('interests', () => {
  const base = () => `/v2/${acme.account}/interests`;

  it('creates an interest from JSON (expirationDays as a number or a string), 201 with a Location', async () => {
    const created = await call('POST', base(), { json: { name: 'Sports', description: 'Likes sports', expirationDays: 30 } });
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    expect(created.headers.get('location')).toBe(`${base()}/${id}`);
    expect(created.body.data).toEqual({ id, name: 'Sports', description: 'Likes sports', expirationDays: 30, created: ISO });
    expect((await call('GET', `${base()}/${id}`)).body.data).toEqual(created.body.data);
    expect((await call('POST', base(), { json: { name: 'Music', expirationDays: '15' } })).body.data).toMatchObject({ expirationDays: 15 });
    expect((await call('POST', base(), { json: { name: 'Forever' } })).body.data).toMatchObject({ description: '', expirationDays: 0 });
  });

  it('creates and modifies an interest from form bodies, answering only what changed', async () => {
    const created = await call('POST', base(), { form: 'name=Travel&description=Trips&expirationDays=90' });
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    expect(created.body.data).toMatchObject({ name: 'Travel', description: 'Trips', expirationDays: 90 });
    expect((await call('PUT', `${base()}/${id}`, { form: 'name=Travel&expirationDays=7' })).body.data).toEqual({ id, expirationDays: 7 });
    expect((await call('PUT', `${base()}/${id}`, { json: { description: 'Holidays' } })).body.data).toEqual({ id, description: 'Holidays' });
    expect((await call('GET', `${base()}/${id}`)).body.data).toMatchObject({ name: 'Travel', description: 'Holidays', expirationDays: 7 });
  });

  it('refuses a negative, fractional or non-numeric expirationDays', async () => {
    for (const expirationDays of [-1, '-1', 1.5, 'abc', '', 36501]) {
      expectValidationError(await call('POST', base(), { json: { name: 'x', expirationDays } }), ['expirationDays']);
    }
    expectValidationError(await call('POST', base(), { form: 'name=x&expirationDays=soon' }), ['expirationDays']);
  });

  it('deletes an interest and takes it off every contact', async () => {
    const { id } = (await call('POST', base(), { json: { name: 'Doomed interest' } })).body.data;
    const member = await insertContact(acme.account, { interests: [{ id: 1, subscribed: new Date() }, { id, subscribed: new Date() }] });
    expect((await call('DELETE', `${base()}/${id}`)).body).toEqual({ href: `${base()}/${id}`, success: true });
    expect((await storedContact(member))?.interests.map((i) => i.id)).toEqual([1]);
    expect((await call('GET', `${base()}/${id}`)).status).toBe(404);
  });
});

describe('fields', () => {
  const BUILT_IN = [
    { id: 1, name: 'firstName', tag: 'FIRSTNAME', format: 'TEXT', custom: false },
    { id: 2, name: 'lastName', tag: 'LASTNAME', format: 'TEXT', custom: false },
    { id: 3, name: 'email', tag: 'EMAIL', format: 'EMAIL', custom: false },
    { id: 4, name: 'gender', tag: 'GENDER', format: 'TEXT', custom: false },
    { id: 5, name: 'language', tag: 'LANGUAGE', format: 'TEXT', custom: false },
    { id: 7, name: 'preferredFormat', tag: 'PREFERREDFORMAT', format: 'TEXT', custom: false },
  ];
  let account: NewAccount;
  const base = () => `/v2/${account.account}/fields`;
  const as = () => ({ key: account.apiKey });
  beforeAll(async () => { account = await herald.newAccount(); });

  it('lists the built-in fields of a new account, and shows each by id (6, 8, 9 are 404)', async () => {
    const listed = await call('GET', base(), as());
    expect(listed.body).toEqual({
      href: base(), success: true, data: BUILT_IN,
      paging: { offset: 0, limit: 20, results: 6, total: 6 }, sort: { sortby: 'id', sortdir: 'asc' },
    });
    for (const field of BUILT_IN) expect((await call('GET', `${base()}/${field.id}`, as())).body.data).toEqual(field);
    for (const id of [6, 8, 9, 0]) expect((await call('GET', `${base()}/${id}`, as())).status).toBe(404);
  });

  it('creates custom fields from ids 10, the tag made of the name unless given, TEXT by default', async () => {
    const json = await call('POST', base(), { ...as(), json: { name: 'Número de cliente' } });
    expect(json.status).toBe(201);
    expect(json.headers.get('location')).toBe(`${base()}/10`);
    expect(json.body.data).toEqual({ id: 10, name: 'Número de cliente', tag: 'NUMERODECLIENTE', format: 'TEXT', custom: true });
    const form = await call('POST', base(), { ...as(), form: 'name=Birthday&tag=b_day&format=DATE' });
    expect(form.status).toBe(201);
    expect(form.headers.get('location')).toBe(`${base()}/11`);
    expect(form.body.data).toEqual({ id: 11, name: 'Birthday', tag: 'B_DAY', format: 'DATE', custom: true });
    expect((await call('GET', `${base()}/11`, as())).body.data).toEqual(form.body.data);
  });

  it('refuses a taken tag (custom or built-in, any letter case) with 409 RESOURCE_EXISTS', async () => {
    for (const body of [{ name: 'Other', tag: 'numerodecliente' }, { name: 'Mail', tag: 'EMAIL' }, { name: 'Numero de cliente' }]) {
      const answer = await call('POST', base(), { ...as(), json: body });
      expect(answer.status).toBe(409);
      expect(answer.body.error).toEqual({ status: 409, type: 'RESOURCE_EXISTS', userMessage: expect.any(String), validationErrors: { tag: expect.any(String) } });
    }
    const put = await call('PUT', `${base()}/11`, { ...as(), form: 'tag=NumeroDeCliente' });
    expect(put.status).toBe(409);
    expect(put.body.error.validationErrors).toEqual({ tag: expect.any(String) });
  });

  it('lets exactly one of ten simultaneous creates take a tag (a unique index decides)', async () => {
    const racer = await herald.newAccount(); // its own account: the other tests count acme's fields
    const fields = `/v2/${racer.account}/fields`;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call('POST', fields, { key: racer.apiKey, json: { name: `Race ${i}`, tag: 'RACE' } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...new Array(9).fill(409)]);
    const listed = (await call('GET', `${fields}?limit=1000`, { key: racer.apiKey })).body.data;
    expect(listed.filter((f: Json) => f.tag === 'RACE')).toHaveLength(1);
  });

  it('answers VALIDATION_ERROR for a bad format or tag, or a name with nothing to make a tag of', async () => {
    expectValidationError(await call('POST', base(), { ...as(), json: { name: 'x', format: 'BOOL' } }), ['format']);
    expectValidationError(await call('POST', base(), { ...as(), json: { name: 'x', tag: 'has space' } }), ['tag']);
    expectValidationError(await call('POST', base(), { ...as(), json: { name: '¿¡!?' } }), ['tag']);
  });

  it('modifies name and tag, answering only what changed; the format only stays as it is', async () => {
    expect((await call('PUT', `${base()}/11`, { ...as(), json: { name: 'Birth date', format: 'DATE', custom: true, id: 99 } })).body)
      .toEqual({ href: `${base()}/11`, success: true, data: { id: 11, name: 'Birth date' } });
    expect((await call('PUT', `${base()}/11`, { ...as(), form: 'tag=birthdate' })).body.data).toEqual({ id: 11, tag: 'BIRTHDATE' });
    expectValidationError(await call('PUT', `${base()}/11`, { ...as(), json: { format: 'INT' } }), ['format']);
    expect((await call('GET', `${base()}/11`, as())).body.data).toEqual({ id: 11, name: 'Birth date', tag: 'BIRTHDATE', format: 'DATE', custom: true });
  });

  it('refuses to modify or delete a built-in field with 400 BAD_REQUEST', async () => {
    for (const [method, id] of [['PUT', 1], ['DELETE', 3], ['PUT', 7]] as const) {
      const answer = await call(method, `${base()}/${id}`, { ...as(), json: { name: 'x' } });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual({ status: 400, type: 'BAD_REQUEST', userMessage: expect.stringContaining('built-in') });
    }
    expect((await call('PUT', `${base()}/6`, { ...as(), json: { name: 'x' } })).status).toBe(404);
  });

  it('sorts and pages built-in and custom fields together, and finds them by name with *', async () => {
    const byName = await call('GET', `${base()}?sortBy=NAME&sortDir=DESC&limit=3&offset=2`, as());
    // Code-unit order, as MongoDB sorts: lower case after upper case.
    expect(byName.body.data.map((f: Json) => f.name)).toEqual(['language', 'gender', 'firstName']);
    expect(byName.body.paging).toEqual({ offset: 2, limit: 3, results: 3, total: 8 });
    expect(byName.body.sort).toEqual({ sortby: 'name', sortdir: 'desc' });
    const found = await call('GET', `${base()}?q=*NAME`, as());
    expect(found.body.data.map((f: Json) => f.id)).toEqual([1, 2]);
    expect(found.body.paging.total).toBe(2);
    expect((await call('GET', `${base()}?q=birth*&limit=1000`, as())).body.data.map((f: Json) => f.id)).toEqual([11]);
  });

  it('deletes a custom field and its value on every contact', async () => {
    const member = await insertContact(account.account, { customFields: { 10: '42', 11: '2000-01-01' } });
    expect((await call('DELETE', `${base()}/10`, as())).body).toEqual({ href: `${base()}/10`, success: true });
    expect((await storedContact(member))?.customFields).toEqual({ 11: '2000-01-01' });
    expect((await call('GET', `${base()}/10`, as())).status).toBe(404);
    expect((await call('DELETE', `${base()}/10`, as())).status).toBe(404);
    // The tag is free again; ids are never given twice.
    expect((await call('POST', base(), { ...as(), json: { name: 'Número de cliente' } })).body.data).toMatchObject({ id: 12, tag: 'NUMERODECLIENTE' });
  });

  it('allows at most 200 custom fields in an account', async () => {
    const full = await herald.newAccount();
    const now = new Date();
    const docs: FieldDoc[] = Array.from({ length: 200 }, (_, i) => ({
      _id: `${full.account}:${10 + i}`, account: full.account, id: 10 + i, name: `Field ${i}`, tag: `FIELD${i}`, format: 'TEXT', created: now, lastModified: now,
    }));
    await herald.services.store.fields.insertMany(docs);
    const refused = await call('POST', `/v2/${full.account}/fields`, { key: full.apiKey, json: { name: 'One too many' } });
    expectValidationError(refused, ['fields']);
    const all = await call('GET', `/v2/${full.account}/fields?limit=1000`, { key: full.apiKey });
    expect(all.body.paging).toEqual({ offset: 0, limit: 1000, results: 206, total: 206 });
    expect(all.body.data.at(-1)).toEqual({ id: 209, name: 'Field 199', tag: 'FIELD199', format: 'TEXT', custom: true });
  });
});

describe('listing options', () => {
  let account: NewAccount;
  beforeAll(async () => {
    account = await herald.newAccount();
    for (const name of ['alpha', 'Beta', 'gamma', 'delta list']) {
      expect((await call('POST', `/v2/${account.account}/lists`, { key: account.apiKey, json: { name } })).status).toBe(201);
      expect((await call('POST', `/v2/${account.account}/interests`, { key: account.apiKey, json: { name } })).status).toBe(201);
    }
  });
  const names = async (path: string) => {
    const answer = await call('GET', `/v2/${account.account}${path}`, { key: account.apiKey });
    expect(answer.status).toBe(200);
    return answer.body.data.map((x: Json) => x.name);
  };

  it.each(['lists', 'interests'])('%s: by name ascending by default, limit 10, sort and paging echoed', async (namespace) => {
    const answer = await call('GET', `/v2/${account.account}/${namespace}`, { key: account.apiKey });
    expect(answer.body.data.map((x: Json) => x.name)).toEqual(['Beta', 'alpha', 'delta list', 'gamma']);
    expect(answer.body.paging).toEqual({ offset: 0, limit: 10, results: 4, total: 4 });
    expect(answer.body.sort).toEqual({ sortby: 'name', sortdir: 'asc' });
  });

  it.each(['lists', 'interests'])('%s: sortBy/SORTDIR in any letter case, offset and limit up to 1000', async (namespace) => {
    expect(await names(`/${namespace}?SortBy=CREATED&SORTDIR=Desc`)).toEqual(['delta list', 'gamma', 'Beta', 'alpha']);
    expect(await names(`/${namespace}?sortby=lastmailed&sortdir=asc&limit=2&offset=1`)).toEqual(['Beta', 'gamma']);
    expect(await names(`/${namespace}?limit=1000`)).toHaveLength(4);
  });

  it.each(['lists', 'interests'])('%s: q finds by name, case-blind, with * wildcards', async (namespace) => {
    expect(await names(`/${namespace}?q=*TA*`)).toEqual(['Beta', 'delta list']);
    expect(await names(`/${namespace}?q=alpha`)).toEqual(['alpha']);
    expect(await names(`/${namespace}?q=alp`)).toEqual([]);
    expect(await names(`/${namespace}?q=*.*`)).toEqual([]);
  });

  it.each([
    ['lists', 'limit=1001', 'limit'], ['lists', 'sortby=email', 'sortby'], ['lists', 'filter[$where]=1', 'filter[$where]'],
    ['interests', 'limit=1001', 'limit'], ['interests', 'sortby=id', 'sortby'], ['interests', 'filter[$where]=1', 'filter[$where]'],
    ['fields', 'limit=1001', 'limit'], ['fields', 'sortby=created', 'sortby'], ['fields', 'filter[$where]=1', 'filter[$where]'],
  ])('%s?%s is VALIDATION_ERROR', async (namespace, query, field) => {
    const answer = await call('GET', `/v2/${account.account}/${namespace}?${query}`, { key: account.apiKey });
    expect(answer.status).toBe(400);
    expect(answer.body.error.type).toBe('VALIDATION_ERROR');
    expect(Object.keys(answer.body.error.validationErrors)).toContain(field);
  });
});

describe('ids, permissions and other accounts', () => {
  it.each(['lists', 'interests', 'fields'])('/%s/{id}: 404 NOT_FOUND for an unknown or non-integer id, on every method', async (namespace) => {
    for (const id of ['999999', 'abc', '1.5', '-1', '1e3', '0x10', '99999999999']) {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const answer = await call(method, `/v2/${acme.account}/${namespace}/${id}`, method === 'PUT' ? { json: { name: 'x' } } : {});
        expect([method, id, answer.status, answer.body.error.type]).toEqual([method, id, 404, 'NOT_FOUND']);
      }
    }
  });

  it('refuses each action without its permission with 403 FORBIDDEN', async () => {
    const user = await call('POST', `/v2/${acme.account}/users`, { json: { email: 'lists-reader@example.com', password: 'password12', permissions: ['lists:list'] } });
    const { key } = (await call('POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`)).body.data;
    const { id } = (await call('POST', `/v2/${acme.account}/lists`, { json: { name: 'Guarded' } })).body.data;
    expect((await call('GET', `/v2/${acme.account}/lists`, { key })).status).toBe(200);
    expect((await call('GET', `/v2/${acme.account}/lists/${id}`, { key })).status).toBe(200);
    const denied = await call('POST', `/v2/${acme.account}/lists`, { key, json: { name: 'Sneaky' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toEqual({ status: 403, type: 'FORBIDDEN', userMessage: 'Missing permission lists:create' });
    for (const [method, path, permission] of [
      ['PUT', `/lists/${id}`, 'lists:update'], ['DELETE', `/lists/${id}`, 'lists:delete'],
      ['GET', '/interests', 'interests:list'], ['POST', '/interests', 'interests:create'],
      ['GET', '/fields/1', 'fields:list'], ['POST', '/fields', 'fields:create'], ['DELETE', '/fields/10', 'fields:delete'],
    ]) {
      const answer = await call(method, `/v2/${acme.account}${path}`, { key, ...(method !== 'GET' ? { json: { name: 'x' } } : {}) });
      expect([path, answer.status, answer.body.error.userMessage]).toEqual([path, 403, `Missing permission ${permission}`]);
    }
    expect((await call('GET', `/v2/${acme.account}/lists/${id}`)).body.data.name).toBe('Guarded');
  });

  describe('another account', () => {
    // The other account owns list 1, interest 1 and field 10: the routes below would reach them.
    beforeAll(async () => {
      for (const namespace of ['lists', 'interests', 'fields']) {
        expect((await call('POST', `/v2/${other.account}/${namespace}`, { key: other.apiKey, json: { name: 'Theirs' } })).status).toBe(201);
      }
    });
    const routes = ['lists', 'interests', 'fields'].flatMap((namespace): Array<[string, string]> => [
      ['GET', `/${namespace}`], ['POST', `/${namespace}`], ['GET', `/${namespace}/1`], ['PUT', `/${namespace}/1`], ['DELETE', `/${namespace}/1`],
      ['GET', `/${namespace}/10`], ['PUT', `/${namespace}/10`], ['DELETE', `/${namespace}/10`],
    ]);
    it.each(routes)('%s /v2/<other>%s with this account\'s key is 403 and shows nothing', async (method, path) => {
      const answer = await call(method, `/v2/${other.account}${path}`, method === 'POST' || method === 'PUT' ? { json: { name: 'Intruder' } } : {});
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ href: `/v2/${other.account}${path}`, success: false, error: { status: 403, type: 'FORBIDDEN', userMessage: expect.any(String) } });
    });

    it('left the other account untouched', async () => {
      for (const namespace of ['lists', 'interests']) {
        expect((await call('GET', `/v2/${other.account}/${namespace}`, { key: other.apiKey })).body.data.map((x: Json) => [x.id, x.name])).toEqual([[1, 'Theirs']]);
      }
      const fields = (await call('GET', `/v2/${other.account}/fields`, { key: other.apiKey })).body.data;
      expect(fields.filter((f: Json) => f.custom).map((f: Json) => [f.id, f.name])).toEqual([[10, 'Theirs']]);
    });
  });
});
