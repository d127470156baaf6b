// Custom trigger events starting automations, over HTTP on the real stack (API, worker, Temporal,
// the store, the SMTP sink): automations created and activated through the account API, events
// posted to the integration's address. The event's contact is created when missing; only enabled
// automations whose key equals the event's exactly fire (each of them); the context and the
// contact are substituted in subject and body; unsubscribed and suppressed contacts get a
// track.mail.dropped event and no mail; a deactivation stops a run waiting in its timer; each run
// is found in Temporal by account, automation and contact. Timers at full length: the wait steps
// themselves are tested on the time-skipping server (test/workflows/trigger-automation.test.ts).
import type { NewAccount } from '../../core/accounts/accounts';
import { automationBatchId } from '../../core/automations/model';
import type { EventDoc } from '../../adapters/store/store';
import { suppress } from '../../core/sending/suppressions';
import { workflowIds } from '../../adapters/temporal/contracts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import { waitUntil } from '../support/wait';
import { ledgerRows } from '../support/ledger';

let herald: TestHerald;
let acme: NewAccount;
let account: string;
let triggerPath: string;

const call = (method: string, path: string, json?: unknown) =>
  callHerald(herald.baseUrl, method, `/v2/${account}${path}`, { json, headers: { authorization: `Bearer ${acme.apiKey}` } });

async function createAutomation(key: string, steps: object[], activate = true): Promise<Json> {
  const created = await call('POST', '/automations', { name: `On ${key}`, tags: ['orders'], trigger: { type: 'custom', key }, steps });
  expect([created.status, created.body.error]).toEqual([201, undefined]);
  if (activate) expect((await call('POST', `/automations/${created.body.data.id}/activate`)).status).toBe(200);
  return created.body.data;
}

const emailStep = (subject: string, html: string, text?: string) => ({ type: 'email', subject, from: 'shop@example.com', fromName: 'The shop', html, ...(text ? { text } : {}) });

/** Posts an event to the trigger address; its event id. */
async function postEvent(key: string, contact: string, context: object = {}): Promise<string> {
  const answer = await callHerald(herald.baseUrl, 'POST', triggerPath, { json: { trigger_key: key, contact, context } });
  expect([answer.status, answer.body.error]).toEqual([202, undefined]);
  return answer.body.data.event_id;
}

/** The automations an event started, once its TriggerAutomation workflow ended. */
const startedBy = async (eventId: string): Promise<number[]> =>
  (await herald.services.temporal.workflow.getHandle(workflowIds.triggerEvent(account, eventId)).result()).started;

const runOf = (eventId: string, automationId: number | string) => herald.services.temporal.workflow.getHandle(workflowIds.automationRun(account, eventId, Number(automationId)));
const mailsTo = (email: string) => herald.sink.received.filter((mail) => mail.rcptTo[0] === email);
const eventsOf = (email: string): Promise<EventDoc[]> => herald.services.store.events.find({ account, email }).sort({ _id: 1 }).toArray();
const statsOf = async (automation: Json) => (await call('GET', `/automations/${automation.id}`)).body.data.stats;

