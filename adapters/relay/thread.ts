// The relay transport on a thread of its own. Each message takes the relay's answers twice (to
// its pipelined envelope and DATA, then to the message) and some CPU (DKIM signing, its DATA
// bytes, the socket); on the worker's event loop, busy rendering and writing the ledger, each
// answer would wait its turn while the relay's connections sit idle. On its own thread the
// transport answers the relay at once and uses the second core. Messages cross as raw MIME,
// copied: transferring the buffer instead saved no measurable CPU (bench/relay-path.ts, 20,000
// sends of 34 KB), and would empty the caller's Buffer, which nothing then must read again.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type DKIM from 'nodemailer/lib/dkim';
import { threadScript } from '../project-root';
import { createRelayTransport, type RelayMessage, type RelaySender } from './transport';

const ROLE = 'herald-relay-thread';

interface ThreadStart { role: typeof ROLE; relayUrl: string }
interface SendRequest { id: number; envelope: RelayMessage['envelope']; raw: Uint8Array; dkim?: DKIM.SingleKeyOptions; urgent?: boolean }
/** A failed send keeps what callers classify it by (adapters/relay/transport.ts: classifyRelayFailure). */
interface SendFailure { message: string; code?: unknown; responseCode?: unknown; command?: unknown; response?: unknown }
type SendReply = { id: number; response: string } | { id: number; error: SendFailure };

/** A relay transport whose SMTP client runs on a worker thread; same behaviour as createRelayTransport's. */
export function createThreadedRelay(relayUrl: string): RelaySender {
  const thread = new Worker(threadScript(__filename), { workerData: { role: ROLE, relayUrl } satisfies ThreadStart });
  thread.unref(); // a worker that is done must not be kept alive by its idle relay thread
  const waiting = new Map<number, { resolve: (info: { response: string }) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failed: Error | undefined;
  const failAll = (error: Error) => {
    failed = error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  thread.on('message', (reply: SendReply) => {
    const pending = waiting.get(reply.id);
    if (!pending) return;
    waiting.delete(reply.id);
    if ('error' in reply) pending.reject(Object.assign(new Error(reply.error.message), reply.error));
    else pending.resolve({ response: reply.response });
  });
  thread.on('error', (error) => failAll(error));
  thread.on('exit', (code) => failAll(new Error(`the relay thread stopped (exit code ${code})`)));
  return {
    sendMail({ envelope, raw, dkim, urgent }) {
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        thread.postMessage({ id, envelope, raw, dkim, urgent } satisfies SendRequest);
      });
    },
    async close() {
      failed ??= new Error('the relay transport is closed');
      await thread.terminate();
    },
  };
}

/** The thread's side: one pooled transport; each request answered with the relay's response or the error's fields. */
function serve({ relayUrl }: ThreadStart): void {
  const relay = createRelayTransport(relayUrl);
  parentPort!.on('message', ({ id, envelope, raw, dkim, urgent }: SendRequest) => {
    relay.sendMail({ envelope, raw: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), dkim, urgent }).then(
      (info) => parentPort!.postMessage({ id, response: info.response } satisfies SendReply),
      (error: Error & Omit<SendFailure, 'message'>) => parentPort!.postMessage({
        id, error: { message: error.message, code: error.code, responseCode: error.responseCode, command: error.command, response: error.response },
      } satisfies SendReply),
    );
  });
}

if (!isMainThread && (workerData as ThreadStart | undefined)?.role === ROLE) serve(workerData as ThreadStart);
