// The automations resource of the account API over HTTP against the real stack: create, list
// (row shape, paging, q, filter[enabled], sort), detail, PUT (partial, while enabled), DELETE,
// activate and deactivate, each validation rule at its boundary, permissions and other accounts.
// What the runs do: the trigger and workflow tests.
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Answer, type Json } from '../support/http';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, options: { key?: string; json?: unknown; form?: string } = {}) =>
  callHerald(herald.baseUrl, method, path, { ...options, headers: { authorization: `Bearer ${options.key ?? acme.apiKey}` } });
const base = (account = acme.account) => `/v2/${account}/automations`;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const ZERO_STATS = { triggered: 0, exited: 0, failed: 0, active: 0, aborted: 0, completed: 0, converted: 0, converted_amount: 0 };

const emailStep = { type: 'email', subject: 'Hello ${contact.first_name!"friend"}', from: 'shop@example.com', fromName: 'The shop', html: '<p>Hi ${name}</p>' };
const waitStep = { type: 'wait', duration: 'P2D' };
const valid = { name: 'Welcome', trigger: { type: 'custom', key: 'signup' }, steps: [emailStep] };

async function create(body: object = valid, account = acme): Promise<Json> {
  const answer = await call('POST', base(account.account), { json: body, key: account.apiKey });
  expect([answer.status, answer.body.error]).toEqual([201, undefined]);
  return answer.body.data;
}

function expectValidationError(answer: Answer, fields: Record<string, unknown>) {
  expect([answer.status, answer.body.error?.type]).toEqual([400, 'VALIDATION_ERROR']);
  expect(answer.body.error.validationErrors).toEqual(fields);
}

/** A create with one step changed from the valid email step. */
const withStep = (step: object) => call('POST', base(), { json: { ...valid, steps: [step] } });

describe('create and read', () => {
  it('creates a disabled automation: 201, Location, the detail', async () => {
    const answer = await call('POST', base(), {
      json: { ...valid, comments: 'New sign-ups', tags: ['onboarding', 'onboarding', 'b'], steps: [emailStep, { ...waitStep, duration: 'PT1H30M' }, { ...emailStep, text: 'Hi ${name}' }] },
    });
    expect(answer.status).toBe(201);
    const { id } = answer.body.data;
    expect(id).toMatch(/^\d+$/);
    expect(answer.headers.get('location')).toBe(`${base()}/${id}`);
    const detail = {
      id, name: 'Welcome', comments: 'New sign-ups', trigger: { type: 'custom', key: 'signup' }, enabled: false, tags: ['onboarding', 'b'],
      options: { types: ['custom'] }, stats: ZERO_STATS, created: ISO, lastModified: ISO,
      steps: [emailStep, { type: 'wait', duration: 'PT1H30M', seconds: 5400 }, { ...emailStep, text: 'Hi ${name}' }],
      activation: 0, activated: null, deactivated: null,
    };
    expect(answer.body).toEqual({ href: base(), success: true, data: detail });
    const read = await call('GET', `${base()}/${id}`);
    expect(read.body).toEqual({ href: `${base()}/${id}`, success: true, data: {
      ...detail, created: answer.body.data.created, lastModified: answer.body.data.lastModified,
      messageStats: { sent: 0, opened: 0, clicked: 0, bounced: 0, unsubscribed: 0 },
    } });
  });

  it('takes only a name and a trigger; trims the name; reads form bodies with PHP-style arrays', async () => {
    expect(await create({ name: '  Bare  ', trigger: { type: 'custom', key: 'k' } })).toMatchObject({ name: 'Bare', comments: '', tags: [], steps: [] });
    const form = 'name=Form&trigger[type]=custom&trigger[key]=cart_left&tags[]=x&steps[0][type]=wait&steps[0][duration]=P1W'
      + '&steps[1][type]=email&steps[1][subject]=Still%20there%3F&steps[1][from]=a%40example.com&steps[1][html]=%3Cp%3Ehi%3C%2Fp%3E';
    const answer = await call('POST', base(), { form });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({
      trigger: { type: 'custom', key: 'cart_left' }, tags: ['x'],
      steps: [{ type: 'wait', duration: 'P1W', seconds: 604_800 }, { type: 'email', subject: 'Still there?', from: 'a@example.com', fromName: '', html: '<p>hi</p>' }],
    });
  });

  it('compiles MJML when saved and shows the MJML (not its HTML) back', async () => {
    const mjml = '<mjml><mj-body><mj-section><mj-column><mj-text>Hi ${name}</mj-text></mj-column></mj-section></mj-body></mjml>';
    const { id, steps } = await create({ ...valid, steps: [{ type: 'email', subject: 'S', from: 'a@example.com', mjml }] });
    expect(steps).toEqual([{ type: 'email', subject: 'S', from: 'a@example.com', fromName: '', mjml }]);
    const stored = await herald.services.store.automations.findOne({ account: acme.account, id: Number(id) });
    expect(stored!.steps[0]).toMatchObject({ mjml, html: expect.stringContaining('Hi ${name}') });
    // Sent back as read, the steps change nothing.
    expect((await call('PUT', `${base()}/${id}`, { json: { steps } })).body.data).toEqual({ id });
  });
});

