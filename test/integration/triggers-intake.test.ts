// Custom triggers over HTTP: the integration issues, rotates and withdraws the trigger address
// (refused at once after a rotation or deactivation), with the account's permissions; the public
// intake takes JSON only, checks each field at its boundary, answers 202 once the TriggerAutomation
// workflow is started, replays an Idempotency-Key, and counts the hourly limit in the store, so it
// holds across two API instances: beyond it 429 with Retry-After, and nothing recorded or started.
// The workflow's own work is tested elsewhere: here only its start matters.
import { updateAccountSettings } from '../../core/accounts/settings';
import type { NewAccount } from '../../core/accounts/accounts';
import { loadConfig } from '../../composition/config';
import type { Herald } from '../../composition/herald';
import { hourOf, HOUR_MS, usageId } from '../../core/triggers/hourly-limit';
import { workflowIds } from '../../adapters/temporal/contracts';
import { composeTestHerald, listenLocally, startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Answer, type CallOptions, type Json } from '../support/http';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
/** A second API process's worth: its own server, store connection and Temporal client, on the same database. */
let second: { herald: Herald; baseUrl: string };
const publicUrl = loadConfig().publicUrl;

beforeAll(async () => {
  herald = await startTestHerald();
  const { store, taskQueue } = herald.services;
  const other = composeTestHerald({ HERALD_MONGODB_DATABASE: store.db.databaseName, HERALD_TASK_QUEUE: taskQueue });
  second = { herald: other, baseUrl: await listenLocally(await other.apiServer()) };
});
afterAll(async () => {
  await second?.herald.close();
  await herald?.stop();
});

const bearer = (key: string): CallOptions => ({ headers: { authorization: `Bearer ${key}` } });
const integration = (who: NewAccount, action = '', key = who.apiKey) =>
  callHerald(herald.baseUrl, action ? 'POST' : 'GET', `/v2/${who.account}/integrations/customtriggers${action && `/${action}`}`, bearer(key));
/** The path of a trigger_url (its host is the public URL's; the test reaches the API directly). */
const pathOf = (triggerUrl: string) => new URL(triggerUrl).pathname;
const post = (path: string, json: unknown, headers: Record<string, string> = {}, baseUrl = herald.baseUrl) =>
  callHerald(baseUrl, 'POST', path, { json, headers });
const event = (n = 1) => ({ trigger_key: 'order_paid', contact: `Ada${n}@Example.NET`, context: { order: { id: n, total: '9.50' } } });

async function activated(who: NewAccount): Promise<string> {
  const answer = await integration(who, 'activate');
  expect(answer.status).toBe(201);
  return pathOf(answer.body.data.trigger_url);
}

function expectUnauthorized(answer: Answer) {
  expect(answer.status).toBe(401);
  expect(answer.body).toEqual({ href: expect.any(String), success: false, error: { status: 401, type: 'UNAUTHORIZED', userMessage: 'Invalid trigger address' } });
}