let paid: Json;
let paidToo: Json;
let others: Json[];

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
  account = acme.account;
  const activated = await call('POST', '/integrations/customtriggers/activate');
  expect(activated.status).toBe(201);
  triggerPath = new URL(activated.body.data.trigger_url).pathname;
  paid = await createAutomation('order_paid', [emailStep(
    'Order ${order.id} paid, ${contact.first_name!"friend"}',
    '<p>Total ${order.total} for ${contact.email} (${contact.customer_no}, ${contact.CUSTOMER_NO})</p><a href="${urls.online_version}">Online</a>',
    'Thanks ${contact.first_name!"friend"}: ${order.total}',
  )]);
  paidToo = await createAutomation('order_paid', [emailStep('Also paid', '<p>Also</p>')]);
  others = [
    await createAutomation('order_paid2', [emailStep('Longer key', '<p>x</p>')]),
    await createAutomation('order_shipped', [emailStep('Another key', '<p>x</p>')]),
    await createAutomation('order_paid', [emailStep('Never activated', '<p>x</p>')], false),
  ];
  const deactivated = await createAutomation('order_paid', [emailStep('Deactivated', '<p>x</p>')]);
  expect((await call('POST', `/automations/${deactivated.id}/deactivate`)).status).toBe(200);
  others.push(deactivated);
  // A contact with a name and a custom field; an unsubscribed one; a suppressed address.
  const now = new Date();
  await herald.services.store.fields.insertOne({ _id: `${account}:10`, account, id: 10, name: 'Customer number', tag: 'CUSTOMER_NO', format: 'TEXT', created: now, lastModified: now });
  expect((await call('POST', '/contacts', { email: 'kim@example.net', firstName: 'Kim', customFields: [{ id: 10, value: 'C-77' }] })).status).toBe(200);
  expect((await call('POST', '/contacts', { email: 'gone@example.net' })).status).toBe(200);
  expect((await call('POST', '/contacts/gone@example.net/unsubscribe')).status).toBe(200);
  await suppress(herald.services.store, account, 'blocked@example.net', 'complained');
}, 60_000);
afterAll(() => herald?.stop());

it('creates the missing contact (source CUSTOM_TRIGGER) and starts every enabled automation of exactly that key', async () => {
  const eventId = await postEvent('order_paid', 'New.Buyer@Example.NET', { order: { id: 7, total: '9.50' } });
  expect((await startedBy(eventId)).sort((a, b) => a - b)).toEqual([Number(paid.id), Number(paidToo.id)]);
  await waitUntil('both emails', async () => mailsTo('new.buyer@example.net').length === 2);
  expect(mailsTo('new.buyer@example.net').map((mail) => mail.parsed.subject).sort()).toEqual(['Also paid', 'Order 7 paid, friend']);
  const contact = await call('GET', '/contacts/new.buyer@example.net');
  expect(contact.body.data).toMatchObject({ email: 'new.buyer@example.net', state: 'ACTIVE', source: 'CUSTOM_TRIGGER' });
  expect(await runOf(eventId, paid.id).result()).toBe('completed');
  await waitUntil('the stats', async () => (await statsOf(paid)).completed === 1);
  expect(await statsOf(paid)).toMatchObject({ triggered: 1, completed: 1, active: 0, exited: 0, failed: 0 });
  const sent = (await eventsOf('new.buyer@example.net')).filter((event) => event.track_type === 'track.mail.sent');
  expect(sent.map((event) => event.batch_id).sort()).toEqual([automationBatchId(account, paid.id), automationBatchId(account, paidToo.id)].sort());
  expect(sent[0]).toMatchObject({ mail_type: 'automation', tags: ['orders'] });

  // The run's workflow is found by account, automation and contact (the Temporal UI's query).
  const query = `HeraldAutomation = '${paid.id}' AND HeraldContact = 'new.buyer@example.net' AND HeraldAccount = '${account}'`;
  await waitUntil('the run in the visibility store', async () => (await herald.services.temporal.workflow.count(query)).count === 1);
  const found: string[] = [];
  for await (const info of herald.services.temporal.workflow.list({ query })) found.push(`${info.type} ${info.workflowId}`);
  expect(found).toEqual([`AutomationRun ${workflowIds.automationRun(account, eventId, Number(paid.id))}`]);
});

it('never starts automations of another key, a longer key, a disabled or deactivated one; a key with capitals is refused', async () => {
  for (const key of ['order_paid2', 'order_pai', 'paid']) {
    const eventId = await postEvent(key, 'keys@example.net');
    expect(await startedBy(eventId)).toEqual(key === 'order_paid2' ? [Number(others[0].id)] : []);
  }
  const refused = await callHerald(herald.baseUrl, 'POST', triggerPath, { json: { trigger_key: 'Order_paid', contact: 'keys@example.net' } });
  expect([refused.status, Object.keys(refused.body.error.validationErrors)]).toEqual([400, ['trigger_key']]);
  for (const automation of others.slice(1)) expect((await statsOf(automation)).triggered).toBe(0);
  await waitUntil('the longer key\'s email', async () => mailsTo('keys@example.net').length === 1);
  expect(mailsTo('keys@example.net')[0].parsed.subject).toBe('Longer key');
});