describe('list', () => {
  let lister: NewAccount;
  const ids: Record<string, string> = {};
  const names = async (query = '') => {
    const answer = await call('GET', `${base(lister.account)}${query}`, { key: lister.apiKey });
    expect(answer.status).toBe(200);
    return answer.body.data.map((row: Json) => row.name);
  };

  beforeAll(async () => {
    lister = await herald.newAccount();
    for (const name of ['Charlie', 'alpha', 'Bravo']) ids[name] = (await create({ ...valid, name }, lister)).id;
    await call('POST', `${base(lister.account)}/${ids.Bravo}/activate`, { key: lister.apiKey });
  });

  it('answers rows in the original\'s shape, paged, by name by default', async () => {
    const answer = await call('GET', `${base(lister.account)}?limit=2`, { key: lister.apiKey });
    expect(answer.body).toEqual({
      href: base(lister.account), success: true,
      data: [
        { id: ids.Bravo, name: 'Bravo', comments: '', trigger: { type: 'custom', key: 'signup' }, enabled: true, tags: [], options: { types: ['custom'] }, stats: ZERO_STATS, created: ISO, lastModified: ISO },
        { id: ids.Charlie, name: 'Charlie', comments: '', trigger: { type: 'custom', key: 'signup' }, enabled: false, tags: [], options: { types: ['custom'] }, stats: ZERO_STATS, created: ISO, lastModified: ISO },
      ],
      paging: { offset: 0, limit: 2, results: 2, total: 3 },
      sort: { sortby: 'name', sortdir: 'asc' },
    });
  });

  it('searches the name with q, filters on enabled, sorts by created', async () => {
    expect(await names('?q=*a*')).toEqual(['Bravo', 'Charlie', 'alpha']);
    expect(await names('?q=br*')).toEqual(['Bravo']);
    expect(await names('?filter[enabled]=true')).toEqual(['Bravo']);
    expect(await names('?filter[enabled]=false')).toEqual(['Charlie', 'alpha']);
    expect(await names('?sortby=created')).toEqual(['Charlie', 'alpha', 'Bravo']);
    expect(await names('?sortdir=desc')).toEqual(['alpha', 'Charlie', 'Bravo']);
    expectValidationError(await call('GET', `${base(lister.account)}?sortby=stats&filter[enabled]=maybe&filter[key]=x`, { key: lister.apiKey }), {
      sortby: expect.any(String), 'filter[enabled]': 'Must be true or false', 'filter[key]': expect.stringContaining('Unknown filter'),
    });
  });
});