/** Keeps an hourly-limit test inside one clock hour: near the hour's end, waits for the next (at most 20 s, rarely). */
async function awayFromHourEnd() {
  const left = (hourOf(new Date()) + 1) * HOUR_MS - Date.now();
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

describe('the integration', () => {
  it('issues an address of the original\'s shape, refuses a second activation, and never shows the address again', async () => {
    const acme = await herald.newAccount();
    expect((await integration(acme)).body.data).toEqual({ active: false, activated: null, rotated: null, deactivated: null });
    // Two at once (the document does not exist yet): only one succeeds.
    const both = await Promise.all([integration(acme, 'activate'), integration(acme, 'activate')]);
    expect(both.map((a) => a.status).sort()).toEqual([201, 409]);
    const answer = both.find((a) => a.status === 201)!;
    const { trigger_url: url, activated: at } = answer.body.data;
    expect(answer.body.data).toEqual({ active: true, trigger_url: expect.any(String), activated: expect.any(String) });
    expect(url.startsWith(`${publicUrl}/events/customtriggers/${acme.account}/init/`)).toBe(true);
    expect(url.slice(publicUrl.length)).toMatch(new RegExp(`^/events/customtriggers/${acme.account}/init/[0-9a-f]{8}/[0-9a-f]{8}$`));

    const again = await integration(acme, 'activate');
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'RESOURCE_EXISTS', userMessage: expect.stringContaining('rotate') });
    const shown = await integration(acme);
    expect(shown.body.data).toEqual({ active: true, activated: at, rotated: null, deactivated: null });
    const [a, b] = url.split('/').slice(-2);
    const stored = JSON.stringify(await herald.services.store.integrations.find({ account: acme.account }).toArray());
    expect(JSON.stringify(shown.body) + stored).not.toMatch(new RegExp(`${a}|${b}`));
    expect((await post(pathOf(url), event())).status).toBe(202); // the first address still works
  });

  it('rotates (the old address refused at once), deactivates (every address refused), and reactivates with a new address', async () => {
    const acme = await herald.newAccount();
    expect((await integration(acme, 'rotate')).status).toBe(404); // not active yet
    const first = await activated(acme);
    expect((await post(first, event())).status).toBe(202);

    const rotated = await integration(acme, 'rotate');
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toEqual({ active: true, trigger_url: expect.any(String), rotated: expect.any(String) });
    const second = pathOf(rotated.body.data.trigger_url);
    expect(second).not.toBe(first);
    expectUnauthorized(await post(first, event()));
    expect((await post(second, event())).status).toBe(202);
    expect((await integration(acme)).body.data).toMatchObject({ active: true, rotated: rotated.body.data.rotated });

    const off = await integration(acme, 'deactivate');
    expect(off.status).toBe(200);
    expect(off.body.data).toEqual({ active: false, deactivated: expect.any(String) });
    expectUnauthorized(await post(second, event()));
    expectUnauthorized(await post(first, event()));
    expect((await integration(acme, 'deactivate')).body.data).toEqual(off.body.data); // idempotent
    expect((await integration(acme, 'rotate')).status).toBe(404);

    const both = await Promise.all([integration(acme, 'activate'), integration(acme, 'activate')]); // reactivation: only one succeeds
    expect(both.map((a) => a.status).sort()).toEqual([201, 409]);
    const third = pathOf(both.find((a) => a.status === 201)!.body.data.trigger_url);
    expect([first, second]).not.toContain(third);
    expect((await post(third, event())).status).toBe(202);
    expectUnauthorized(await post(second, event()));
  });

  it('refuses unknown accounts and wrong addresses with the same 401, reading no body', async () => {
    const acme = await herald.newAccount();
    const path = await activated(acme);
    const [a, b] = path.split('/').slice(-2);
    const flip = (hex: string) => `${hex.slice(0, 7)}${hex[7] === '0' ? '1' : '0'}`;
    for (const wrong of [
      `/events/customtriggers/nosuchaccount/init/${a}/${b}`,
      `/events/customtriggers/${acme.account}/init/${flip(a)}/${b}`,
      `/events/customtriggers/${acme.account}/init/${a}/${flip(b)}`,
      `/events/customtriggers/${acme.account}/init/${b}/${a}`,
      `/events/customtriggers/${acme.account}/init/${a.toUpperCase()}/${b.toUpperCase()}`,
    ]) expectUnauthorized(await callHerald(herald.baseUrl, 'POST', wrong, { headers: { 'content-type': 'text/plain' } }));
  });

  it('needs account:list to see it and account:update to change it', async () => {
    const acme = await herald.newAccount();
    const user = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users`, {
      ...bearer(acme.apiKey), json: { email: 'viewer@example.com', password: 'password12', permissions: ['account:list'] },
    });
    const viewer = (await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`, bearer(acme.apiKey))).body.data.key;
    expect((await integration(acme, '', viewer)).status).toBe(200);
    for (const action of ['activate', 'rotate', 'deactivate']) {
      const denied = await integration(acme, action, viewer);
      expect(denied.status).toBe(403);
      expect(denied.body.error).toMatchObject({ type: 'FORBIDDEN', userMessage: 'Missing permission account:update' });
    }
    expect((await integration(acme)).body.data.active).toBe(false);
    const other = await herald.newAccount();
    expect((await integration(acme, 'activate', other.apiKey)).status).toBe(403); // another account's key
  });
});

