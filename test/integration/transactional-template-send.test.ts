// `template_id` in POST /v1/mail/send, over HTTP against the real stack: the account's HTML or MJML
// template gives the content, subject, from and reply_to the request leaves out; whatever the
// request gives wins; substitutions apply to the template's subject and HTML; an id the account
// cannot send (unknown, another account's, a folder) or a field neither gives is a validation
// error, reported with the body's other errors; the stored request is complete (merged at accept).
import type { NewAccount } from '../../core/accounts/accounts';
import { updateAccountSettings } from '../../core/accounts/settings';
import { readHttpBody } from '../../core/transactional/request';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import { ledgerCount } from '../support/ledger';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
let html: Json;
let mjml: Json;
let bare: Json;
let box: Json;
let inBox: Json;

const HTML_SOURCE = '<html><body><p>Hello ${user.name}, your order ${order.id}</p></body></html>';
const MJML_SOURCE = `<mjml><mj-body><mj-section><mj-column>
  <mj-text>Hi \${user.name} from MJML</mj-text>
</mj-column></mj-section></mj-body></mjml>`;

async function createTemplate(owner: NewAccount, body: Json): Promise<Json> {
  const answer = await callHerald(herald.baseUrl, 'POST', `/v2/${owner.account}/templates`, { headers: { authorization: `Bearer ${owner.apiKey}` }, json: body });
  expect([answer.status, answer.body.error]).toEqual([201, undefined]);
  return answer.body.data;
}

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
  other = await herald.newAccount();
  html = await createTemplate(acme, {
    name: 'Order', type: 'HTML', htmlRaw: HTML_SOURCE, subject: 'Order ${order.id} for ${user.name}',
    from: { email: 'orders@acme.example', name: 'Acme Orders' }, reply_to: { email: 'help@acme.example', name: 'Acme Help' },
  });
  mjml = await createTemplate(acme, { name: 'News', type: 'MJML', mjmlRaw: MJML_SOURCE, subject: 'News for ${user.name}', from: { email: 'news@acme.example' } });
  bare = await createTemplate(acme, { name: 'Bare', type: 'HTML', htmlRaw: '<p>Bare</p>' });
  box = await createTemplate(acme, { name: 'Box', type: 'FOLDER' });
  inBox = await createTemplate(acme, { name: 'Boxed', type: 'HTML', htmlRaw: '<p>Boxed ${user.name}</p>', subject: 'Boxed', location: box.id, from: { email: 'box@acme.example' } });
});
afterAll(() => herald?.stop());

const send = (json: unknown, headers: Record<string, string> = {}) =>
  callHerald(herald.baseUrl, 'POST', '/v1/mail/send', { headers: { authorization: `Bearer ${acme.transactionalKey}`, ...headers }, json });
const byTemplate = (templateId: string, to: string, extra: Json = {}): Json => ({
  template_id: templateId,
  recipients: [{ to: { email: to, name: 'Ada' }, substitutions: { user: { name: 'Ada & Bob' } } }],
  substitutions: { order: { id: 'A-7' } },
  ...extra,
});
const stored = () => herald.services.store.sendRequests.countDocuments({ account: acme.account });

