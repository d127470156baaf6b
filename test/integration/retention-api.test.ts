// An account's retention through the account API: GET /v2/{account} shows it (45 days by
// default) in its documented shape; PUT /v2/{account}/retention changes it (JSON or form), refuses
// what is not a whole number of days from 7 to 3650 with VALIDATION_ERROR, and needs account:update;
// the activity says how far back it reaches. And the retention schedule, run through Temporal,
// prunes an account's history older than its retention.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { NewAccount } from '../../core/accounts/accounts';
import { workflowIds } from '../../adapters/temporal/contracts';
import { triggerSweeper } from '../../adapters/temporal/schedules';
import { operations } from '../../api/openapi/operations';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type CallOptions } from '../support/http';
import { DAY, eventOf, outcomeOf, requestOf, storeHistory, transactionalMessage } from '../support/history';
import { waitUntil } from '../support/wait';

let herald: TestHerald;
let acme: NewAccount;

const bearer = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });
const call = (method: string, path: string, options: CallOptions = {}, key = acme.apiKey) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { ...options, headers: { ...bearer(key).headers, ...options.headers } });

/** Whether `body` is what the OpenAPI document says operation `id` answers. */
function documented(id: string, body: unknown): boolean {
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  const validate = ajv.compile(operations.find((operation) => operation.id === id)!.responseSchema!);
  if (!validate(body)) throw new Error(`${id}: ${ajv.errorsText(validate.errors)}`);
  return true;
}

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
}, 60_000);
afterAll(() => herald?.stop());

describe('the retention setting', () => {
  it('is 45 days by default, shown by GET /v2/{account} beside its other fields', async () => {
    const answer = await call('GET', '');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ code: acme.account, plan: { state: 'ACTIVE' }, retention: { days: 45 } });
    expect(documented('getAccount', answer.body)).toBe(true);
    expect((await call('GET', '/retention')).body.data).toEqual({ days: 45 });
  });

  it('is changed by PUT /v2/{account}/retention, as JSON or a form', async () => {
    const set = await call('PUT', '/retention', { json: { days: 30 } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ href: `/v2/${acme.account}/retention`, success: true, data: { days: 30 } });
    expect(documented('setRetention', set.body)).toBe(true);
    expect((await call('GET', '')).body.data.retention).toEqual({ days: 30 });
    expect((await call('PUT', '/retention', { form: 'days=3650' })).body.data).toEqual({ days: 3650 });
    expect((await call('PUT', '/retention', { json: { days: 7 } })).body.data).toEqual({ days: 7 });
    expect((await call('GET', '/retention')).body.data).toEqual({ days: 7 });
  });

  it.each([
    [{ days: 0 }], [{ days: 6 }], [{ days: 3651 }], [{ days: 1.5 }], [{ days: '30 days' }], [{ days: null }], [{}],
  ])('refuses %j with VALIDATION_ERROR naming days', async (body) => {
    const answer = await call('PUT', '/retention', { json: body });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      href: `/v2/${acme.account}/retention`, success: false,
      error: { status: 400, type: 'VALIDATION_ERROR', userMessage: expect.any(String), validationErrors: { days: expect.any(String) } },
    });
  });

  it('needs account:update to change it, account:list to see it on its own', async () => {
    const user = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users`, {
      ...bearer(acme.apiKey), json: { email: 'retention-viewer@example.com', password: 'password12', permissions: ['account:list'] },
    });
    const { key } = (await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`, bearer(acme.apiKey))).body.data;
    expect((await call('GET', '/retention', {}, key)).status).toBe(200);
    const denied = await call('PUT', '/retention', { json: { days: 10 } }, key);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatchObject({ type: 'FORBIDDEN', userMessage: 'Missing permission account:update' });
  });
});

describe('the activity', () => {
  it('says how far back it reaches: the retention, and the instant before which messages are pruned', async () => {
    await call('PUT', '/retention', { json: { days: 45 } });
    const before = Date.now();
    const answer = await call('GET', '/activity');
    const after = Date.now();
    expect(answer.status).toBe(200);
    expect(answer.body.retention.days).toBe(45);
    const since = Date.parse(answer.body.retention.since);
    expect(since).toBeGreaterThanOrEqual(before - 45 * DAY);
    expect(since).toBeLessThanOrEqual(after - 45 * DAY);
    expect(documented('listActivity', answer.body)).toBe(true);
  });
});

describe('the retention schedule', () => {
  it('prunes each account\'s history older than its retention, through Temporal', async () => {
    const [short, long] = await Promise.all([herald.newAccount(), herald.newAccount()]);
    const { store, temporal, taskQueue } = herald.services;
    await callHerald(herald.baseUrl, 'PUT', `/v2/${short.account}/retention`, { ...bearer(short.apiKey), json: { days: 10 } });
    const old = Date.now() - 20 * DAY;
    for (const account of [short.account, long.account]) {
      const message = transactionalMessage(account, 'old', 1, old);
      await storeHistory(store, [outcomeOf(message), eventOf(message, 'track.mail.opened', old + DAY)], [requestOf(account, 'old', old, ['r1@example.net'])]);
    }
    await triggerSweeper(temporal, workflowIds.retentionSweeper(taskQueue));
    await waitUntil('the short account\'s old history to be pruned', async () =>
      (await store.events.countDocuments({ account: short.account })) === 0 && (await store.sendRequests.countDocuments({ account: short.account })) === 0);
    // 45 days by default: the other account keeps the same history.
    expect(await store.events.countDocuments({ account: long.account })).toBe(2);
    expect(await store.sendRequests.countDocuments({ account: long.account })).toBe(1);
  });
});
