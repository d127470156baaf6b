// A campaign's content, validation and launch over HTTP against the real stack: the content
// record (form and JSON), its raw `.html`/`.txt` bodies (MJML compiled once), the original's
// validate shape, launch refusals (400 INVALID_REQUEST with moreInfo, the campaign still DRAFT),
// the spec's creation order and its task, and every state rule of the actions (stop, cancel,
// pause, resume, archive, PUT and DELETE outside DRAFT). Sending itself: the campaign sending tests.
import type { NewAccount } from '../../core/accounts/accounts';
import { updateAccountSettings } from '../../core/accounts/settings';
import { DEFAULT_UNSUBSCRIBE_TEXT } from '../../core/campaigns/model';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let acme: NewAccount;
let listId: number;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
  listId = (await call('POST', `/v2/${acme.account}/lists`, { json: { name: 'Readers' } })).body.data.id;
  for (const email of ['ana@example.com', 'bob@example.com']) {
    expect((await call('POST', `/v2/${acme.account}/lists/${listId}/contacts`, { json: { email } })).status).toBe(200);
  }
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, options: { key?: string; json?: unknown; form?: string } = {}) =>
  callHerald(herald.baseUrl, method, path, { ...options, headers: { authorization: `Bearer ${options.key ?? acme.apiKey}` } });