describe('change and delete', () => {
  it('PUT changes only the fields given and answers the id and what changed', async () => {
    const { id } = await create({ ...valid, tags: ['a'] });
    expect((await call('PUT', `${base()}/${id}`, { json: { name: 'Renamed', tags: ['a'] } })).body).toEqual({ href: `${base()}/${id}`, success: true, data: { id, name: 'Renamed' } });
    const changed = await call('PUT', `${base()}/${id}`, { json: { trigger: { type: 'custom', key: 'other' }, steps: [waitStep, emailStep] } });
    expect(changed.body.data).toEqual({ id, trigger: { type: 'custom', key: 'other' }, steps: [{ ...waitStep, seconds: 172_800 }, emailStep] });
    expect((await call('GET', `${base()}/${id}`)).body.data).toMatchObject({ name: 'Renamed', tags: ['a'], trigger: { key: 'other' }, steps: [{ type: 'wait' }, { type: 'email' }] });
  });

  it('refuses an invalid PUT whole, and changes an enabled automation', async () => {
    const { id } = await create();
    expectValidationError(await call('PUT', `${base()}/${id}`, { json: { name: 'Kept?', steps: [{ type: 'wait', duration: 'P1M' }] } }), { 'steps[0].duration': expect.stringContaining('ISO 8601') });
    expect((await call('GET', `${base()}/${id}`)).body.data.name).toBe('Welcome');
    await call('POST', `${base()}/${id}/activate`);
    const put = await call('PUT', `${base()}/${id}`, { json: { steps: [emailStep, waitStep, { ...emailStep, subject: 'Second' }] } });
    expect(put.status).toBe(200);
    expect((await call('GET', `${base()}/${id}`)).body.data).toMatchObject({ enabled: true, activation: 1, steps: [{}, {}, { subject: 'Second' }] });
  });

  it('DELETE removes it: then 404 everywhere', async () => {
    const { id } = await create();
    await call('POST', `${base()}/${id}/activate`);
    expect((await call('DELETE', `${base()}/${id}`)).body).toEqual({ href: `${base()}/${id}`, success: true });
    for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/activate'], ['POST', '/deactivate']]) {
      const answer = await call(method, `${base()}/${id}${path}`, method === 'PUT' ? { json: { name: 'x' } } : {});
      expect([method, path, answer.status, answer.body.error.type]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
  });
});

describe('activate and deactivate', () => {
  it('counts activations, dates each change, and answers a repeat unchanged', async () => {
    const { id } = await create();
    const on = await call('POST', `${base()}/${id}/activate`);
    expect(on.body.data).toMatchObject({ id, enabled: true, activation: 1, activated: ISO, deactivated: null });
    const again = await call('POST', `${base()}/${id}/activate`);
    expect(again.body.data).toEqual(on.body.data);
    const off = await call('POST', `${base()}/${id}/deactivate`);
    expect(off.body.data).toMatchObject({ enabled: false, activation: 1, activated: on.body.data.activated, deactivated: ISO });
    expect((await call('POST', `${base()}/${id}/deactivate`)).body.data).toEqual(off.body.data);
    expect((await call('POST', `${base()}/${id}/activate`)).body.data).toMatchObject({ enabled: true, activation: 2, deactivated: off.body.data.deactivated });
  });

  it('needs an email step to activate', async () => {
    for (const steps of [[], [waitStep]]) {
      const { id } = await create({ ...valid, steps });
      expectValidationError(await call('POST', `${base()}/${id}/activate`), { steps: 'An automation needs at least one email step to be activated' });
      expect((await call('GET', `${base()}/${id}`)).body.data).toMatchObject({ enabled: false, activation: 0 });
    }
  });
});

describe('validation', () => {
  it('name: required, at most 100 characters', async () => {
    expectValidationError(await call('POST', base(), { json: { trigger: valid.trigger } }), { name: 'This field is required' });
    expectValidationError(await call('POST', base(), { json: { ...valid, name: '   ' } }), { name: 'Invalid value' });
    expectValidationError(await call('POST', base(), { json: { ...valid, name: 'n'.repeat(101) } }), { name: 'At most 100 characters' });
    await create({ ...valid, name: 'n'.repeat(100) });
  });

  it('trigger: required, type custom, key of 1 to 30 lowercase letters, digits and underscore', async () => {
    const key = 'Lowercase letters, digits and underscore, 1 to 30 characters';
    expectValidationError(await call('POST', base(), { json: { name: 'x' } }), { trigger: 'This field is required' });
    expectValidationError(await call('POST', base(), { json: { name: 'x', trigger: { type: 'webhook', key: 'a' } } }), { 'trigger.type': 'Must be one of: custom' });
    expectValidationError(await call('POST', base(), { json: { name: 'x', trigger: { type: 'custom' } } }), { 'trigger.key': 'This field is required' });
    expectValidationError(await call('POST', base(), { json: { name: 'x', trigger: { type: 'custom', key: 'k'.repeat(31) } } }), { 'trigger.key': 'At most 30 characters' });
    for (const bad of ['Signup', 'sign-up', 'sign up', '']) {
      expectValidationError(await call('POST', base(), { json: { name: 'x', trigger: { type: 'custom', key: bad } } }), { 'trigger.key': key });
    }
    expect((await create({ name: 'x', trigger: { type: 'custom', key: 'a_1'.repeat(10) } })).trigger.key).toHaveLength(30);
  });

  it('steps: at most 50', async () => {
    expectValidationError(await call('POST', base(), { json: { ...valid, steps: Array(51).fill(waitStep) } }), { steps: 'At most 50 elements' });
    expect((await create({ ...valid, steps: Array(50).fill(waitStep) })).steps).toHaveLength(50);
  });

  it('email step: subject, from and content required; one of html and mjml; addresses; one-line subject', async () => {
    expectValidationError(await withStep({ type: 'email' }), {
      'steps[0].subject': 'An email step needs a subject', 'steps[0].from': 'An email step needs a sender address (from)', 'steps[0].html': 'An email step needs its content: html or mjml',
    });
    expectValidationError(await withStep({ ...emailStep, subject: ' ' }), { 'steps[0].subject': 'An email step needs a subject' });
    expectValidationError(await withStep({ ...emailStep, mjml: '<mjml><mj-body></mj-body></mjml>' }), { 'steps[0].mjml': 'Give html or mjml, not both' });
    expectValidationError(await withStep({ ...emailStep, from: 'not-an-address', replyTo: 'nor@this' }), { 'steps[0].from': 'Invalid email address', 'steps[0].replyTo': 'Invalid email address' });
    expectValidationError(await withStep({ ...emailStep, subject: 'Two\nlines' }), { 'steps[0].subject': 'One line: no CR or LF' });
    expectValidationError(await withStep({ ...emailStep, subject: 's'.repeat(999) }), { 'steps[0].subject': 'At most 998 characters' });
    expectValidationError(await withStep({ ...emailStep, duration: 'P1D' }), { 'steps[0].duration': 'Only for wait steps' });
    expectValidationError(await withStep({ ...waitStep, subject: 'x' }), { 'steps[0].subject': 'Only for email steps' });
    expectValidationError(await withStep({ type: 'sms' }), { 'steps[0].type': expect.stringContaining('Must be one of') });
    expect((await create({ ...valid, steps: [{ ...emailStep, subject: 's'.repeat(998), replyTo: 'help@example.com' }] })).steps[0]).toMatchObject({ replyTo: 'help@example.com' });
  });

  it('templates must compile: the error names the step\'s field and the line', async () => {
    const answer = await call('POST', base(), {
      json: { ...valid, steps: [waitStep, { ...emailStep, subject: 'Hi ${name', html: '<p>\n<b>\n[#if x]open</p>', text: '[#list xs as x]${x}' }] },
    });
    expectValidationError(answer, {
      'steps[1].subject': expect.stringMatching(/^Line 1, column \d+: /),
      'steps[1].html': expect.stringMatching(/^Line 3, column \d+: /),
      'steps[1].text': expect.stringMatching(/^Line 1, column \d+: /),
    });
    expectValidationError(await withStep({ ...emailStep, html: 'a'.repeat(301 * 1024) }), { 'steps[0].html': expect.stringContaining('300 KB') });
  });

  it('MJML must compile: its error names the line', async () => {
    const mjml = '<mjml>\n<mj-body>\n<mj-section><mj-colum>x</mj-colum></mj-section>\n</mj-body>\n</mjml>';
    expectValidationError(await withStep({ type: 'email', subject: 'S', from: 'a@example.com', mjml }), { 'steps[0].mjml': expect.stringMatching(/^Invalid MJML, line 3: /) });
    expectValidationError(await withStep({ type: 'email', subject: 'S', from: 'a@example.com', mjml: '<p>not mjml</p>' }), { 'steps[0].mjml': 'Invalid MJML, line 1: Element p doesn\'t exist or is not registered' });
  });

  it('wait step: an ISO 8601 duration of 1 second to 365 days, stored with its seconds', async () => {
    for (const duration of ['PT0S', 'P366D', '1 day', 'P1M']) {
      expectValidationError(await withStep({ type: 'wait', duration }), { 'steps[0].duration': expect.any(String) });
    }
    expectValidationError(await withStep({ type: 'wait' }), { 'steps[0].duration': expect.stringContaining('needs a duration') });
    const steps = [['PT1S', 1], ['P365D', 31_536_000], ['P1W', 604_800], ['PT1H30M', 5400]].map(([duration]) => ({ type: 'wait', duration }));
    expect((await create({ ...valid, steps })).steps.map((s: Json) => s.seconds)).toEqual([1, 31_536_000, 604_800, 5400]);
  });

  it('reports every bad field at once (the schema\'s, else the rules\'), and refuses malformed JSON', async () => {
    expectValidationError(await call('POST', base(), { json: { name: '', trigger: { type: 'custom', key: 'k'.repeat(31) }, steps: [{ type: 'wait', duration: 7 }] } }), {
      name: 'This field is required', 'trigger.key': 'At most 30 characters', 'steps[0].duration': 'Must be string',
    });
    expectValidationError(await call('POST', base(), { json: { name: 'x', trigger: { type: 'custom', key: 'UP' }, steps: [{ type: 'wait', duration: 'x' }, { type: 'email', from: 'a@example.com', html: 'h' }] } }), {
      'trigger.key': expect.any(String), 'steps[0].duration': expect.any(String), 'steps[1].subject': expect.any(String),
    });
    const malformed = await fetch(`${herald.baseUrl}${base()}`, { method: 'POST', headers: { authorization: `Bearer ${acme.apiKey}`, 'content-type': 'application/json' }, body: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Json).error.type).toBe('BAD_REQUEST');
  });
});

describe('permissions and other accounts', () => {
  it('needs automations:create to create', async () => {
    const user = await call('POST', `/v2/${acme.account}/users`, { json: { email: 'reader@example.com', password: 'password12', permissions: ['automations:list'] } });
    const key = (await call('POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`)).body.data.key as string;
    expect((await call('GET', base(), { key })).status).toBe(200);
    const denied = await call('POST', base(), { key, json: valid });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toEqual({ status: 403, type: 'FORBIDDEN', userMessage: 'Missing permission automations:create' });
    expect((await call('POST', `${base()}/1/activate`, { key })).body.error.userMessage).toBe('Missing permission automations:update');
  });

  it('never shows or changes another account\'s automation: 404 by id, 403 on its path; unknown ids are 404', async () => {
    const other = await herald.newAccount();
    const mine = (await call('GET', `${base()}?limit=1000`)).body.paging.total as number;
    let theirs: Json;
    for (let i = 0; i <= mine + 1; i += 1) theirs = await create({ ...valid, name: `Theirs ${i}` }, other);
    for (const id of [theirs.id, '999999', 'abc', '1e3']) {
      for (const [method, path] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/activate'], ['POST', '/deactivate']]) {
        const answer = await call(method, `${base()}/${id}${path}`, method === 'PUT' ? { json: { name: 'x' } } : {});
        expect([id, method, path, answer.status]).toEqual([id, method, path, 404]);
      }
    }
    expect((await call('GET', base(other.account))).status).toBe(403);
    expect((await call('GET', `${base(other.account)}/${theirs.id}`, { key: other.apiKey })).body.data).toMatchObject({ name: theirs.name, enabled: false });
  });
});
