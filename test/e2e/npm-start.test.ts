// The quick start as a user runs it: `node dist/start.js` (what `npm start` runs after its
// build) on a fresh data folder, the README's curl send, the mail UI, the Temporal UI's
// workflow, the CLI beside it, and a clean stop on Ctrl-C (SIGINT).
import { ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection, Client } from '@temporalio/client';
import { freePort, startOnFreePorts } from '../../infra/ports';

const root = path.resolve(__dirname, '../..');
let dataDir: string;
let child: ChildProcess;
let output = '';
let env: NodeJS.ProcessEnv;
let apiPort: number;
let transactionalKey = '';

function waitForOutput(text: string, timeoutMs = 120000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${text}" in output:\n${output}`)), timeoutMs);
    const check = () => {
      if (output.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', () => { clearTimeout(timer); reject(new Error(`exited early:\n${output}`)); });
    check();
  });
}

const line = (label: string) => new RegExp(`^ {2}${label} +(\\S+)`, 'm').exec(output)?.[1] ?? '';

/**
 * Starts `npm start` on ports picked for this start (one picked minutes before may have been taken
 * meanwhile by another file's listener on an ephemeral port), and again on fresh ones when its API or
 * SMTP port was taken between being picked and bound (EADDRINUSE in what it printed).
 */
function startHerald(): Promise<void> {
  return startOnFreePorts(startHeraldOnce, (error) => /exited early/.test((error as Error).message) && /EADDRINUSE|is already in use/.test(output));
}

async function startHeraldOnce() {
  output = '';
  apiPort = await freePort();
  env = { ...env, HERALD_API_PORT: String(apiPort), HERALD_SMTP_PORT: String(await freePort()) };
  // A process group of its own, as a terminal gives it, so that stopHerald's SIGINT is Ctrl-C.
  child = spawn(process.execPath, [path.join(root, 'dist/start.js')], { env, cwd: root, detached: true });
  child.stdout!.on('data', (chunk) => { output += chunk; });
  child.stderr!.on('data', (chunk) => { output += chunk; });
  await waitForOutput('Press Ctrl-C to stop.');
}

/** Ctrl-C: SIGINT to the whole process group, as a terminal sends it; resolves with the exit code and what the stop printed. */
async function stopHerald(): Promise<{ code: number | null; said: string }> {
  const from = output.length;
  // 'close', not 'exit': the last lines it printed are read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  process.kill(-child.pid!, 'SIGINT');
  const code = await exited;
  return { code, said: output.slice(from) };
}

/** Lines at error level or above (pino 50+, or "error" from the Temporal runtime), and lines printed outside the logger. */
function errorLines(text: string): string[] {
  return text.split('\n').filter((line) => {
    if (!line.trim()) return false;
    try {
      const { level } = JSON.parse(line) as { level?: number | string };
      return typeof level === 'number' ? level >= 50 : level === 'error' || level === 'fatal';
    } catch {
      return true;
    }
  });
}

/** An orderly stop: exit code 0, and nothing said at error level about the services Herald stops itself. */
async function expectCleanStop() {
  const { code, said } = await stopHerald();
  expect(errorLines(said)).toEqual([]);
  expect(code).toBe(0);
  expect(said).toContain('Herald stopped');
}

