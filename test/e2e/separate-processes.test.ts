// Production topology: api, smtp and worker each as its own process (as in docker/compose.yaml),
// configured only by environment variables, against the suite's Temporal and store.
import { WORKER_NODE_FLAGS } from '../../composition/node-flags';
import { ChildProcess, execFile, spawn } from 'node:child_process';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { newId } from '../../core/shared/ids';
import { freePort, startOnFreePorts, waitForPort } from '../../infra/ports';
import { parsePrometheus, valueOf } from '../support/prometheus';
import { startSmtpSink } from '../support/smtp-sink';
import { waitUntil } from '../support/wait';

const root = path.resolve(__dirname, '../..');
const processes: Record<string, ChildProcess> = {};
const outputs: Record<string, string> = {};
let sink: Awaited<ReturnType<typeof startSmtpSink>>;
let env: NodeJS.ProcessEnv;
let apiPort: number;
let smtpPort: number;
let workerMetricsPort: number;

function startProcess(name: string, script: string, nodeFlags: readonly string[] = []) {
  outputs[name] = '';
  const child = spawn(process.execPath, [...nodeFlags, path.join(root, script)], { env, cwd: root });
  child.stdout!.on('data', (chunk) => { outputs[name] += chunk; });
  child.stderr!.on('data', (chunk) => { outputs[name] += chunk; });
  processes[name] = child;
}

function stopProcess(name: string): Promise<number | null> {
  const child = processes[name];
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });
}

/** Thrown when a process exited before it listened: its port was taken meanwhile (another file's listener). */
class ExitedBeforeListening extends Error {}

/** Resolves once `name` logged `line`; throws ExitedBeforeListening when it exited first. */
async function waitForLine(name: string, line: string): Promise<void> {
  await waitUntil(`${name} to log "${line}"`, () => {
    if (outputs[name].includes(line)) return true;
    if (processes[name].exitCode !== null) throw new ExitedBeforeListening(`${name} exited before listening:\n${outputs[name]}`);
    return false;
  });
}

/**
 * The three processes on three distinct ports found free. Ready when each listener says so: a port
 * merely accepting connections may be another process's (seen: the API's port taken by an SMTP
 * listener between being found free and the API binding it, so the test's HTTP request got "220").
 */
async function startProcesses(): Promise<void> {
  const ports = new Set<number>();
  while (ports.size < 3) ports.add(await freePort());
  [apiPort, smtpPort, workerMetricsPort] = [...ports];
  const database = `herald_procs_${newId().slice(0, 8)}`;
  env = {
    PATH: process.env.PATH, NODE_ENV: 'production', MONGODB_URI: process.env.MONGODB_URI, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    SMTP_RELAY_URL: sink.url, HERALD_API_PORT: String(apiPort), HERALD_SMTP_PORT: String(smtpPort),
    HERALD_MONGODB_DATABASE: database, HERALD_TASK_QUEUE: database, HERALD_MTA_HOST: 'mx.herald.test',
    HERALD_WORKER_METRICS_PORT: String(workerMetricsPort),
  };
  startProcess('api', 'dist/api/main.js');
  startProcess('smtp', 'dist/smtp/main.js');
  startProcess('worker', 'dist/worker.js', WORKER_NODE_FLAGS);
  try {
    await Promise.all([waitForLine('api', 'API listening'), waitForLine('smtp', 'SMTP listening')]);
  } catch (error) {
    await Promise.all(['api', 'smtp', 'worker'].map(stopProcess));
    throw error;
  }
}

beforeAll(async () => {
  sink = await startSmtpSink();
  await startOnFreePorts(startProcesses, (error) => error instanceof ExitedBeforeListening);
}, 60000);

afterAll(async () => {
  for (const child of Object.values(processes)) if (child.exitCode === null) child.kill('SIGKILL');
  await sink?.close();
});

it('sends over HTTP and SMTP through separately running api, smtp and worker processes', async () => {
  const created = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [path.join(root, 'bin/herald.js'), 'account', 'create', 'procs'], { env }, (error, stdout) =>
      (error ? reject(error) : resolve(stdout)));
  });
  const { transactionalKey } = JSON.parse(created);

  const response = await fetch(`http://127.0.0.1:${apiPort}/v1/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${transactionalKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: { email: 'a@example.com' }, subject: 'over http', content: { text: 't' }, recipients: [{ to: { email: 'h@example.net' } }] }),
  });
  expect(response.status).toBe(202);

  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true, auth: { user: 'apikey', pass: transactionalKey } });
  await transport.sendMail({ from: 'a@example.com', to: 's@example.net', subject: 'over smtp', text: 't' });
  transport.close();

  const mails = await sink.waitFor(2, 60000);
  expect(mails.map((m) => m.parsed.subject).sort()).toEqual(['over http', 'over smtp']);
  expect(mails.find((m) => m.parsed.subject === 'over http')!.parsed.messageId).toMatch(/@mx\.herald\.test>$/);
  // JSON logs with a request id, and no key in them.
  expect(outputs.api).toMatch(/"requestId":"[0-9a-f-]{36}".*"msg":"send accepted"/);
  expect(Object.values(outputs).join('')).not.toContain(transactionalKey);
}, 90000);

it('the worker serves its own metrics (the sends it made), the API its own (the requests it answered)', async () => {
  await waitForPort('127.0.0.1', workerMetricsPort, 30000, 'worker metrics');
  const scrape = async (port: number) => {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheus(await response.text());
  };
  // The worker counts a send once its ledger row and its event are stored (two writes side by
  // side, each counted when it ends), a moment after the sink took the mail.
  const worker = await waitUntil('the worker to count both sends', async () => {
    const scraped = await scrape(workerMetricsPort);
    const counted = valueOf(scraped, 'herald_events_stored_total', { track_type: 'track.mail.sent' }) >= 2
      && valueOf(scraped, 'herald_messages_total', { outcome: 'sent' }) >= 2;
    return counted && scraped;
  });
  const api = await scrape(apiPort);
  expect(valueOf(worker, 'herald_messages_total', { outcome: 'sent' })).toBe(2); // the HTTP and the SMTP send
  expect(valueOf(worker, 'herald_events_stored_total', { track_type: 'track.mail.sent' })).toBe(2);
  expect(valueOf(api, 'herald_http_requests_total', { route: '/v1/mail/send', method: 'POST', status: '202' })).toBe(1);
  expect(valueOf(api, 'herald_messages_total', { outcome: 'sent' })).toBe(0); // another process: its registry counts what it did
}, 60000);

it('each process stops cleanly on SIGTERM', async () => {
  expect(await Promise.all(['api', 'smtp', 'worker'].map(stopProcess))).toEqual([0, 0, 0]);
}, 60000);
