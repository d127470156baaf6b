// Templates of the account API (/v2/{account}/templates…) over HTTP against the real stack:
// HTML and MJML templates and folders with path ids, listings and their filters, the bodies
// (.html, .json, .txt, /preview), rename, move, new bodies, MJML errors, deletes, permissions,
// form bodies, and the lookup the transactional send will use.
import type { NewAccount } from '../../core/accounts/accounts';
import { findTemplateForSend } from '../../core/content/templates';
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
/** A GET whose answer is not JSON. */
async function getText(path: string, key = acme.apiKey) {
  const response = await fetch(`${herald.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const base = () => `/v2/${acme.account}/templates`;
/** The URL of a template by its id (`/3/12` → `…/templates/3/12`). */
const at = (id: string) => `${base()}${id}`;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const ID = expect.stringMatching(/^\/\d+$/);

const MJML = `<mjml>
  <mj-body>
    <mj-section>
      <mj-column>
        <mj-text>Hello {{name}}</mj-text>
      </mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

async function create(body: Json, owner: NewAccount = acme): Promise<Json> {
  const answer = await call('POST', `/v2/${owner.account}/templates`, { json: body, key: owner.apiKey });
  expect([answer.status, answer.body.error]).toEqual([201, undefined]);
  return answer.body.data;
}
const folder = (name: string) => create({ name, type: 'FOLDER' });

function expectValidationError(answer: { status: number; body: Json }, fields: string[]) {
  expect(answer.status).toBe(400);
  expect(answer.body.error.type).toBe('VALIDATION_ERROR');
  expect(Object.keys(answer.body.error.validationErrors).sort()).toEqual([...fields].sort());
}

describe('create and read', () => {
  it('creates an HTML template: 201, a Location, the record with a path id; GET by that path shows it', async () => {
    const created = await call('POST', base(), {
      json: {
        name: ' Welcome ', type: 'html', htmlRaw: '<p>Hi {{name}}</p>', subject: 'Welcome!',
        from: { email: 'news@acme.example', name: 'Acme' }, reply_to: { email: 'help@acme.example' },
      },
    });
    expect(created.status).toBe(201);
    const record = {
      id: ID, type: 'HTML', name: 'Welcome', location: '/', created: ISO, lastModified: ISO, thumbnail: null,
      subject: 'Welcome!', from: { email: 'news@acme.example', name: 'Acme' }, reply_to: { email: 'help@acme.example' }, version: 1,
    };
    expect(created.body).toEqual({ href: base(), success: true, data: record });
    const { id } = created.body.data;
    expect(created.headers.get('location')).toBe(at(id));
    expect(await call('GET', at(id))).toMatchObject({ status: 200, body: { href: at(id), success: true, data: created.body.data } });
  });

  it('creates an MJML template, compiled once: .html is the compiled HTML, .json has both', async () => {
    const template = await create({ name: 'Newsletter', type: 'MJML', mjmlRaw: MJML });
    expect(template).toMatchObject({ type: 'MJML', location: '/', version: 1, subject: null, from: null, reply_to: null });
    const html = await getText(`${at(template.id)}.html`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(html.text).toMatch(/^<!doctype html>/i);
    expect(html.text).toContain('Hello {{name}}');
    expect(html.text).not.toContain('<mj-');
    expect((await getText(`${at(template.id)}.txt`)).text).toBe('Hello {{name}}');
    const json = await call('GET', `${at(template.id)}.json`);
    expect(json.body).toEqual({
      href: `${at(template.id)}.json`, success: true, data: { html: html.text, mjml: MJML, subject: null, from: null, reply_to: null },
    });
  });

  it('serves an HTML template as .html (as given), .json, .txt and a full preview document', async () => {
    const source = '<html><head><style>p{color:red}</style><title>T</title></head><body><h1>News &amp; offers</h1>'
      + '<p>Hello <b>there</b>,<br>see <a href="https://acme.example/sale">our sale</a>.</p><ul><li>One</li><li>Two</li></ul>'
      + '<script>alert(1)</script><!-- hidden --><p>2 &lt; 3&nbsp;&#8364;</p></body></html>';
    const template = await create({ name: 'Offers', type: 'HTML', htmlRaw: source, subject: 'Offers' });
    expect((await getText(`${at(template.id)}.html`)).text).toBe(source);
    expect((await call('GET', `${at(template.id)}.json`)).body.data).toEqual({ html: source, subject: 'Offers', from: null, reply_to: null });
    const text = await getText(`${at(template.id)}.txt`);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.text).toBe('News & offers\n\nHello there,\nsee our sale (https://acme.example/sale).\n\n* One\n* Two\n\n2 < 3 €');
    // A full document is served as it is; a fragment is wrapped in one.
    expect((await getText(`${at(template.id)}/preview`)).text).toBe(source);
    const fragment = await create({ name: 'Frag <b>', type: 'HTML', htmlRaw: '<p>Just this</p>' });
    const preview = await getText(`${at(fragment.id)}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(preview.text).toMatch(/^<!doctype html>\n<html>/);
    expect(preview.text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(preview.text).toContain('<title>Frag &lt;b&gt;</title>');
    expect(preview.text).toContain('<body>\n<p>Just this</p>\n</body>');
  });

  it('creates from a form body (PHP-style nested from[email])', async () => {
    const created = await call('POST', base(), {
      form: 'name=Form+made&type=Html&htmlRaw=%3Cp%3EHi%3C%2Fp%3E&subject=Hello&from[email]=a%40acme.example&from[name]=A',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Form made', type: 'HTML', subject: 'Hello', from: { email: 'a@acme.example', name: 'A' } });
    expect((await getText(`${at(created.body.data.id)}.html`)).text).toBe('<p>Hi</p>');
  });

  it('creates a template inside a folder: its id is the folder\'s path and its own number', async () => {
    const box = await folder('Campaigns');
    expect(box).toEqual({
      id: ID, type: 'FOLDER', name: 'Campaigns', location: '/', created: ISO, lastModified: ISO, thumbnail: null,
      subject: null, from: null, reply_to: null,
    });
    const inside = await create({ name: 'Inside', type: 'HTML', htmlRaw: '<p>in</p>', location: box.id });
    expect(inside.id).toMatch(new RegExp(`^${box.id}/\\d+$`));
    expect(inside.location).toBe(box.id);
    const read = await call('GET', at(inside.id));
    expect(read).toMatchObject({ status: 200, body: { href: at(inside.id), data: { id: inside.id, name: 'Inside' } } });
    // The id URL-encoded as one segment reaches the same template.
    expect((await call('GET', `${base()}/${encodeURIComponent(inside.id)}`)).body.data.id).toBe(inside.id);
    // So does the id pasted after a slash, as a client joining "templates/" and the id would write it.
    expect((await call('GET', `${base()}/${inside.id}`)).body.data.id).toBe(inside.id);
    expect((await getText(`${at(inside.id)}.html`)).text).toBe('<p>in</p>');
    expect((await getText(`${at(inside.id)}/preview`)).status).toBe(200);
  });

  it('answers 404 for unknown ids, malformed ids, folder bodies and other accounts\' templates', async () => {
    const box = await folder('Empty box');
    // Numbers are per account: the other's template sits in a folder, at an id this account lacks.
    const theirFolder = await create({ name: 'Their folder', type: 'FOLDER' }, other);
    const theirs = await create({ name: 'Theirs', type: 'HTML', htmlRaw: '<p>x</p>', location: theirFolder.id }, other);
    expect(await herald.services.store.db.collection('templates').countDocuments({ account: acme.account, id: theirs.id })).toBe(0);
    for (const path of [at('/999999'), at('/1/2/3'), at('/abc'), `${at('/999999')}.html`, `${at(box.id)}.html`, `${at(box.id)}.txt`,
      `${at(box.id)}.json`, `${at(box.id)}/preview`, at(theirs.id), `${at(theirs.id)}.html`]) {
      const answer = await call('GET', path);
      expect([path, answer.status, answer.body?.error?.type]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect((await call('PUT', at('/999999'), { json: { name: 'x' } })).status).toBe(404);
    expect((await call('DELETE', at('/999999'))).status).toBe(404);
    expect((await call('DELETE', at(theirs.id))).status).toBe(404);
    expect((await call('GET', `/v2/${other.account}/templates${theirs.id}`, { key: other.apiKey })).status).toBe(200);
  });
});

describe('validation', () => {
  it('refuses htmlUrl and htmlFile by name: Herald fetches nothing', async () => {
    const answer = await call('POST', base(), { json: { name: 'Remote', type: 'HTML', htmlUrl: 'http://169.254.169.254/latest/meta-data' } });
    expectValidationError(answer, ['htmlUrl']);
    expect(answer.body.error.validationErrors.htmlUrl).toMatch(/not supported/i);
    expectValidationError(await call('POST', base(), { form: 'name=F&type=HTML&htmlFile=x' }), ['htmlFile']);
    const put = await call('PUT', at((await create({ name: 'P', type: 'HTML', htmlRaw: '<p>p</p>' })).id), { json: { htmlUrl: 'https://x.example' } });
    expectValidationError(put, ['htmlUrl']);
  });

  it('answers an MJML error with VALIDATION_ERROR on mjmlRaw naming its line, and keeps nothing', async () => {
    const before = (await call('GET', `${base()}?filter[type]=mjml`)).body.paging.total;
    const broken = MJML.replace('<mj-text>', '<mj-txt>').replace('</mj-text>', '</mj-txt>');
    const answer = await call('POST', base(), { json: { name: 'Broken', type: 'MJML', mjmlRaw: broken } });
    expectValidationError(answer, ['mjmlRaw']);
    expect(answer.body.error.validationErrors.mjmlRaw).toMatch(/line 5: Element mj-txt doesn't exist/);
    expect(answer.body.error.validationErrors.mjmlRaw).not.toContain(process.cwd());
    const illegal = await call('POST', base(), { json: { name: 'Illegal', type: 'MJML', mjmlRaw: MJML.replace('<mj-text>', '<mj-text foo="bar">') } });
    expect(illegal.body.error.validationErrors.mjmlRaw).toMatch(/line 5: Attribute foo is illegal/);
    const html = await call('POST', base(), { json: { name: 'Html', type: 'MJML', mjmlRaw: '<p>html</p>' } });
    expect(html.body.error.validationErrors.mjmlRaw).toBe('Invalid MJML, line 1: Element p doesn\'t exist or is not registered');
    const notMjml = await call('POST', base(), { json: { name: 'Not', type: 'MJML', mjmlRaw: 'plain text' } });
    expect(notMjml.body.error.validationErrors.mjmlRaw).toMatch(/^Not MJML/);
    expect((await call('GET', `${base()}?filter[type]=mjml`)).body.paging.total).toBe(before);
  });

  it('checks names, types, bodies per type, sizes, locations and addresses', async () => {
    expectValidationError(await call('POST', base(), { json: {} }), ['name', 'type']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', type: 'EDDIE' } }), ['type']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', type: 'HTML' } }), ['htmlRaw']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', type: 'MJML', htmlRaw: '<p>' } }), ['mjmlRaw', 'htmlRaw']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', type: 'FOLDER', htmlRaw: '<p>', subject: 's' } }), ['htmlRaw', 'subject']);
    expectValidationError(await call('POST', base(), { json: { name: 'n'.repeat(101), type: 'HTML', htmlRaw: '' } }), ['name', 'htmlRaw']);
    // 300 KB in UTF-8 bytes: 200 K characters of two bytes each are too many.
    expectValidationError(await call('POST', base(), { json: { name: 'Big', type: 'HTML', htmlRaw: 'é'.repeat(200_000) } }), ['htmlRaw']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', type: 'HTML', htmlRaw: '<p>', location: '/999999' } }), ['location']);
    expectValidationError(await call('POST', base(), { json: { name: 'x', type: 'HTML', htmlRaw: '<p>', location: 'nowhere' } }), ['location']);
    const box = await folder('Parent');
    expectValidationError(await call('POST', base(), { json: { name: 'Nested', type: 'FOLDER', location: box.id } }), ['location']);
    const leaf = await create({ name: 'Leaf', type: 'HTML', htmlRaw: '<p>' });
    expectValidationError(await call('POST', base(), { json: { name: 'x', type: 'HTML', htmlRaw: '<p>', location: leaf.id } }), ['location']);
    expectValidationError(await call('POST', base(), {
      json: { name: 'x', type: 'HTML', htmlRaw: '<p>', subject: 's'.repeat(201), from: { email: 'nope' }, reply_to: { name: 'No email' } },
    }), ['subject', 'from.email', 'reply_to.email']);
  });
});

describe('listing', () => {
  let account: NewAccount;
  const list = async (query = '') => (await call('GET', `/v2/${account.account}/templates${query}`, { key: account.apiKey })).body;
  const names = async (query = '') => (await list(query)).data.map((t: Json) => t.name);

  beforeAll(async () => {
    account = await herald.newAccount();
    const make = (body: Json) => create(body, account);
    const box = await make({ name: 'Folder B', type: 'FOLDER' });
    await make({ name: 'Beta html', type: 'HTML', htmlRaw: '<p>b</p>' });
    await make({ name: 'alpha mjml', type: 'MJML', mjmlRaw: MJML });
    await make({ name: 'Gamma in folder', type: 'HTML', htmlRaw: '<p>g</p>', location: box.id });
    await make({ name: 'Folder A', type: 'FOLDER' });
  });

  it('lists templates and folders by name, without bodies, with paging and sort', async () => {
    const page = await list();
    expect(page.paging).toEqual({ offset: 0, limit: 100, results: 5, total: 5 });
    expect(page.sort).toEqual({ sortby: 'name', sortdir: 'asc' });
    // Code-unit order, as the other listings: upper case first.
    expect(page.data.map((t: Json) => t.name)).toEqual(['Beta html', 'Folder A', 'Folder B', 'Gamma in folder', 'alpha mjml']);
    for (const record of page.data) {
      expect(Object.keys(record).sort()).toEqual(expect.arrayContaining(['id', 'type', 'name', 'location', 'created', 'thumbnail']));
      expect(record).not.toHaveProperty('html');
      expect(record).not.toHaveProperty('mjml');
    }
    expect(await names('?sortby=created&sortdir=DESC&limit=2')).toEqual(['Folder A', 'Gamma in folder']);
    expect((await list('?sortBy=created&offset=4')).data.map((t: Json) => t.name)).toEqual(['Folder A']);
  });

  it('filters by type, location and name (q with *)', async () => {
    expect(await names('?filter[type]=html')).toEqual(['Beta html', 'Gamma in folder']);
    expect(await names('?filter[type]=MJML')).toEqual(['alpha mjml']);
    expect(await names('?filter[type]=templates')).toEqual(['Beta html', 'Gamma in folder', 'alpha mjml']);
    expect(await names('?filter[type]=folders')).toEqual(['Folder A', 'Folder B']);
    expect(await names('?filter[type]=all')).toHaveLength(5);
    expect(await names('?filter[type]=eddie')).toEqual([]);
    const box = (await list('?q=folder b')).data[0];
    expect(await names(`?filter[location]=${encodeURIComponent(box.id)}`)).toEqual(['Gamma in folder']);
    expect(await names('?filter[location]=/&filter[type]=templates')).toEqual(['Beta html', 'alpha mjml']);
    expect(await names('?q=*L*')).toHaveLength(5);
    expect(await names('?q=folder*')).toEqual(['Folder A', 'Folder B']);
    expect(await names('?q=*HTML')).toEqual(['Beta html']);
    expect(await names('?q=.*')).toEqual([]);
  });

  it('refuses unknown filters, values and sort fields', async () => {
    const bad = await call('GET', `/v2/${account.account}/templates?filter[type]=pdf&filter[location]=x&filter[$where]=1&sortby=size`, { key: account.apiKey });
    expectValidationError(bad, ['filter[type]', 'filter[location]', 'filter[$where]', 'sortby']);
  });
});

describe('changes', () => {
  it('renames: answers the id and only what changed', async () => {
    const template = await create({ name: 'Old name', type: 'HTML', htmlRaw: '<p>x</p>', subject: 'S' });
    const put = await call('PUT', at(template.id), { json: { name: 'New name', subject: 'S', type: 'html' } });
    expect(put.body).toEqual({ href: at(template.id), success: true, data: { id: template.id, name: 'New name' } });
    const cleared = await call('PUT', at(template.id), { json: { subject: null, from: { email: 'f@acme.example' } } });
    expect(cleared.body.data).toEqual({ id: template.id, subject: null, from: { email: 'f@acme.example' } });
    expect((await call('PUT', at(template.id), { form: 'subject=' })).body.data).toEqual({ id: template.id });
    const read = (await call('GET', at(template.id))).body.data;
    expect(read).toMatchObject({ name: 'New name', subject: null, from: { email: 'f@acme.example' }, version: 1 });
    expect(read.lastModified > template.lastModified || read.lastModified === template.lastModified).toBe(true);
    expectValidationError(await call('PUT', at(template.id), { json: { type: 'MJML' } }), ['type']);
    expectValidationError(await call('PUT', at(template.id), { json: { mjmlRaw: MJML } }), ['mjmlRaw']);
  });

  it('moves a template into a folder and back: the id changes, the answer is the whole record with a Location', async () => {
    const template = await create({ name: 'Mover', type: 'HTML', htmlRaw: '<p>m</p>' });
    const box = await folder('Destination');
    const number = template.id.slice(1);
    const moved = await call('PUT', at(template.id), { json: { location: box.id } });
    expect(moved.status).toBe(200);
    const newId = `${box.id}/${number}`;
    expect(moved.body.data).toEqual({ ...template, id: newId, location: box.id, lastModified: ISO });
    expect(moved.headers.get('location')).toBe(at(newId));
    expect((await call('GET', at(template.id))).status).toBe(404);
    expect((await getText(`${at(newId)}.html`)).text).toBe('<p>m</p>');
    const back = await call('PUT', at(newId), { form: 'location=%2F&name=Mover+back' });
    expect(back.body.data).toMatchObject({ id: template.id, location: '/', name: 'Mover back' });
    expectValidationError(await call('PUT', at(template.id), { json: { location: '/999999' } }), ['location']);
    expectValidationError(await call('PUT', at(box.id), { json: { location: template.id } }), ['location']);
    expect((await call('PUT', at(box.id), { json: { name: 'Renamed folder' } })).body.data).toEqual({ id: box.id, name: 'Renamed folder' });
  });

  it('takes a new body: the version goes up, MJML is compiled again; the same body changes nothing', async () => {
    const html = await create({ name: 'Versioned', type: 'HTML', htmlRaw: '<p>v1</p>' });
    expect((await call('PUT', at(html.id), { json: { htmlRaw: '<p>v2</p>' } })).body.data).toEqual({ id: html.id, version: 2 });
    expect((await call('PUT', at(html.id), { json: { htmlRaw: '<p>v2</p>' } })).body.data).toEqual({ id: html.id });
    expect((await getText(`${at(html.id)}.html`)).text).toBe('<p>v2</p>');
    expect((await call('GET', at(html.id))).body.data.version).toBe(2);

    const mjml = await create({ name: 'Versioned MJML', type: 'MJML', mjmlRaw: MJML });
    const next = MJML.replace('Hello {{name}}', 'Goodbye {{name}}');
    expect((await call('PUT', at(mjml.id), { json: { mjmlRaw: next, name: 'Renamed too' } })).body.data)
      .toEqual({ id: mjml.id, name: 'Renamed too', version: 2 });
    const compiled = (await getText(`${at(mjml.id)}.html`)).text;
    expect(compiled).toContain('Goodbye {{name}}');
    expect(compiled).not.toContain('Hello');
    expect((await call('GET', `${at(mjml.id)}.json`)).body.data.mjml).toBe(next);
    const broken = await call('PUT', at(mjml.id), { json: { mjmlRaw: '<mjml><mj-body>\n<mj-section>\n<mj-nope /></mj-section></mj-body></mjml>' } });
    expectValidationError(broken, ['mjmlRaw']);
    expect(broken.body.error.validationErrors.mjmlRaw).toMatch(/line 3/);
    expect((await call('GET', at(mjml.id))).body.data.version).toBe(2);
  });
});

describe('delete', () => {
  it('deletes a template: 200 {href, success}, then 404', async () => {
    const template = await create({ name: 'Doomed', type: 'HTML', htmlRaw: '<p>d</p>' });
    const deleted = await call('DELETE', at(template.id), { form: '' });
    expect(deleted).toMatchObject({ status: 200, body: { href: at(template.id), success: true } });
    expect(Object.keys(deleted.body)).toEqual(['href', 'success']);
    expect((await call('GET', at(template.id))).status).toBe(404);
    expect((await call('DELETE', at(template.id))).status).toBe(404);
  });

  it('refuses to delete a folder that holds templates, and deletes it once empty', async () => {
    const box = await folder('Full');
    const inside = await create({ name: 'Content', type: 'HTML', htmlRaw: '<p>c</p>', location: box.id });
    const refused = await call('DELETE', at(box.id));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({ status: 400, type: 'BAD_REQUEST', userMessage: `Folder ${box.id} is not empty: move or delete its 1 template first` });
    expect((await call('GET', at(inside.id))).status).toBe(200);
    expect((await call('DELETE', at(inside.id))).status).toBe(200);
    expect((await call('DELETE', at(box.id))).status).toBe(200);
    expect((await call('GET', at(box.id))).status).toBe(404);
  });
});

describe('permissions', () => {
  it('needs templates:list to read and templates:create|update|delete to change', async () => {
    const user = await call('POST', `/v2/${acme.account}/users`, { json: { email: 'reader@acme.example', password: 'password12', permissions: ['templates:list'] } });
    expect(user.status).toBe(201);
    const key = (await call('POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`)).body.data.key;
    const template = await create({ name: 'Guarded', type: 'HTML', htmlRaw: '<p>g</p>' });
    expect((await call('GET', base(), { key })).status).toBe(200);
    expect((await call('GET', at(template.id), { key })).status).toBe(200);
    expect((await getText(`${at(template.id)}.html`, key)).status).toBe(200);
    const denied = await call('POST', base(), { key, json: { name: 'No', type: 'HTML', htmlRaw: '<p>' } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toEqual({ status: 403, type: 'FORBIDDEN', userMessage: 'Missing permission templates:create' });
    expect((await call('PUT', at(template.id), { key, json: { name: 'No' } })).body.error.userMessage).toBe('Missing permission templates:update');
    expect((await call('DELETE', at(template.id), { key })).body.error.userMessage).toBe('Missing permission templates:delete');

    const none = await call('POST', `/v2/${acme.account}/users`, { json: { email: 'none@acme.example', password: 'password12', permissions: ['lists:list'] } });
    const noneKey = (await call('POST', `/v2/${acme.account}/users/${none.body.data.id}/keys`)).body.data.key;
    expect((await call('GET', base(), { key: noneKey })).status).toBe(403);
    expect((await getText(`${at(template.id)}/preview`, noneKey)).status).toBe(403);
  });
});

describe('findTemplateForSend', () => {
  it('gives the HTML (compiled for MJML) and the defaults of the account\'s own templates only', async () => {
    const { store } = herald.services;
    const box = await folder('Send folder');
    const html = await create({
      name: 'Receipt', type: 'HTML', htmlRaw: '<p>Receipt</p>', location: box.id, subject: 'Your receipt', from: { email: 'shop@acme.example', name: 'Shop' },
    });
    expect(await findTemplateForSend(store, acme.account, html.id))
      .toEqual({ html: '<p>Receipt</p>', subject: 'Your receipt', from: { email: 'shop@acme.example', name: 'Shop' } });
    expect(await findTemplateForSend(store, acme.account, html.id.slice(1))).not.toBeNull();
    const mjml = await create({ name: 'Mjml send', type: 'MJML', mjmlRaw: MJML, reply_to: { email: 'r@acme.example' } });
    const found = await findTemplateForSend(store, acme.account, mjml.id);
    expect(found).toEqual({ html: expect.stringContaining('Hello {{name}}'), reply_to: { email: 'r@acme.example' } });
    expect(found!.html).not.toContain('<mj-');
    expect(await findTemplateForSend(store, acme.account, box.id)).toBeNull();
    expect(await findTemplateForSend(store, other.account, html.id)).toBeNull();
    expect(await findTemplateForSend(store, acme.account, '/999999')).toBeNull();
    expect(await findTemplateForSend(store, acme.account, '{"$gt":""}')).toBeNull();
  });
});
