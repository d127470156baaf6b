// Durable acceptance: when Temporal does not answer, a send gets 503 and nothing stays recorded;
// readiness says which dependency is down.
import type http from 'node:http';
import { createAccount } from '../../core/accounts/accounts';
import { newId } from '../../core/shared/ids';
import type { Store } from '../../adapters/store/store';
import { activateTriggers } from '../../core/triggers/integration';
import { freePort } from '../../infra/ports';
import { composeTestHerald, listenLocally } from '../support/herald';

let store: Store;
let server: http.Server;
let baseUrl: string;

beforeAll(async () => {
  // A Temporal address where nothing listens.
  const herald = composeTestHerald({
    HERALD_MONGODB_DATABASE: `herald_down_${newId().slice(0, 8)}`, TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`, HERALD_TASK_QUEUE: 'unused',
  }, { lazyTemporal: true });
  store = await herald.store();
  server = await herald.apiServer();
  baseUrl = await listenLocally(server);
});

afterAll(async () => {
  // Not herald.close(): the Temporal connection stays open, or the SDK's pending retry timers throw on a shut channel.
  await new Promise((resolve) => server.close(resolve));
  await store.db.dropDatabase();
  await store.close();
});

it('answers 503 service_unavailable and keeps no half-recorded request when Temporal is down', async () => {
  const { transactionalKey } = await createAccount(store, 'downacct');
  const response = await fetch(`${baseUrl}/v1/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${transactionalKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: { email: 'a@example.com' }, subject: 's', content: { text: 't' }, recipients: [{ to: { email: 'b@example.net' } }] }),
  });
  expect(response.status).toBe(503);
  expect(await response.json()).toEqual({ success: false, error: { status: 503, type: 'service_unavailable', message: expect.any(String) } });
  expect(await store.sendRequests.countDocuments({ account: 'downacct' })).toBe(0);
  expect(await store.sendQueue.countDocuments({ account: 'downacct' })).toBe(0); // its queue entry taken back
});

it('answers a custom trigger event 503 and keeps nothing recorded or counted when Temporal is down', async () => {
  await createAccount(store, 'downtrig');
  const { address } = await activateTriggers(store, 'downtrig');
  const response = await fetch(`${baseUrl}/events/customtriggers/downtrig/init/${address.a}/${address.b}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ trigger_key: 'k', contact: 'a@example.com' }),
  });
  expect(response.status).toBe(503);
  expect(await response.json()).toMatchObject({ success: false, error: { status: 503, type: 'SERVICE_UNAVAILABLE' } });
  expect(await store.triggerEvents.countDocuments({ account: 'downtrig' })).toBe(0);
  expect(await store.triggerUsage.find({ _id: { $regex: '^downtrig:' } }).toArray()).toEqual([expect.objectContaining({ n: 0 })]);
});

it('is alive on /healthz but not ready on /readyz, naming what is down', async () => {
  expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
  const ready = await fetch(`${baseUrl}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toEqual({ status: 'not ready', store: 'up', temporal: 'down' });
});

it('gives every response a request id, echoing a well-formed one', async () => {
  const echoed = await fetch(`${baseUrl}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
  expect(echoed.headers.get('x-request-id')).toBe('abc-123');
  const generated = await fetch(`${baseUrl}/healthz`, { headers: { 'x-request-id': 'bad id\twith spaces' } });
  expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
});
