// `herald migrate` SIGKILLed while it writes the contacts of a 10,000-contact source, then started
// again: the result is the one of a clean run (every contact once, with its list), the mapping
// one record per contact. The kill lands once the first contacts are in the target (how far the
// writing got is printed, not asserted: a busy machine moves it; the result is what counts).
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, suiteMongodbUri, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { waitUntil } from '../support/wait';

const CONTACTS = 10_000;
let herald: TestHerald;
let source: NewAccount;

const bearer = (account: NewAccount) => ({ authorization: `Bearer ${account.apiKey}` });

beforeAll(async () => {
  herald = await startTestHerald();
  source = await herald.newAccount();
  const list = await callHerald(herald.baseUrl, 'POST', `/v2/${source.account}/lists`, { headers: bearer(source), json: { name: 'Everyone' } });
  const csv = ['email,firstName', ...Array.from({ length: CONTACTS }, (_, i) => `member${i}@example.net,Member ${i}`)].join('\n');
  const started = await callHerald(herald.baseUrl, 'POST', `/v2/${source.account}/contacts/import`, { headers: bearer(source), json: { sourceRaw: csv, list: list.body.data.id } });
  expect(started.status).toBe(201);
  await waitUntil('the source\'s import', async () => {
    const task = (await callHerald(herald.baseUrl, 'GET', `/v2/${source.account}/tasks/${started.body.task.id}`, { headers: bearer(source) })).body.data;
    if (task.state === 'FAILED') throw new Error(task.message);
    return task.state === 'FINISHED';
  }, 120_000);
}, 180_000);
afterAll(() => herald?.stop());

/** The installed command on this test's database; resolves with its exit code and stdout. */
function migrateProcess(target: NewAccount, onStart?: (kill: () => void) => void): Promise<{ code: number | null; signal: string | null; stdout: string }> {
  const env = { ...process.env, MONGODB_URI: suiteMongodbUri(), HERALD_MONGODB_DATABASE: herald.services.store.db.databaseName, HERALD_LOG_LEVEL: 'silent' };
  const child = spawn(process.execPath, [path.resolve(__dirname, '../../bin/herald.js'), 'migrate', '--from', herald.baseUrl,
    '--account', source.account, '--key', source.apiKey, '--to-account', target.account, '--rate', '200'], { env });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.resume();
  onStart?.(() => child.kill('SIGKILL'));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout })));
}

it('killed while writing the contacts and started again: every contact once, with its list', async () => {
  const target = await herald.newAccount();
  const { store } = herald.services;
  const killed = await migrateProcess(target, (kill) => {
    void waitUntil('the first contacts written', async () => (await store.contacts.countDocuments({ account: target.account })) > 0, 120_000, 20).then(kill);
  });
  const writtenAtKill = await store.contacts.countDocuments({ account: target.account });
  console.log(`killed with ${writtenAtKill} of ${CONTACTS} contacts written (exit ${killed.code ?? killed.signal})`);
  expect(killed.signal).toBe('SIGKILL');

  const again = await migrateProcess(target);
  expect(again.code).toBe(0);
  const report = JSON.parse(again.stdout);
  expect(report.kinds.contacts.read).toBe(CONTACTS);
  expect(await store.contacts.countDocuments({ account: target.account })).toBe(CONTACTS);
  const emails = await store.contacts.distinct('email', { account: target.account });
  expect(emails).toHaveLength(CONTACTS);
  const [targetList] = await store.lists.find({ account: target.account }).toArray();
  expect(await store.contacts.countDocuments({ account: target.account, lists: targetList.id })).toBe(CONTACTS);
  expect(await store.migrationMaps.countDocuments({ account: target.account, kind: 'contacts' })).toBe(CONTACTS);
}, 240_000);