describe('the intake', () => {
  let acme: NewAccount;
  let path: string;
  beforeAll(async () => {
    acme = await herald.newAccount();
    path = await activated(acme);
  });

  it('answers 202 with the event, once it is recorded and its TriggerAutomation workflow started', async () => {
    const answer = await post(path, { ...event(7), extra: 'ignored' });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ href: path, success: true, data: { event_id: expect.stringMatching(/^[0-9a-z]{24}$/), trigger_key: 'order_paid', contact: 'ada7@example.net' } });
    const eventId = answer.body.data.event_id;
    const stored = await herald.services.store.triggerEvents.findOne({ _id: `${acme.account}:${eventId}` });
    expect(stored).toMatchObject({ account: acme.account, eventId, key: 'order_paid', email: 'ada7@example.net', context: '{"order":{"id":7,"total":"9.50"}}' });
    const described = await herald.services.temporal.workflow.getHandle(workflowIds.triggerEvent(acme.account, eventId)).describe();
    expect(described.type).toBe('TriggerAutomation');
    expect(described.searchAttributes).toMatchObject({ HeraldAccount: [acme.account], HeraldContact: ['ada7@example.net'] });
  });

  const key30 = 'a'.repeat(29) + '_';
  /** A valid address of `length` characters (labels of at most 63). */
  const addressOf = (length: number) => `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(length - 197)}.com`;
  it.each<[string, Json, Record<string, string> | null]>([
    ['a 30-character key', { trigger_key: key30, contact: 'a@example.com' }, null],
    ['digits and underscore', { trigger_key: 'order_2_paid', contact: 'a@example.com' }, null],
    ['no context', { trigger_key: 'k', contact: 'a@example.com' }, null],
    ['an empty context', { trigger_key: 'k', contact: 'a@example.com', context: {} }, null],
    ['a nested context', { trigger_key: 'k', contact: 'a@example.com', context: { a: { b: [1, { c: null }] }, d: true } }, null],
    ['a 31-character key', { trigger_key: `${key30}x`, contact: 'a@example.com' }, { trigger_key: 'At most 30 characters' }],
    ['an uppercase key', { trigger_key: 'Order_paid', contact: 'a@example.com' }, { trigger_key: 'Invalid value' }],
    ['a hyphen in the key', { trigger_key: 'order-paid', contact: 'a@example.com' }, { trigger_key: 'Invalid value' }],
    ['a space in the key', { trigger_key: 'order paid', contact: 'a@example.com' }, { trigger_key: 'Invalid value' }],
    ['an empty key', { trigger_key: '', contact: 'a@example.com' }, { trigger_key: 'This field is required' }],
    ['no key', { contact: 'a@example.com' }, { trigger_key: 'This field is required' }],
    ['a numeric key', { trigger_key: 12, contact: 'a@example.com' }, { trigger_key: 'Must be string' }],
    ['an invalid contact', { trigger_key: 'k', contact: 'not an address' }, { contact: 'Invalid email address' }],
    ['a 255-character contact', { trigger_key: 'k', contact: addressOf(255) }, { contact: 'At most 254 characters' }],
    ['no contact', { trigger_key: 'k' }, { contact: 'This field is required' }],
    ['an array context', { trigger_key: 'k', contact: 'a@example.com', context: [1] }, { context: 'Must be object' }],
    ['a null context', { trigger_key: 'k', contact: 'a@example.com', context: null }, { context: 'Must be object' }],
    ['a string context', { trigger_key: 'k', contact: 'a@example.com', context: 'x' }, { context: 'Must be object' }],
    ['every field invalid', { trigger_key: 'A-B', contact: 'x', context: [] }, { trigger_key: 'Invalid value', contact: 'Invalid email address', context: 'Must be object' }],
    ['an empty object', {}, { trigger_key: 'This field is required', contact: 'This field is required' }],
    ['an array body', [], { body: 'Must be object' }],
  ])('%s', async (_, body, problems) => {
    const answer = await post(path, body);
    if (problems === null) {
      expect([answer.status, answer.body.success]).toEqual([202, true]);
      return;
    }
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      href: path, success: false, error: { status: 400, type: 'VALIDATION_ERROR', userMessage: 'Some fields have invalid values', validationErrors: problems },
    });
  });

  it('takes a 254-character contact', async () => {
    expect((await post(path, { trigger_key: 'k', contact: addressOf(254) })).status).toBe(202);
  });

  it('takes JSON only: 415 for other types or none, 400 for malformed JSON, 413 beyond 64 KB', async () => {
    const raw = (headers: Record<string, string>, body?: string | Uint8Array) => fetch(`${herald.baseUrl}${path}`, { method: 'POST', headers, body });
    const json = JSON.stringify(event());
    for (const [headers, body] of [
      [{ 'content-type': 'text/plain' }, json],
      [{ 'content-type': 'application/x-www-form-urlencoded' }, 'trigger_key=k&contact=a%40example.com'],
      [{}, new TextEncoder().encode(json)], // no Content-Type at all
      [{}, undefined],
    ] as const) {
      const answer = await raw(headers, body);
      expect(answer.status).toBe(415);
      expect(await answer.json()).toMatchObject({ success: false, error: { status: 415, type: 'UNSUPPORTED_MEDIA_TYPE' } });
    }
    const malformed = await raw({ 'content-type': 'application/json' }, '{"trigger_key": "k",');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { type: 'BAD_REQUEST', userMessage: 'Request body is not valid JSON' } });
    const big = { trigger_key: 'k', contact: 'a@example.com', context: { note: 'x'.repeat(64 * 1024) } };
    const tooLarge = await raw({ 'content-type': 'application/json' }, JSON.stringify(big));
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { type: 'PAYLOAD_TOO_LARGE', userMessage: 'Request body exceeds the limit of 64KB' } });
    const justUnder = { ...big, context: { note: 'x'.repeat(64 * 1024 - 80) } };
    expect(Buffer.byteLength(JSON.stringify(justUnder))).toBeLessThanOrEqual(64 * 1024);
    expect((await raw({ 'content-type': 'application/json; charset=utf-8' }, JSON.stringify(justUnder))).status).toBe(202);
  });

  it('replays an Idempotency-Key: the same event_id, one record, one count', async () => {
    const other = await herald.newAccount();
    const otherPath = await activated(other);
    const headers = { 'idempotency-key': 'order-77 paid' };
    const first = await post(otherPath, event(77), headers);
    expect(first.status).toBe(202);
    const again = await post(otherPath, event(77), headers, second.baseUrl); // through the other instance
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    const { store } = herald.services;
    expect(await store.triggerEvents.countDocuments({ account: other.account })).toBe(1);
    expect((await store.triggerUsage.findOne({ _id: usageId(other.account, hourOf(new Date())) }))?.n).toBe(1);

    const changed = await post(otherPath, event(78), headers);
    expect(changed.status).toBe(400);
    expect(changed.body.error).toMatchObject({ type: 'BAD_REQUEST', userMessage: 'This Idempotency-Key was used with another event' });
    expect((await post(otherPath, event(77), { 'idempotency-key': 'k'.repeat(256) })).status).toBe(400);
    const fresh = await post(otherPath, event(77), { 'idempotency-key': 'order-77 paid again' });
    expect(fresh.body.data.event_id).not.toBe(first.body.data.event_id);
    expect(await store.triggerEvents.countDocuments({ account: other.account })).toBe(2);
  });
});

