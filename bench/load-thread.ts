// The load generators (HTTP sends, SMTP submissions) on a thread of their own. herald-send and
// smtp-send run Herald's worker in the benchmark's main thread; a client sharing that busy event
// loop would read each answer late and report the worker's work as accept latency. In a
// deployment the clients are elsewhere.
import { once } from 'node:events';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { Pool } from 'undici';
import { recipientOf, sampleHtml, sendRequestBody, triggerEventBody } from './mail';
import { threadCpuMs } from './cpu-usage';
import { runPool, type PoolResult } from './support';

const ROLE = 'herald-bench-load';

/** `count` single-recipient sends (bench/mail.ts's sendRequestBody(first + i)), `concurrency` at a time, each client its own keep-alive connection. */
export interface SendLoad { apiBase: string; transactionalKey: string; first: number; count: number; concurrency: number; timeoutMs: number }

/** The same messages submitted over SMTP to `smtpPort`: `concurrency` clients, each a connection of its own sending one message after another. */
export interface SmtpLoad { smtpPort: number; transactionalKey: string; first: number; count: number; concurrency: number; timeoutMs: number }

/** `count` custom trigger events (bench/mail.ts's triggerEventBody(first + i)) posted to the account's trigger address `path`. */
export interface TriggerLoad { apiBase: string; path: string; first: number; count: number; concurrency: number; timeoutMs: number }

/** The latency of each accepted request (ms), the load's duration measured on its own thread, and that thread's CPU meanwhile. */
export interface LoadResult extends PoolResult<number> { durationMs: number; cpuMs: number }

type Load = { kind: 'http'; load: SendLoad } | { kind: 'smtp'; load: SmtpLoad } | { kind: 'trigger'; load: TriggerLoad };
interface Start { role: typeof ROLE; work: Load }

/**
 * Starts the thread, waits until it is ready (modules loaded), then calls `onGo` right before the
 * load starts, so the caller's clock starts with it.
 */
export function runSendLoad(load: SendLoad, onGo: () => void): Promise<LoadResult> {
  return runLoad({ kind: 'http', load }, onGo);
}

export function runSmtpLoad(load: SmtpLoad, onGo: () => void): Promise<LoadResult> {
  return runLoad({ kind: 'smtp', load }, onGo);
}

export function runTriggerLoad(load: TriggerLoad, onGo: () => void): Promise<LoadResult> {
  return runLoad({ kind: 'trigger', load }, onGo);
}

async function runLoad(work: Load, onGo: () => void): Promise<LoadResult> {
  const worker = new Worker(__filename, { workerData: { role: ROLE, work } satisfies Start });
  try {
    const failed = once(worker, 'error').then(([error]) => { throw error; });
    await Promise.race([once(worker, 'message'), failed]); // ready
    onGo();
    worker.postMessage('go');
    const [result] = await Promise.race([once(worker, 'message'), failed]) as [LoadResult];
    return result;
  } finally {
    await worker.terminate();
  }
}

/**
 * The thread's side: one undici Pool, each request's body read to the end so its connection is
 * reused; every answer must be 202. The bodies are made before the load starts: making ~15 KB of
 * HTML per request would take the machine's CPU from what is measured.
 */
async function postJson(
  apiBase: string, path: string, headers: Record<string, string>, bodies: string[], { concurrency, timeoutMs }: Pick<SendLoad, 'concurrency' | 'timeoutMs'>,
): Promise<LoadResult> {
  const client = new Pool(apiBase, { connections: concurrency });
  try {
    const post = async (i: number) => {
      const t0 = performance.now();
      const res = await client.request({ method: 'POST', path, body: bodies[i], headers: { 'content-type': 'application/json', ...headers } });
      const text = await res.body.text();
      if (res.statusCode !== 202) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      return performance.now() - t0;
    };
    const started = performance.now();
    const pool = await runPool(bodies.length, concurrency, timeoutMs, post);
    return { ...pool, durationMs: performance.now() - started, cpuMs: 0 };
  } finally {
    await client.close();
  }
}

/** The messages of an SMTP load, composed by nodemailer before it starts (as the HTTP bodies are). */
function smtpMessages({ first, count }: SmtpLoad): Promise<Buffer[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => new MailComposer({
    from: 'Bench <bench@herald.test>', to: recipientOf(first + i), subject: `Order ${first + i} shipped`, html: sampleHtml(first + i),
  }).compile().build()));
}

/** The thread's side for SMTP: a pool of `concurrency` connections, AUTH once each, each message submitted as composed. */
async function submit({ smtpPort, transactionalKey, first, count, concurrency, timeoutMs }: SmtpLoad, messages: Buffer[]): Promise<LoadResult> {
  const transport = nodemailer.createTransport({
    pool: true, maxConnections: concurrency, maxMessages: Infinity, host: '127.0.0.1', port: smtpPort, ignoreTLS: true,
    auth: { user: 'apikey', pass: transactionalKey },
  });
  try {
    const post = async (i: number) => {
      const t0 = performance.now();
      await transport.sendMail({ envelope: { from: 'bench@herald.test', to: [recipientOf(first + i)] }, raw: messages[i] });
      return performance.now() - t0;
    };
    const started = performance.now();
    const pool = await runPool(count, concurrency, timeoutMs, post);
    return { ...pool, durationMs: performance.now() - started, cpuMs: 0 };
  } finally {
    transport.close();
  }
}

const bodiesOf = (load: { first: number; count: number }, bodyOf: (i: number) => string) => Array.from({ length: load.count }, (_, i) => bodyOf(load.first + i));

/** The load, its bodies made: the function starts it. */
async function prepare(work: Load): Promise<() => Promise<LoadResult>> {
  switch (work.kind) {
    case 'http': {
      const bodies = bodiesOf(work.load, sendRequestBody);
      return () => postJson(work.load.apiBase, '/v1/mail/send', { authorization: `Bearer ${work.load.transactionalKey}` }, bodies, work.load);
    }
    case 'trigger': {
      const bodies = bodiesOf(work.load, triggerEventBody);
      return () => postJson(work.load.apiBase, work.load.path, {}, bodies, work.load);
    }
    case 'smtp': {
      const messages = await smtpMessages(work.load);
      return () => submit(work.load, messages);
    }
  }
}

if (!isMainThread && (workerData as Start | undefined)?.role === ROLE) {
  void prepare((workerData as Start).work).then((start) => {
    parentPort!.postMessage('ready');
    parentPort!.once('message', () => {
      const cpu = threadCpuMs();
      return start().then(
        (result) => parentPort!.postMessage({ ...result, cpuMs: threadCpuMs() - cpu } satisfies LoadResult),
        (error: Error) => { throw error; }, // an 'error' event on the caller's side
      );
    });
  });
}
