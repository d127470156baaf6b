// Where a single send's cost goes, for the scenarios that load Herald with single sends
// (herald-send over HTTP, smtp-send over SMTP): the CPU each process and thread spends per
// request (/proc), and the stages of the listener's and the worker's threads (sampling profiles).
import { CpuMeter, jvmJitMs, processCpuMs, threadCpuMs, threadsCpuMs } from './cpu-usage';
import type { StageRule } from './cpu-profile';
import type { BenchStack } from './herald-stack';
import { round } from './stats';

/** The stages of the worker's thread, by the frames that make them (the nearest on a sample's stack wins). */
export const WORKER_STAGES: StageRule[] = [
  { stage: 'read_request', url: /core\/transactional\/request\.js/ },
  { stage: 'render', url: /core\/content\/|core\/sending\/(plan|mime-splice|dkim)\.js|nodemailer\/lib\/(mime-node|mail-composer|addressparser|mime-funcs|base64|qp|punycode)|parse5|htmlparser2|entities|handlebars/ },
  { stage: 'relay', url: /adapters\/relay\// },
  { stage: 'store', url: /node_modules\/(mongodb|bson)\/|adapters\/batching\/|core\/sending\/(ledger|resume|suppressions)\.js|core\/transactional\/(send-queue|doorbell)\.js/ },
  { stage: 'events', url: /core\/tracking\// },
  { stage: 'temporal', url: /@temporalio|core-bridge/ },
  { stage: 'bench', url: /dist\/bench\// },
];

/** What accepting costs on either listener: the store, Temporal, logging. */
const ACCEPT_STAGES: StageRule[] = [
  { stage: 'store', url: /node_modules\/(mongodb|bson)\/|adapters\/batching\/|core\/transactional\/(accept|send-queue|monthly-usage|doorbell|pacing|request|submit|idempotency)\.js/ },
  { stage: 'temporal', url: /@temporalio|@grpc|protobufjs/ },
  { stage: 'log', url: /pino/ },
];

/** The stages of the API's thread. */
export const API_STAGES: StageRule[] = [
  { stage: 'validate', url: /ajv|api\/transactional\/(validate-send|send-schema)|api\/validation|core\/shared\/limits|core\/content\/|api\/middleware\/body/ },
  { stage: 'authenticate', url: /api\/transactional\/auth|core\/accounts\// },
  ...ACCEPT_STAGES,
  { stage: 'http', url: /node_modules\/(koa|@koa|koa-compose|raw-body|co-body|type-is|on-finished|delegates|ee-first|statuses|http-errors|content-type|media-typer)\/|node:_http|api\/middleware|api\/app/ },
];

/** The stages of the SMTP listener's thread. */
export const SMTP_STAGES: StageRule[] = [
  { stage: 'parse', url: /mailparser|mailsplit|libmime|libqp|libbase64|iconv-lite|encoding-japanese|core\/transactional\/smtp-message/ },
  { stage: 'authenticate', url: /smtp\/auth-throttle|core\/accounts\// },
  ...ACCEPT_STAGES,
  { stage: 'smtp', url: /smtp-server|smtp\/server|smtp\/replies/ },
];

/** CPU of the parts a single-send load runs on, from start() to perRequest(). */
export function singleSendMeter(stack: BenchStack, listenerTid: number) {
  const meter = new CpuMeter({
    worker_thread: threadCpuMs, // the scenario's own thread runs the worker
    listener_thread: () => threadsCpuMs(process.pid).get(listenerTid)?.ms ?? 0,
    live_node_threads: () => [...threadsCpuMs(process.pid).values()].reduce((sum, thread) => sum + thread.ms, 0),
    store: () => processCpuMs(stack.store.pid),
    store_jit: () => jvmJitMs(stack.store.pid),
    temporal: () => processCpuMs(stack.temporal.pid),
    sink: () => processCpuMs(stack.sink.pid),
  });
  return {
    start: () => meter.start(),
    /** ms of CPU per request of each part; `loadCpuMs`: the load thread's own (it has ended). */
    perRequest(requests: number, loadCpuMs: number, listener: string): Record<string, number> {
      const used = meter.perItem(requests);
      const parts = {
        [`${listener}_thread`]: used.listener_thread,
        worker_thread: used.worker_thread,
        // The relay thread, the workflow thread, V8's garbage collection and compiler threads, the Temporal SDK's.
        other_node_threads: round(used.live_node_threads - used.worker_thread - used.listener_thread, 3),
        store: round(used.store - used.store_jit, 3),
        store_jit: used.store_jit,
        temporal: used.temporal,
        sink: used.sink,
        load_generator: round(loadCpuMs / requests, 3),
      };
      return { ...parts, total: round(Object.values(parts).reduce((a, b) => a + b, 0), 3) };
    },
  };
}

/** ms per request of each stage, the largest first. */
export function stagesPerRequest(stages: Record<string, number>, requests: number): Record<string, number> {
  return Object.fromEntries(Object.entries(stages).sort((a, b) => b[1] - a[1]).map(([name, ms]) => [name, round(ms / requests, 3)]));
}