describe('the hourly limit', () => {
  const triggerWorkflows = (account: string) =>
    herald.services.temporal.workflow.count(`WorkflowType = 'TriggerAutomation' AND HeraldAccount = '${account}'`).then((c) => c.count);

  it('holds across two API instances: beyond it 429 with Retry-After, nothing recorded, no workflow started', async () => {
    await awayFromHourEnd();
    const acme = await herald.newAccount();
    await updateAccountSettings(herald.services.store, acme.account, { triggerHourlyLimit: 5 });
    const path = await activated(acme);
    expect((await post(path, { trigger_key: 'K', contact: 'a@example.com' })).status).toBe(400); // invalid events count nothing
    for (let n = 1; n <= 5; n += 1) {
      const answer = await post(path, event(n), {}, n % 2 === 0 ? second.baseUrl : herald.baseUrl);
      expect([n, answer.status]).toEqual([n, 202]);
    }
    const refused = await post(path, event(6), {}, second.baseUrl);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    const toNextHour = ((hourOf(new Date()) + 1) * HOUR_MS - Date.now()) / 1000;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(Math.abs(retryAfter - toNextHour)).toBeLessThan(5);
    const nextHour = new Date((hourOf(new Date()) + 1) * HOUR_MS).toISOString();
    expect(refused.body).toEqual({
      href: path, success: false,
      error: { status: 429, type: 'TOO_MANY_REQUESTS', userMessage: `At most 5 custom trigger events per hour: this event was discarded; retry after ${nextHour}` },
    });
    expect((await post(path, event(7))).status).toBe(429); // the first instance too
    const { store } = herald.services;
    expect(await store.triggerEvents.countDocuments({ account: acme.account })).toBe(5);
    expect(await store.triggerEvents.countDocuments({ account: acme.account, email: { $in: ['ada6@example.net', 'ada7@example.net'] } })).toBe(0);
    expect((await store.triggerUsage.findOne({ _id: usageId(acme.account, hourOf(new Date())) }))?.n).toBe(5);
    await waitUntil('the five workflows to be visible', async () => (await triggerWorkflows(acme.account)) >= 5);
    expect(await triggerWorkflows(acme.account)).toBe(5);
  });

  it('grants exactly the room left to events arriving at once', async () => {
    await awayFromHourEnd();
    const acme = await herald.newAccount();
    await updateAccountSettings(herald.services.store, acme.account, { triggerHourlyLimit: 3 });
    const path = await activated(acme);
    const answers = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((n) => post(path, event(n), {}, n % 2 === 0 ? second.baseUrl : herald.baseUrl)));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 202, 429, 429, 429, 429, 429]);
    expect(await herald.services.store.triggerEvents.countDocuments({ account: acme.account })).toBe(3);
  });

  it('is 200 by default: the 200th event of the hour is accepted, the 201st refused', async () => {
    await awayFromHourEnd();
    const acme = await herald.newAccount();
    const path = await activated(acme);
    // One real event counts through the store; the hour's other 198 are set on its document
    // rather than posted (each would start a workflow).
    expect((await post(path, event(1))).status).toBe(202);
    const { store } = herald.services;
    const usage = { _id: usageId(acme.account, hourOf(new Date())) };
    expect((await store.triggerUsage.findOne(usage))?.n).toBe(1);
    await store.triggerUsage.updateOne(usage, { $set: { n: 199 } });
    expect((await post(path, event(200))).status).toBe(202);
    const refused = await post(path, event(201));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.error.userMessage).toMatch(/^At most 200 custom trigger events per hour: this event was discarded; retry after /);
    expect((await store.triggerUsage.findOne(usage))?.n).toBe(200);
    expect(await store.triggerEvents.countDocuments({ account: acme.account })).toBe(2);
  });
});
