// The embedded store dies under a running API: clients get 503 (never 500), /readyz names the
// store, and the supervisor of `npm start` brings it back on the same file and port by itself.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createAccount } from '../../core/accounts/accounts';
import { loadConfig } from '../../composition/config';
import { composeHerald, type Herald } from '../../composition/herald';
import { startEmbeddedStore, type EmbeddedStore } from '../../infra/store';
import { supervise, type Supervised } from '../../infra/supervisor';
import { listenLocally } from '../support/herald';

jest.setTimeout(180_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- log lines are asserted field by field
const logLines: any[] = [];
const logger = pino({ level: 'info' }, new Writable({ write(chunk, _enc, done) { logLines.push(JSON.parse(String(chunk))); done(); } }));
let dir: string;
let supervised: Supervised<EmbeddedStore>;
let herald: Herald;
let baseUrl: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-supervise-'));
  const options = { file: path.join(dir, 'store.mv.db'), logFile: path.join(dir, 'store.log'), shortLived: true };
  const first = await startEmbeddedStore(options);
  // A restart delay longer than the driver's 5 s server selection, so the outage is seen; npm start uses 1 s.
  supervised = supervise(first, { name: 'store', restart: () => startEmbeddedStore({ ...options, port: first.port }), logger, logFile: options.logFile, initialDelayMs: 8000 });
  herald = composeHerald(loadConfig({ ...process.env, MONGODB_URI: first.uri, HERALD_MONGODB_DATABASE: 'herald_supervise', HERALD_TASK_QUEUE: 'supervise-test' }), { logger });
  baseUrl = await listenLocally(await herald.apiServer());
});

afterAll(async () => {
  await herald?.close();
  await supervised?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sendWith = (key: string) => fetch(`${baseUrl}/v1/mail/send`, {
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ from: { email: 'a@example.com' }, subject: 's', content: { text: 't' }, recipients: [{ to: { email: 'b@example.net' } }] }),
});

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

it('answers 503 while the store is down, reports it on /readyz, and recovers by itself', async () => {
  const { transactionalKey } = await createAccount(await herald.store(), 'supervised');
  expect((await sendWith(transactionalKey)).status).toBe(202);
  const killed = supervised.current();

  process.kill(killed.pid, 'SIGKILL');
  await killed.exited;
  const down = await sendWith(transactionalKey);
  expect(down.status).toBe(503);
  expect(await down.json()).toEqual({ success: false, error: { status: 503, type: 'service_unavailable', message: expect.any(String) } });
  const ready = await fetch(`${baseUrl}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.json()).toMatchObject({ status: 'not ready', store: 'down' });

  await until('the store to be restarted', async () => supervised.current().pid !== killed.pid);
  await until('readiness', async () => (await fetch(`${baseUrl}/readyz`)).status === 200);
  expect((await sendWith(transactionalKey)).status).toBe(202); // the account and key were durable
  expect(logLines).toEqual(expect.arrayContaining([
    expect.objectContaining({ service: 'store', signal: 'SIGKILL', msg: expect.stringContaining('stopped unexpectedly') }),
    expect.objectContaining({ service: 'store', msg: expect.stringContaining('running again') }),
  ]));
});
