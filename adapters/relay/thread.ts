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
import { createRelayRouter, type RelayShare, type RouterEvents } from './router';
import type { RelayDefinition } from './routes';
import type { MessageRoute, RelayMessage, RelaySender } from './transport';

const ROLE = 'herald-relay-thread';

interface ThreadStart { role: typeof ROLE; relays: RelayDefinition[] }
interface SendRequest { id: number; envelope: RelayMessage['envelope']; raw: Uint8Array; dkim?: DKIM.SingleKeyOptions; route: MessageRoute }
interface ShareRequest { share: string; limits: RelayShare }
/** A failed send keeps what callers classify it by (adapters/relay/transport.ts: classifyRelayFailure). */
interface SendFailure { message: string; code?: unknown; responseCode?: unknown; command?: unknown; response?: unknown }
type SendReply = { id: number; response: string; relay: string } | { id: number; error: SendFailure };
/** What the router tells the owning thread besides answers: outcomes per relay, and when one goes down or comes back. */
type Outcome = 'sent' | 'deferred' | 'failed' | 'trouble';
type RelayNews = { news: 'counts'; counts: Array<[relay: string, outcome: Outcome, count: number]> } | { news: 'health'; relay: string; up: boolean; reason?: string };
/** How often the thread hands over its outcome counts: together, not a message to the owning thread per sent message. */
const COUNTS_EVERY_MS = 250;

/** The threaded router, with what the router itself offers besides sending. */
export interface ThreadedRelay extends RelaySender {
  /** Changes a relay's limits in this process (its share of the file's). */
  share(relay: string, limits: RelayShare): void;
}

/** The relays' router (./router.ts) on a worker thread; `events` hears of outcomes and health on the calling thread. */
export function createThreadedRelay(relays: RelayDefinition[], events: RouterEvents = {}): ThreadedRelay {
  const thread = new Worker(threadScript(__filename), { workerData: { role: ROLE, relays } satisfies ThreadStart });
  thread.unref(); // a worker that is done must not be kept alive by its idle relay thread
  const waiting = new Map<number, { resolve: (info: { response: string; relay: string }) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let failed: Error | undefined;
  const failAll = (error: Error) => {
    failed = error;
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  thread.on('message', (reply: SendReply | RelayNews) => {
    if ('news' in reply) {
      if (reply.news === 'counts') for (const [relay, outcome, count] of reply.counts) events.outcome?.(relay, outcome, count);
      else events.health?.(reply.relay, reply.up, reply.reason);
      return;
    }
    const pending = waiting.get(reply.id);
    if (!pending) return;
    waiting.delete(reply.id);
    if ('error' in reply) pending.reject(Object.assign(new Error(reply.error.message), reply.error));
    else pending.resolve({ response: reply.response, relay: reply.relay });
  });
  thread.on('error', (error) => failAll(error));
  thread.on('exit', (code) => failAll(new Error(`the relay thread stopped (exit code ${code})`)));
  return {
    sendMail({ envelope, raw, dkim, route }) {
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { resolve, reject });
        thread.postMessage({ id, envelope, raw, dkim, route } satisfies SendRequest);
      });
    },
    share(relay, limits) {
      thread.postMessage({ share: relay, limits } satisfies ShareRequest);
    },
    async close() {
      failed ??= new Error('the relay transport is closed');
      await thread.terminate();
    },
  };
}

/** The thread's side: the router; each request answered with the relay's response or the error's fields. */
function serve({ relays }: ThreadStart): void {
  const tell = (news: RelayNews) => parentPort!.postMessage(news);
  const counted = new Map<string, number>(); // `<outcome> <relay>` → count since the last hand-over
  const router = createRelayRouter(relays, {
    outcome: (relay, outcome) => { const key = `${outcome} ${relay}`; counted.set(key, (counted.get(key) ?? 0) + 1); },
    health: (relay, up, reason) => tell({ news: 'health', relay, up, reason }),
  });
  setInterval(() => {
    if (counted.size === 0) return;
    const counts = [...counted].map(([key, count]): [string, Outcome, number] => {
      const space = key.indexOf(' ');
      return [key.slice(space + 1), key.slice(0, space) as Outcome, count];
    });
    counted.clear();
    tell({ news: 'counts', counts });
  }, COUNTS_EVERY_MS).unref();
  parentPort!.on('message', (request: SendRequest | ShareRequest) => {
    if ('share' in request) {
      router.share(request.share, request.limits);
      return;
    }
    const { id, envelope, raw, dkim, route } = request;
    router.sendMail({ envelope, raw: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), dkim, route }).then(
      (info) => parentPort!.postMessage({ id, response: info.response, relay: info.relay ?? '' } satisfies SendReply),
      (error: Error & Omit<SendFailure, 'message'>) => parentPort!.postMessage({
        id, error: { message: error.message, code: error.code, responseCode: error.responseCode, command: error.command, response: error.response },
      } satisfies SendReply),
    );
  });
}

if (!isMainThread && (workerData as ThreadStart | undefined)?.role === ROLE) serve(workerData as ThreadStart);