/** The sink's mail to this address, once it arrived. */
async function mailTo(email: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const mail = herald.sink.received.find((m) => m.rcptTo.includes(email));
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function expectRefused(body: Json, errors: Record<string, string>) {
  const before = await stored();
  const answer = await send(body);
  expect([answer.status, answer.body?.error?.type, answer.body?.error?.errors]).toEqual([400, 'validation_error', errors]);
  expect(await stored()).toBe(before);
  return answer.body.error.message as string;
}

describe('a send by template_id', () => {
  it('sends an HTML template with its subject, from and reply_to, substitutions applied', async () => {
    const answer = await send(byTemplate(html.id, 'html@example.net'));
    expect(answer.status).toBe(202);
    const mail = await mailTo('html@example.net');
    expect(mail.parsed.subject).toBe('Order A-7 for Ada & Bob');
    expect(mail.parsed.from?.value[0]).toEqual({ address: 'orders@acme.example', name: 'Acme Orders' });
    expect(mail.parsed.replyTo?.value[0]).toEqual({ address: 'help@acme.example', name: 'Acme Help' });
    expect(mail.parsed.html).toContain('<p>Hello Ada &amp; Bob, your order A-7</p>'); // escaped in HTML, as a content's
    // The stored request is complete: the template merged in at acceptance, its id not kept.
    const body = readHttpBody((await herald.services.store.sendRequests.findOne({ account: acme.account, batchId: answer.headers.get('herald-batch-id')! }))!);
    expect(body).toMatchObject({ subject: html.subject, from: html.from, reply_to: html.reply_to, content: { html: HTML_SOURCE } });
    expect(body).not.toHaveProperty('template_id');
    expect(body.content).not.toHaveProperty('text');
  });

  it('sends an MJML template as its compiled HTML', async () => {
    expect((await send(byTemplate(mjml.id, 'mjml@example.net'))).status).toBe(202);
    const mail = await mailTo('mjml@example.net');
    expect(mail.parsed.subject).toBe('News for Ada & Bob');
    expect(mail.parsed.from?.value[0].address).toBe('news@acme.example');
    expect(mail.parsed.replyTo).toBeUndefined();
    expect(mail.parsed.html).toMatch(/^<!doctype html>/i);
    expect(mail.parsed.html).toContain('Hi Ada &amp; Bob from MJML');
    expect(mail.parsed.html).not.toContain('<mj-');
  });

  it.each([
    ['from', { from: { email: 'me@acme.example', name: 'Me' } }, (mail: Json) => expect(mail.parsed.from.value[0]).toEqual({ address: 'me@acme.example', name: 'Me' })],
    ['reply_to', { reply_to: { email: 'desk@acme.example' } }, (mail: Json) => expect(mail.parsed.replyTo.value[0].address).toBe('desk@acme.example')],
    ['subject', { subject: 'Mine, ${user.name}' }, (mail: Json) => expect(mail.parsed.subject).toBe('Mine, Ada & Bob')],
    ['content.html', { content: { html: '<p>My own ${order.id}</p>' } }, (mail: Json) => {
      expect(mail.parsed.html).toContain('<p>My own A-7</p>');
      expect(mail.parsed.html).not.toContain('Hello');
    }],
    ['content.text (added to the template\'s HTML)', { content: { text: 'Text for ${user.name}' } }, (mail: Json) => {
      expect(mail.parsed.text.trim()).toBe('Text for Ada & Bob');
      expect(mail.parsed.html).toContain('Hello Ada &amp; Bob');
    }],
  ])('lets the request override the template\'s %s, keeping the rest', async (field, override, check) => {
    const to = `override-${field.replace(/[^a-z]/g, '')}@example.net`;
    expect((await send(byTemplate(html.id, to, override))).status).toBe(202);
    const mail = await mailTo(to);
    check(mail);
    if (field !== 'subject') expect(mail.parsed.subject).toBe('Order A-7 for Ada & Bob');
    if (field !== 'from') expect(mail.parsed.from?.value[0].address).toBe('orders@acme.example');
  });

  it('takes the id as the templates API gives it, or without its leading slash', async () => {
    expect(inBox.id).toMatch(/^\/\d+\/\d+$/);
    expect((await send(byTemplate(inBox.id, 'boxed@example.net'))).status).toBe(202);
    expect((await send(byTemplate(inBox.id.slice(1), 'boxed2@example.net'))).status).toBe(202);
    expect((await mailTo('boxed@example.net')).parsed.html).toContain('<p>Boxed Ada &amp; Bob</p>');
    expect((await mailTo('boxed2@example.net')).parsed.subject).toBe('Boxed');
  });

  it('sends cc and bcc the same copy, as without a template', async () => {
    const body = byTemplate(html.id, 'with-cc@example.net');
    body.recipients[0] = { ...body.recipients[0], cc: [{ email: 'cc@example.net' }], bcc: [{ email: 'bcc@example.net' }] };
    expect((await send(body)).status).toBe(202);
    const mail: Json = await mailTo('with-cc@example.net');
    expect(mail.rcptTo.sort()).toEqual(['bcc@example.net', 'cc@example.net', 'with-cc@example.net']);
    expect(mail.parsed.cc?.value[0].address).toBe('cc@example.net');
    expect(mail.parsed.headers.has('bcc')).toBe(false);
    expect(mail.parsed.html).toContain('Hello Ada &amp; Bob');
  });

  it('treats null and empty from, subject and content as absent (the Java SDK\'s unset fields)', async () => {
    const answer = await send(byTemplate(html.id, 'sdk-template@example.net', { from: null, reply_to: null, subject: null, content: { html: null, text: null } }));
    expect(answer.status).toBe(202);
    expect((await mailTo('sdk-template@example.net')).parsed.subject).toBe('Order A-7 for Ada & Bob');
  });

  it('replays an Idempotency-Key for the same body even after the template changed', async () => {
    const template = await createTemplate(acme, { name: 'Changing', type: 'HTML', htmlRaw: '<p>v1</p>', subject: 'v1', from: { email: 'v@acme.example' } });
    const headers = { 'idempotency-key': 'template-retry-1' };
    const first = await send(byTemplate(template.id, 'retry@example.net'), headers);
    expect(first.status).toBe(202);
    const changed = await callHerald(herald.baseUrl, 'PUT', `/v2/${acme.account}/templates${template.id}`,
      { headers: { authorization: `Bearer ${acme.apiKey}` }, json: { htmlRaw: '<p>v2</p>' } });
    expect(changed.status).toBe(200);
    const retry = await send(byTemplate(template.id, 'retry@example.net'), headers);
    expect([retry.status, retry.headers.get('herald-batch-id')]).toEqual([202, first.headers.get('herald-batch-id')]);
    expect((await mailTo('retry@example.net')).parsed.html).toContain('<p>v1</p>');
  });
});

describe('refused', () => {
  it.each([
    ['an unknown id', () => '/999999'],
    ['the original\'s id shape', () => 'etpl_5f8a2b'],
    ['an empty id', () => ''],
    // Numbers are per account: inside a folder of the other account, its id (`/1/2`) is one acme cannot have.
    ['another account\'s template', async () => {
      const theirs = await createTemplate(other, { name: 'Theirs', type: 'FOLDER' });
      return (await createTemplate(other, { name: 'Theirs', type: 'HTML', htmlRaw: '<p>x</p>', subject: 'x', from: { email: 'x@other.example' }, location: theirs.id })).id;
    }],
    ['a folder', () => box.id],
  ])('%s: invalid_value on template_id, nothing stored or sent', async (_label, id) => {
    const templateId = await id();
    const message = await expectRefused(byTemplate(templateId, 'refused@example.net'), { template_id: 'invalid_value' });
    expect(message).toContain(`template_id: No HTML or MJML template ${JSON.stringify(templateId)} in this account`);
  });

  it('a template without subject or from, and none in the request: required on each, saying neither gives it', async () => {
    const message = await expectRefused(byTemplate(bare.id, 'refused@example.net'), { from: 'required', subject: 'required' });
    expect(message).toContain(`subject: Neither the request nor template ${bare.id} gives a subject`);
    expect(message).toContain(`from: Neither the request nor template ${bare.id} gives a from`);
    // Given in the request, the same template sends.
    expect((await send(byTemplate(bare.id, 'bare@example.net', { subject: 'Given', from: { email: 'shop@acme.example' } }))).status).toBe(202);
    expect((await mailTo('bare@example.net')).parsed.html).toContain('<p>Bare</p>');
  });

  it('a malformed substitution in the template: invalid_value on template_id, naming the template\'s field', async () => {
    const broken = await createTemplate(acme, { name: 'Broken', type: 'HTML', htmlRaw: '<p>[#if user.vip]VIP</p>', subject: 'Hi ${user.name', from: { email: 'b@acme.example' } });
    const message = await expectRefused(byTemplate(broken.id, 'refused@example.net'), { template_id: 'invalid_value' });
    expect(message).toMatch(new RegExp(`template_id: Template ${broken.id}, its (subject|content\\.html): `));
    // The request's own subject and HTML replace the broken ones: it sends.
    expect((await send(byTemplate(broken.id, 'fixed@example.net', { subject: 'Fine', content: { html: '<p>Fine</p>' } }))).status).toBe(202);
  });

  it('reports the template\'s error with every other error of the body at once', async () => {
    await expectRefused({ ...byTemplate('/999999', 'not-an-email'), tags: Array(11).fill('t'), subject: 'x'.repeat(201) },
      { template_id: 'invalid_value', 'recipients[0].to.email': 'invalid_value', tags: 'too_many_items', subject: 'max_length_exceeded' });
    await expectRefused({ ...byTemplate(bare.id, 'not-an-email'), reply_to: { email: 'nope' } },
      { from: 'required', subject: 'required', 'recipients[0].to.email': 'invalid_value', 'reply_to.email': 'invalid_value' });
  });

  it('the template\'s from outside the account\'s sender domains: 403 forbidden, as a request\'s own', async () => {
    const strict = await herald.newAccount();
    await updateAccountSettings(herald.services.store, strict.account, { senderDomains: ['strict.example'] });
    const template = await createTemplate(strict, { name: 'Elsewhere', type: 'HTML', htmlRaw: '<p>x</p>', subject: 'x', from: { email: 'news@elsewhere.example' } });
    const sendAs = (to: string, extra: Json) => callHerald(herald.baseUrl, 'POST', '/v1/mail/send',
      { headers: { authorization: `Bearer ${strict.transactionalKey}` }, json: byTemplate(template.id, to, extra) });
    const refused = await sendAs('refused@example.net', {});
    expect([refused.status, refused.body.error.type]).toEqual([403, 'forbidden']);
    expect(refused.body.error.message).toContain('origin address not allowed');
    expect((await sendAs('strict@example.net', { from: { email: 'news@strict.example' } })).status).toBe(202);
    await mailTo('strict@example.net');
  });

  it('sent nothing to the refused requests', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(herald.sink.received.filter((m) => m.rcptTo.includes('refused@example.net'))).toEqual([]);
    expect(await ledgerCount(herald.services.store, { account: acme.account, email: 'refused@example.net' })).toBe(0);
  });
});