it('substitutes the context (${key}) and the contact (${contact.*}, custom fields by tag), the contact winning over a context key of that name', async () => {
  const eventId = await postEvent('order_paid', 'kim@example.net', { order: { id: 8, total: '12.00' }, contact: { email: 'spoof@example.org' } });
  await startedBy(eventId);
  await waitUntil('the email', async () => mailsTo('kim@example.net').find((mail) => mail.parsed.subject?.startsWith('Order')));
  const mail = mailsTo('kim@example.net').find((m) => m.parsed.subject?.startsWith('Order'))!;
  expect(mail.parsed.subject).toBe('Order 8 paid, Kim');
  expect(mail.parsed.html).toContain('<p>Total 12.00 for kim@example.net (C-77, C-77)</p>');
  expect(mail.parsed.text).toContain('Thanks Kim: 12.00');
  expect(mail.parsed.to).toMatchObject({ value: [{ name: 'Kim', address: 'kim@example.net' }] });
  expect(mail.parsed.from).toMatchObject({ value: [{ name: 'The shop', address: 'shop@example.com' }] });
  // Its online version: rendered again from the run's step, the event's context and the contact.
  const online = /href="([^"]+\/t\/v\/[^"]+)"/.exec(String(mail.parsed.html))![1];
  const page = await fetch(`${herald.baseUrl}${new URL(online).pathname}`);
  expect([page.status, await page.text()]).toEqual([200, expect.stringContaining('<p>Total 12.00 for kim@example.net (C-77, C-77)</p>')]);
});

it('an unsubscribed contact and a suppressed address get track.mail.dropped and no mail', async () => {
  for (const [email, reason] of [['gone@example.net', 'unsubscribed'], ['blocked@example.net', 'suppressed']]) {
    const eventId = await postEvent('order_paid', email, { order: { id: 9 } });
    const automationIds = await startedBy(eventId);
    expect(automationIds).toHaveLength(2);
    expect(await Promise.all(automationIds.map((id) => runOf(eventId, id).result()))).toEqual(['completed', 'completed']);
    const events = await eventsOf(email);
    expect(events.map((event) => [event.track_type, event.mail_type])).toEqual([['track.mail.dropped', 'automation'], ['track.mail.dropped', 'automation']]);
    const rows = await ledgerRows(herald.services.store, { account, email });
    expect(rows.map((row) => [row.status, row.relayResponse])).toEqual([['dropped', reason], ['dropped', reason]]);
    expect(mailsTo(email)).toHaveLength(0);
  }
  expect((await call('GET', '/contacts/blocked@example.net')).body.data).toMatchObject({ state: 'ACTIVE', source: 'CUSTOM_TRIGGER' });
});

it('a deactivation stops a run waiting in its timer: exited, its second email never sent', async () => {
  const flow = await createAutomation('cart_left', [emailStep('Your cart', '<p>1</p>'), { type: 'wait', duration: 'P1D' }, emailStep('Still there?', '<p>2</p>')]);
  const eventId = await postEvent('cart_left', 'cart@example.net');
  await waitUntil('the first email', async () => mailsTo('cart@example.net').length === 1);
  expect((await call('POST', `/automations/${flow.id}/deactivate`)).status).toBe(200);
  expect(await runOf(eventId, flow.id).result()).toBe('exited');
  await waitUntil('the stats', async () => (await statsOf(flow)).exited === 1);
  expect(await statsOf(flow)).toMatchObject({ triggered: 1, exited: 1, completed: 0, active: 0 });
  expect(mailsTo('cart@example.net').map((mail) => mail.parsed.subject)).toEqual(['Your cart']);
});