const base = () => `/v2/${acme.account}/campaigns`;
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** A raw-body call (`.html`, `.txt`); the answer's text and, when JSON, its body. */
async function raw(method: 'GET' | 'PUT', path: string, body?: string | Buffer, contentType = 'text/html') {
  const response = await fetch(`${herald.baseUrl}${path}`, {
    method, body, headers: { authorization: `Bearer ${acme.apiKey}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : undefined };
}

async function create(form: string): Promise<Json> {
  const answer = await call('POST', base(), { form });
  expect([answer.status, answer.body.error]).toEqual([200, undefined]);
  return answer.body.data;
}
async function addContent(id: number, form = 'type=HTML&subject=Hello&from=news@example.com&fromName=News'): Promise<Json> {
  const answer = await call('POST', `${base()}/${id}/contents`, { form });
  expect([answer.status, answer.body.error]).toEqual([200, undefined]);
  return answer.body.data;
}
/** A campaign ready to launch: recipients, a content and its HTML. */
async function ready(extra = ''): Promise<{ campaign: Json; content: Json }> {
  const campaign = await create(`name=Ready&include[lists][]=${listId}${extra}`);
  const content = await addContent(campaign.id);
  expect((await raw('PUT', `${base()}/${campaign.id}/contents/${content.id}.html`, '<html><body><p>Hi ${contact.email}</p></body></html>')).status).toBe(200);
  return { campaign, content };
}
const stateOf = async (id: number) => (await call('GET', `${base()}/${id}`)).body.data.state as string;

function expectError(answer: { status: number; body: Json }, status: number, type: string, message?: RegExp) {
  expect([answer.status, answer.body.success, answer.body.error.type]).toEqual([status, false, type]);
  if (message) expect(answer.body.error.userMessage).toMatch(message);
}

describe('content record', () => {
  it('is created from the spec\'s form body with the spec\'s defaults, once per campaign', async () => {
    const campaign = await create('name=With%20content');
    const answer = await call('POST', `${base()}/${campaign.id}/contents`, { form: 'type=HTML&subject=Hi%20there&from=news@example.com&fromName=News%20Team' });
    expect(answer.status).toBe(200);
    const content = {
      id: expect.any(Number), type: 'HTML', subject: 'Hi there', from: 'news@example.com', fromName: 'News Team',
      replyTo: '', replyToName: '', unsubscribeText: DEFAULT_UNSUBSCRIBE_TEXT, thumbnail: null,
    };
    expect(answer.body).toEqual({ href: `${base()}/${campaign.id}/contents`, success: true, data: content });
    const { id } = answer.body.data;
    expect(answer.headers.get('location')).toBe(`${base()}/${campaign.id}/contents/${id}`);
    expect((await call('GET', `${base()}/${campaign.id}`)).body.data.contents).toEqual([{ ...content, id }]);
    expect((await call('GET', `${base()}/${campaign.id}/contents/${id}`)).body.data).toEqual({ ...content, id });
    expect((await call('GET', `${base()}/${campaign.id}/contents`)).body.data).toEqual([{ ...content, id }]);
    // One content per campaign: a second is 400, whatever it says.
    expectError(await call('POST', `${base()}/${campaign.id}/contents`, { form: 'subject=Two&from=a@example.com&fromName=A' }), 400, 'BAD_REQUEST', /one content per campaign/);
  });

  it('takes JSON, replyTo and the original\'s replyToAddress for replyToName; checks every field', async () => {
    const campaign = await create('name=JSON%20content');
    const answer = await call('POST', `${base()}/${campaign.id}/contents`, {
      json: { subject: 'S', from: 'a@example.com', fromName: 'A', replyTo: 'help@example.com', replyToAddress: 'Help desk', unsubscribeText: 'Bye' },
    });
    expect(answer.body.data).toMatchObject({ replyTo: 'help@example.com', replyToName: 'Help desk', unsubscribeText: 'Bye' });
    const other = await create('name=Bad%20content');
    const bad = await call('POST', `${base()}/${other.id}/contents`, { json: { type: 'EDDIE', from: 'nope', replyTo: 'nope' } });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.error.validationErrors).sort()).toEqual(['from', 'fromName', 'subject', 'type']);
    const badReply = await call('POST', `${base()}/${other.id}/contents`, { form: 'subject=S&from=a@example.com&fromName=A&replyTo=nope' });
    expect(Object.keys(badReply.body.error.validationErrors)).toEqual(['replyTo']);
  });

  it('changes with PUT (the id and what changed), is removed with DELETE; an unknown content is 404', async () => {
    const campaign = await create('name=Edit%20content');
    const content = await addContent(campaign.id);
    const put = await call('PUT', `${base()}/${campaign.id}/contents/${content.id}`, { form: 'subject=New%20subject&fromName=News&unsubscribeText=' });
    expect(put.body).toEqual({ href: `${base()}/${campaign.id}/contents/${content.id}`, success: true, data: { id: content.id, subject: 'New subject' } });
    expect((await call('GET', `${base()}/${campaign.id}/contents/${content.id + 1000}`)).status).toBe(404);
    expect((await call('PUT', `${base()}/${campaign.id}/contents/x`, { form: 'subject=x' })).status).toBe(404);
    expect((await call('DELETE', `${base()}/${campaign.id}/contents/${content.id}`)).body).toEqual({ href: `${base()}/${campaign.id}/contents/${content.id}`, success: true });
    expect((await call('GET', `${base()}/${campaign.id}`)).body.data.contents).toEqual([]);
    expect((await addContent(campaign.id)).id).not.toBe(content.id);
  });
});

describe('content bodies', () => {
  it('sets the HTML from a raw text/html body and serves it back; another type is 415', async () => {
    const campaign = await create('name=Bodies');
    const content = await addContent(campaign.id);
    const html = `${base()}/${campaign.id}/contents/${content.id}.html`;
    expect((await raw('GET', html)).status).toBe(404);
    const put = await raw('PUT', html, '<p>Hola ${contact.first_name}</p>');
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ href: html, success: true, data: { ...content, mjml: false } });
    const got = await raw('GET', html);
    expect([got.status, got.text, got.headers.get('content-type')]).toEqual([200, '<p>Hola ${contact.first_name}</p>', 'text/html; charset=utf-8']);
    expect(got.headers.get('content-security-policy')).toMatch(/sandbox/);
    for (const type of ['text/plain', 'application/json', 'application/x-www-form-urlencoded', 'text/html; charset=iso-8859-1']) {
      const refused = await raw('PUT', html, '<p>x</p>', type);
      expect([type, refused.status, refused.body.error.type]).toEqual([type, 415, 'UNSUPPORTED_MEDIA_TYPE']);
    }
    expect((await raw('GET', html)).text).toBe('<p>Hola ${contact.first_name}</p>');
    const tooBig = await raw('PUT', html, `<p>${'x'.repeat(1024 * 1024)}</p>`);
    expect([tooBig.status, tooBig.body.error.type]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect((await raw('PUT', `${base()}/${campaign.id}/contents/${content.id + 1}.html`, '<p>x</p>')).status).toBe(404);
  });

  it('compiles an MJML body once, keeping the HTML; an MJML error is 400 naming its line', async () => {
    const campaign = await create('name=MJML');
    const content = await addContent(campaign.id);
    const html = `${base()}/${campaign.id}/contents/${content.id}.html`;
    const mjml = '<mjml>\n<mj-body>\n<mj-section><mj-column><mj-text>Hi ${contact.email}</mj-text></mj-column></mj-section>\n</mj-body>\n</mjml>';
    const put = await raw('PUT', html, mjml);
    expect([put.status, put.body.data.mjml]).toEqual([200, true]);
    const compiled = (await raw('GET', html)).text;
    expect(compiled).toMatch(/^<!doctype html>/i);
    expect(compiled).toContain('Hi ${contact.email}');
    const bad = await raw('PUT', html, '<mjml>\n<mj-body>\n<mj-nope>x</mj-nope>\n</mj-body>\n</mjml>');
    expect([bad.status, bad.body.error.type]).toEqual([400, 'VALIDATION_ERROR']);
    expect(bad.body.error.validationErrors.body).toMatch(/line 3/);
    expect((await raw('GET', html)).text).toBe(compiled); // nothing changed
    // The source is kept and served back (as text); an HTML body has none.
    const source = await raw('GET', `${base()}/${campaign.id}/contents/${content.id}.mjml`);
    expect([source.status, source.text, source.headers.get('content-type')]).toEqual([200, mjml, 'text/plain; charset=utf-8']);
    await raw('PUT', html, '<p>Plain HTML</p>');
    expect((await raw('GET', `${base()}/${campaign.id}/contents/${content.id}.mjml`)).status).toBe(404);
  });

  it('sets a text part from text/plain; without one, .txt gives the text of the HTML', async () => {
    const campaign = await create('name=Text');
    const content = await addContent(campaign.id);
    const txt = `${base()}/${campaign.id}/contents/${content.id}.txt`;
    expect((await raw('GET', txt)).status).toBe(404);
    await raw('PUT', `${base()}/${campaign.id}/contents/${content.id}.html`, '<p>From the <b>HTML</b></p>');
    expect((await raw('GET', txt)).text).toMatch(/From the HTML/i);
    expect((await raw('PUT', txt, 'Plain text', 'text/html')).status).toBe(415);
    expect((await raw('PUT', txt, 'Plain text ${contact.email}', 'text/plain')).status).toBe(200);
    const got = await raw('GET', txt);
    expect([got.text, got.headers.get('content-type')]).toEqual(['Plain text ${contact.email}', 'text/plain; charset=utf-8']);
  });
});

describe('validate', () => {
  const validate = async (id: number) => {
    const answer = await call('GET', `${base()}/${id}/validate`);
    expect([answer.status, answer.body.error]).toEqual([200, undefined]);
    return answer.body.data;
  };
  const passed = { valid: true, message: null, errors: [], warnings: [] };

  it('answers the original\'s shape, every test passed, and the checks', async () => {
    const { campaign } = await ready();
    const validation = await validate(campaign.id);
    expect(validation).toEqual({
      valid: true,
      tests: { launchDate: passed, recipients: passed, contents: passed, account: passed },
      checks: {
        sender: { valid: true, message: 'From News <news@example.com>' }, subject: { valid: true, message: expect.any(String) },
        body: { valid: true, message: expect.any(String) }, unsubscribe: { valid: true, message: expect.any(String) },
        recipients: { valid: true, message: '2 recipient(s)', count: 2 }, senderDomain: { valid: true, message: expect.any(String) },
        launchDate: { valid: true, message: 'Launch as soon as possible' },
      },
    });
  });

  it('names each failure with a code and where to fix it', async () => {
    const bare = await create('name=Bare');
    const validation = await validate(bare.id);
    expect(validation.valid).toBe(false);
    const campaignUrl = `${herald.baseUrl}${base()}/${bare.id}`;
    expect(validation.tests.contents).toEqual({
      valid: false, message: expect.stringMatching(/no content/), warnings: [],
      errors: [{ code: 'CONTENT_MISSING', message: expect.stringMatching(/no content/), moreInfo: `${campaignUrl}/contents` }],
    });
    expect(validation.tests.recipients.errors).toEqual([{ code: 'NO_RECIPIENTS', message: expect.any(String), moreInfo: campaignUrl }]);
    expect(validation.tests.account.valid).toBe(false);
    expect(validation.tests.launchDate).toEqual(passed);
    expect(Object.entries(validation.checks).filter(([, c]) => !(c as Json).valid).map(([name]) => name).sort())
      .toEqual(['body', 'recipients', 'sender', 'senderDomain', 'subject', 'unsubscribe']);
  });

  it('is refused outside DRAFT', async () => {
    const { campaign } = await ready('&launchMode=SCHEDULED&launch=2031-01-01T00:00:00Z');
    expect((await call('POST', `${base()}/${campaign.id}/launch`)).status).toBe(200);
    expectError(await call('GET', `${base()}/${campaign.id}/validate`), 400, 'BAD_REQUEST', /SCHEDULED/);
    expect((await call('POST', `${base()}/${campaign.id}/cancel`)).body.data.state).toBe('CANCELLED');
  });
});

describe('launch refused by validation: 400 INVALID_REQUEST with moreInfo, the campaign still DRAFT', () => {
  /** `form`: the launch's body; a launchDate given there is the launch's own, which …/validate does not see. */
  async function expectRefused(id: number, code: string, test: string, message: RegExp, form?: string) {
    const tasksBefore = (await call('GET', `/v2/${acme.account}/tasks`)).body.paging.total;
    const answer = await call('POST', `${base()}/${id}/launch`, form === undefined ? {} : { form });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      href: `${base()}/${id}/launch`, success: false,
      error: { status: 400, type: 'INVALID_REQUEST', userMessage: expect.stringMatching(message), moreInfo: `${herald.baseUrl}${base()}/${id}/validate` },
    });
    expect(await stateOf(id)).toBe('DRAFT');
    expect((await call('GET', `/v2/${acme.account}/tasks`)).body.paging.total).toBe(tasksBefore);
    if (form !== undefined) return;
    const validation = (await call('GET', `${base()}/${id}/validate`)).body.data;
    expect(validation.valid).toBe(false);
    expect(validation.tests[test].errors.map((e: Json) => e.code)).toContain(code);
  }

  it('without a content', async () => {
    const campaign = await create(`name=No%20content&include[lists][]=${listId}`);
    await expectRefused(campaign.id, 'CONTENT_MISSING', 'contents', /no content/);
  });

  it('without an HTML body', async () => {
    const campaign = await create(`name=No%20body&include[lists][]=${listId}`);
    await addContent(campaign.id);
    await expectRefused(campaign.id, 'BODY_MISSING', 'contents', /no HTML body/);
  });

  it('without recipients (an empty list, or only unsubscribed contacts)', async () => {
    const empty = (await call('POST', `/v2/${acme.account}/lists`, { json: { name: 'Empty' } })).body.data.id;
    const { campaign } = await ready();
    await call('PUT', `${base()}/${campaign.id}`, { form: `include[lists][]=${empty}` });
    await expectRefused(campaign.id, 'NO_RECIPIENTS', 'recipients', /no recipients/);
    const gone = await call('POST', `/v2/${acme.account}/lists/${empty}/contacts`, { json: { email: 'gone@example.com' } });
    await call('POST', `/v2/${acme.account}/contacts/${gone.body.data.id}/unsubscribe`);
    await expectRefused(campaign.id, 'NO_RECIPIENTS', 'recipients', /no recipients/);
  });

  it('from a sender domain the account may not use', async () => {
    const picky = await herald.newAccount();
    await updateAccountSettings(herald.services.store, picky.account, { senderDomains: ['picky.example'] });
    const as = (method: string, path: string, options: { json?: unknown; form?: string } = {}) => callHerald(herald.baseUrl, method, `/v2/${picky.account}${path}`, { ...options, headers: { authorization: `Bearer ${picky.apiKey}` } });
    const list = (await as('POST', '/lists', { json: { name: 'L' } })).body.data.id;
    await as('POST', `/lists/${list}/contacts`, { json: { email: 'x@example.com' } });
    const campaign = (await as('POST', '/campaigns', { form: `name=Picky&include[lists][]=${list}` })).body.data;
    const content = (await as('POST', `/campaigns/${campaign.id}/contents`, { form: 'subject=S&from=me@other.example&fromName=Me' })).body.data;
    await fetch(`${herald.baseUrl}/v2/${picky.account}/campaigns/${campaign.id}/contents/${content.id}.html`, {
      method: 'PUT', headers: { authorization: `Bearer ${picky.apiKey}`, 'content-type': 'text/html' }, body: '<p>Hi</p>',
    });
    const answer = await as('POST', `/campaigns/${campaign.id}/launch`);
    expect([answer.status, answer.body.error.type]).toEqual([400, 'INVALID_REQUEST']);
    expect(answer.body.error.moreInfo).toBe(`${herald.baseUrl}/v2/${picky.account}/campaigns/${campaign.id}/validate`);
    expect(answer.body.error.userMessage).toMatch(/domain/);
    const validation = (await as('GET', `/campaigns/${campaign.id}/validate`)).body.data;
    expect(validation.tests.account.errors.map((e: Json) => e.code)).toEqual(['SENDER_DOMAIN_NOT_ALLOWED']);
    expect(validation.tests.contents.valid).toBe(true);
    expect((await as('GET', `/campaigns/${campaign.id}`)).body.data.state).toBe('DRAFT');
    // An allowed sender passes.
    await as('PUT', `/campaigns/${campaign.id}/contents/${content.id}`, { form: 'from=me@PICKY.example' });
    expect((await as('GET', `/campaigns/${campaign.id}/validate`)).body.data.valid).toBe(true);
  });

  it('without an unsubscribe link (footer off and none in the body)', async () => {
    const { campaign, content } = await ready('&options[USE_FOOTER]=0');
    await expectRefused(campaign.id, 'UNSUBSCRIBE_LINK_MISSING', 'contents', /unsubscribe/);
    await raw('PUT', `${base()}/${campaign.id}/contents/${content.id}.html`, '<p>Hi <a href="${urls.unsubscribe}">leave</a></p>');
    expect((await call('GET', `${base()}/${campaign.id}/validate`)).body.data.valid).toBe(true);
  });

  it('with a launch date in the past (given, or the campaign\'s own when SCHEDULED)', async () => {
    const { campaign } = await ready('&launchMode=SCHEDULED&launch=2020-01-01T00:00:00Z');
    await expectRefused(campaign.id, 'LAUNCH_DATE_IN_PAST', 'launchDate', /in the past/);
    const other = (await ready()).campaign;
    await expectRefused(other.id, 'LAUNCH_DATE_IN_PAST', 'launchDate', /in the past/, 'launchDate=2020-01-01T00:00:00Z');
    expectError(await call('POST', `${base()}/${other.id}/launch`, { form: 'launchDate=soon' }), 400, 'VALIDATION_ERROR');
  });
});

describe('launch', () => {
  it('follows the spec\'s creation order over form bodies, answering the task exactly', async () => {
    // (1) the campaign with its recipients, (2) the content, (3) the HTML, (4) the launch.
    const campaign = await create(`name=Spec%20order&tags[]=spec&include[lists][]=${listId}&options[TRACK_LINKS]=1`);
    const content = await addContent(campaign.id, 'type=HTML&subject=Spec%20order&from=news@example.com&fromName=News&replyTo=help@example.com');
    expect((await raw('PUT', `${base()}/${campaign.id}/contents/${content.id}.html`, '<html><body>Hi ${contact.email}</body></html>')).status).toBe(200);
    const answer = await call('POST', `${base()}/${campaign.id}/launch`, { form: '' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      href: `${base()}/${campaign.id}/launch`, success: true,
      task: {
        id: expect.any(Number), type: 'CAMPAIGN_LAUNCH', name: expect.any(String), state: 'QUEUED', cancellable: true, message: expect.any(String),
        owner: expect.any(String), created: ISO, init: null, end: null, completed: 0, eta: -1,
        request: `/${acme.account}/campaigns/${campaign.id}/launch`, parameters: { campaignId: campaign.id, launchDate: ISO }, result: null,
      },
    });
    const task = answer.body.task;
    expect(Math.abs(Date.parse(task.parameters.launchDate) - Date.now())).toBeLessThan(60_000);
    expect((await call('GET', `/v2/${acme.account}/tasks/${task.id}`)).body.data).toMatchObject({ id: task.id, type: 'CAMPAIGN_LAUNCH' });
    expect(['SCHEDULED', 'SENDING', 'SENT']).toContain(await stateOf(campaign.id));

    // Whatever it is now, it is no DRAFT: every DRAFT-only change is refused, naming the state; tags still change.
    const notDraft = /is (SCHEDULED|SENDING|SENT)/;
    expectError(await call('POST', `${base()}/${campaign.id}/launch`), 400, 'BAD_REQUEST', notDraft);
    expectError(await call('PUT', `${base()}/${campaign.id}`, { form: 'name=Renamed&tags[]=spec' }), 400, 'BAD_REQUEST', /only its tags can change \(refused: name/);
    expect((await call('PUT', `${base()}/${campaign.id}`, { form: 'tags[]=spec&tags[]=sent' })).body.data).toEqual({ id: campaign.id, tags: ['spec', 'sent'] });
    expectError(await call('DELETE', `${base()}/${campaign.id}`), 400, 'BAD_REQUEST', notDraft);
    expectError(await call('PUT', `${base()}/${campaign.id}/contents/${content.id}`, { form: 'subject=Changed' }), 400, 'BAD_REQUEST', notDraft);
    expectError((await raw('PUT', `${base()}/${campaign.id}/contents/${content.id}.html`, '<p>Changed</p>')) as Json, 400, 'BAD_REQUEST', notDraft);
    expectError(await call('DELETE', `${base()}/${campaign.id}/contents/${content.id}`), 400, 'BAD_REQUEST', notDraft);
    expectError(await call('POST', `${base()}/${campaign.id}/contents`, { form: 'subject=S&from=a@example.com&fromName=A' }), 400, 'BAD_REQUEST', notDraft);
    const detail = (await call('GET', `${base()}/${campaign.id}`)).body.data;
    expect(detail).toMatchObject({ name: 'Spec order', tags: ['spec', 'sent'], contents: [expect.objectContaining({ subject: 'Spec order' })] });
  });

  it('schedules at a given launch date (an offset), pauses, resumes, stops back to DRAFT, relaunches at its own date, cancels', async () => {
    const { campaign } = await ready('&launchMode=SCHEDULED&launch=2031-03-01T09:00:00Z');
    const root = `${base()}/${campaign.id}`;
    // An unencoded + in a form body reads as a space, and still means +.
    const launched = await call('POST', `${root}/launch`, { form: 'launchDate=2030-12-24T20:00:00+0200' });
    expect(launched.body.task.parameters).toEqual({ campaignId: campaign.id, launchDate: '2030-12-24T18:00:00.000Z' });
    expect((await call('GET', root)).body.data).toMatchObject({ state: 'SCHEDULED', paused: false, launchDate: '2030-12-24T18:00:00.000Z' });
    expect((await call('POST', `${root}/pause`)).body.data).toMatchObject({ state: 'SCHEDULED', paused: true });
    expect((await call('POST', `${root}/resume`)).body.data).toMatchObject({ state: 'SCHEDULED', paused: false });
    const stopped = await call('POST', `${root}/stop`);
    expect(stopped.body.data.state).toBe('DRAFT');
    expect(stopped.body.data.paused).toBeUndefined();
    expect((await call('GET', `/v2/${acme.account}/tasks/${launched.body.task.id}`)).body.data.state).toBe('CANCELLED');
    expectError(await call('POST', `${root}/stop`), 400, 'BAD_REQUEST', /DRAFT/);
    expectError(await call('POST', `${root}/cancel`), 400, 'BAD_REQUEST', /DRAFT/);
    expectError(await call('POST', `${root}/pause`), 400, 'BAD_REQUEST', /DRAFT/);

    // No launchDate in the body: the campaign's own (launchMode SCHEDULED).
    await call('PUT', root, { form: 'launch=2031-04-01T00:00:00Z' });
    const again = await call('POST', `${root}/launch`, { json: {} });
    expect(again.body.task.parameters.launchDate).toBe('2031-04-01T00:00:00.000Z');
    const cancelled = await call('POST', `${root}/cancel`);
    // The whole answer, so that a refusal shows its status and error (a fresh-clone CI run once got no data here).
    expect({ status: cancelled.status, body: cancelled.body }).toMatchObject({ status: 200, body: { data: { state: 'CANCELLED', archived: null } } });
    expect(cancelled.body.data.paused).toBeUndefined();
    expectError(await call('POST', `${root}/launch`), 400, 'BAD_REQUEST', /CANCELLED/);
    expectError(await call('POST', `${root}/resend-failed`), 400, 'BAD_REQUEST', /CANCELLED/);
    expectError(await call('DELETE', root), 400, 'BAD_REQUEST', /CANCELLED/);
    expect((await call('POST', `${root}/archive`)).body.data.archived).toEqual(ISO);
    expectError(await call('PUT', root, { json: { description: 'late' } }), 400, 'BAD_REQUEST', /CANCELLED: only its tags/);
  });
});

describe('reports and test sends', () => {
  it('answers a DRAFT\'s metrics, and checks the actions query', async () => {
    const campaign = await create('name=Reports');
    const metrics = await call('GET', `${base()}/${campaign.id}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body.data).toMatchObject({ sent: 0 });
    const actions = `${base()}/${campaign.id}/actions`;
    expectError(await call('GET', actions), 400, 'VALIDATION_ERROR');
    expectError(await call('GET', `${actions}?filter[type]=ALL`), 400, 'VALIDATION_ERROR');
    expectError(await call('GET', `${actions}?filter[type]=FORWARD`), 400, 'VALIDATION_ERROR');
    const page = await call('GET', `${actions}?filter[type]=open`);
    expect(page.body).toMatchObject({ success: true, data: [], paging: { offset: 0, limit: 20, results: 0, total: 0 }, sort: { sortby: 'date', sortdir: 'desc' } });
    expect((await call('GET', `${actions}?filter[type]=ALL&q=ana@example.com`)).status).toBe(200);
  });

  it('sends the content to 1 to 10 test addresses', async () => {
    const campaign = await create('name=Test%20send');
    const content = await addContent(campaign.id);
    const sendtest = `${base()}/${campaign.id}/contents/${content.id}/sendtest`;
    expectError(await call('POST', sendtest, { json: { emails: ['qa@example.com'] } }), 400, 'BAD_REQUEST', /no HTML body/);
    await raw('PUT', `${base()}/${campaign.id}/contents/${content.id}.html`, '<p>Test</p>');
    expectError(await call('POST', sendtest, { json: { emails: [] } }), 400, 'VALIDATION_ERROR');
    expectError(await call('POST', sendtest, { json: { emails: [...Array(11).keys()].map((i) => `qa${i}@example.com`) } }), 400, 'VALIDATION_ERROR');
    expectError(await call('POST', sendtest, { form: 'emails[]=not-an-address' }), 400, 'VALIDATION_ERROR');
    const answer = await call('POST', sendtest, { form: 'emails[]=qa1@example.com&emails[]=QA2@example.com' });
    expect(answer.body).toEqual({ href: sendtest, success: true, data: { emails: ['qa1@example.com', 'qa2@example.com'], requestId: expect.any(String), batchId: expect.any(String) } });
    await waitUntil('the test messages', async () => herald.sink.received.filter((m) => m.rcptTo.some((r) => r.startsWith('qa'))).length === 2);
    expect(await stateOf(campaign.id)).toBe('DRAFT');
  });
});