function sendAs(key: string) {
  return fetch(`http://127.0.0.1:${apiPort}/v1/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: { email: 'a@example.com' }, subject: 's', content: { text: 't' }, recipients: [{ to: { email: 'b@example.net' } }] }),
  });
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-start-'));
  // Only Herald's own variables: the embedded stack must come up without the suite's addresses.
  env = { PATH: process.env.PATH, HOME: process.env.HOME, HERALD_DATA_DIR: dataDir, NODE_ENV: 'production' };
  await startHerald();
}, 180000);

afterAll(async () => {
  // Stopped in order if a test failed half-way: its helpers run in process groups of their own.
  if (child && child.exitCode === null) {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30000);
    await stopHerald();
    clearTimeout(timer);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start on a fresh data folder', () => {
  it('prints the URLs and the demo account keys', () => {
    expect(line('API')).toBe(`http://127.0.0.1:${apiPort}`);
    expect(line('Temporal UI')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line('Mail UI')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line('transactional key')).toMatch(/^demo-tr-[A-Za-z0-9]{32}$/);
  });

  it('serves the console, which links to the Temporal UI, and the printed sign-in opens a session', async () => {
    expect(line('Console')).toBe(`http://127.0.0.1:${apiPort}/console`);
    const page = await fetch(line('Console'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain(`&quot;temporalUi&quot;:&quot;${line('Temporal UI')}&quot;`);
    const [, user, password] = /^ {2}console sign-in +(\S+) +password (\S+)$/m.exec(output) ?? [];
    expect(user).toBe('owner@demo');
    const login = await fetch(`http://127.0.0.1:${apiPort}/v2/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ user, password }),
    });
    expect(login.status).toBe(201);
    expect(((await login.json()) as { data: { account: string } }).data.account).toBe('demo');
  });

  it('is ready, and the README send shows up in the mail UI and as a workflow', async () => {
    const ready = await fetch(`http://127.0.0.1:${apiPort}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', store: 'up', temporal: 'up' });
    expect((await fetch(`${line('Temporal UI')}`)).status).toBe(200);

    const response = await fetch(`http://127.0.0.1:${apiPort}/v1/mail/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${line('transactional key')}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        from: { email: 'shop@example.com', name: 'Shop' }, subject: 'Hello',
        content: { html: '<p>Hello from Herald</p>', text: 'Hello from Herald' },
        recipients: [{ to: { email: 'ada@example.net', name: 'Ada' } }],
      }),
    });
    expect(response.status).toBe(202);

    let mails: Array<{ subject: string; to: Array<{ address: string }> }> = [];
    for (let i = 0; i < 100 && mails.length === 0; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      mails = (await (await fetch(`${line('Mail UI')}/email`)).json()) as typeof mails;
    }
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('Hello');
    expect(mails[0].to[0].address).toBe('ada@example.net');

    const record = JSON.parse(fs.readFileSync(path.join(dataDir, 'stack.json'), 'utf8'));
    const connection = await Connection.connect({ address: record.temporalAddress });
    try {
      const client = new Client({ connection });
      const workflows = [];
      for await (const info of client.workflow.list({ query: "WorkflowType = 'AccountSender'" })) workflows.push(info);
      expect(workflows).toHaveLength(1);
      expect(workflows[0].workflowId).toBe('sender-demo');
    } finally {
      await connection.close();
    }
  });

  it('lets the CLI create an account while it runs, on the same store', async () => {
    const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, [path.join(root, 'bin/herald.js'), 'account', 'create', 'shop7'], { env }, (error, stdout) =>
        resolve({ code: error ? 1 : 0, stdout }));
    });
    expect(result.code).toBe(0);
    ({ transactionalKey } = JSON.parse(result.stdout));
    expect((await sendAs(transactionalKey)).status).toBe(202);
  });

  it('restarts the store when it dies (kill -9), records its new pid, and serves again with nothing lost', async () => {
    const stackFile = path.join(dataDir, 'stack.json');
    const storePid = () => (JSON.parse(fs.readFileSync(stackFile, 'utf8')) as { children: Record<string, number> }).children.store;
    const killed = storePid();
    process.kill(killed, 'SIGKILL');
    for (let i = 0; i < 300 && storePid() === killed; i += 1) await new Promise((r) => setTimeout(r, 200));
    expect(storePid()).not.toBe(killed);
    let ready = 0;
    for (let i = 0; i < 150 && ready !== 200; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      ready = (await fetch(`http://127.0.0.1:${apiPort}/readyz`)).status;
    }
    expect(ready).toBe(200);
    expect(output).toContain('the embedded store stopped unexpectedly');
    expect((await sendAs(transactionalKey)).status).toBe(202); // the key the CLI created just before is still there
  }, 120000);

  it('stops cleanly on Ctrl-C, with no error about the services it stops, and leaves its data behind', async () => {
    await expectCleanStop();
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'stack.json'), 'utf8')).pid).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'store', 'herald.mv.db'))).toBe(true);
    expect(fs.existsSync(path.join(dataDir, 'temporal', 'temporal.db'))).toBe(true);
  });

  it('keeps accounts, keys and sent mail across a restart', async () => {
    await startHerald();
    expect(output).not.toContain('Created the demo account');
    expect((await sendAs(transactionalKey)).status).toBe(202);
    // One subject per distinct Message-ID: a message in flight when the store was killed may
    // arrive twice, as the guarantee allows, with the same Message-ID.
    let subjects: string[] = [];
    for (let i = 0; i < 100 && subjects.length < 4; i += 1) {
      await new Promise((r) => setTimeout(r, 200));
      const mails = (await (await fetch(`${line('Mail UI')}/email`)).json()) as Array<{ subject: string; messageId: string }>;
      subjects = [...new Map(mails.map((m) => [m.messageId, m.subject])).values()];
    }
    expect(subjects.sort()).toEqual(['Hello', 's', 's', 's']);
  }, 120000);

  it('after a crash (SIGKILL), the next start ends the services it left running and comes up', async () => {
    // The start of the test before, crashed (one start fewer than a start of its own: each costs a store and a Temporal).
    const { children } = JSON.parse(fs.readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) as { children: Record<string, number> };
    expect(Object.keys(children).sort()).toEqual(['mailSink', 'store', 'temporal']);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
    expect(Object.values(children).every(alive)).toBe(true); // orphans hold the store's file lock

    await startHerald();
    expect(output).toContain('ended embedded services left running by an earlier start');
    expect(Object.values(children).some(alive)).toBe(false);
    expect((await sendAs(transactionalKey)).status).toBe(202);
    await expectCleanStop();
  }, 120000);
});
