import type { Logger } from '../adapters/logger';
import { tailOf, type ChildExit } from './child';

/** An embedded service process as its start function returns it. */
export interface Restartable {
  pid: number;
  exited: Promise<ChildExit>;
  stop(): Promise<void>;
}

export interface SupervisorOptions<T extends Restartable> {
  /** For logs: "store", "temporal", "mail sink". */
  name: string;
  /** Starts it again, on the same file and ports (clients reconnect to the same address). */
  restart: () => Promise<T>;
  logger: Logger;
  logFile: string;
  /** Called with each restarted process (to record its pid). */
  onRestarted?: (handle: T) => void;
  /** First wait before a restart; doubles after each failed or short-lived run. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** A run this long counts as healthy: the next crash restarts after initialDelayMs again. */
  stableAfterMs?: number;
}

export interface Supervised<T> {
  current(): T;
  /** Stops supervising, then stops the process. */
  stop(): Promise<void>;
}

/**
 * Keeps an embedded service running under `npm start`: when its process dies, logs why (exit
 * code or signal and the last lines of its log) and starts it again with exponential backoff,
 * for as long as Herald runs. Meanwhile Herald answers 503 and /readyz says what is down.
 */
export function supervise<T extends Restartable>(first: T, options: SupervisorOptions<T>): Supervised<T> {
  const { name, logger } = options;
  const initialDelay = options.initialDelayMs ?? 1000;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const stableAfter = options.stableAfterMs ?? 60_000;
  let current = first;
  let stopping = false;
  let delay = initialDelay;
  let timer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;

  const watch = (handle: T) => {
    const startedAt = Date.now();
    void handle.exited.then((exit) => {
      if (stopping) return;
      if (Date.now() - startedAt >= stableAfter) delay = initialDelay;
      logger.error({ service: name, pid: handle.pid, code: exit.code, signal: exit.signal, log: tailOf(options.logFile, 10) },
        `the embedded ${name} stopped unexpectedly; restarting it in ${delay / 1000} s`);
      scheduleRestart();
    });
  };

  const scheduleRestart = () => {
    timer = setTimeout(() => { restarting = restartNow().finally(() => { restarting = undefined; }); }, delay);
  };

  const restartNow = async () => {
    if (stopping) return;
    try {
      const handle = await options.restart();
      if (stopping) {
        await handle.stop();
        return;
      }
      current = handle;
      logger.warn({ service: name, pid: handle.pid }, `the embedded ${name} is running again`);
      options.onRestarted?.(handle);
      delay = Math.min(delay * 2, maxDelay);
      watch(handle);
    } catch (error) {
      // The error names the cause and the recovery step (see the start functions).
      delay = Math.min(delay * 2, maxDelay);
      logger.error({ service: name, err: error }, `the embedded ${name} could not be restarted; trying again in ${delay / 1000} s`);
      scheduleRestart();
    }
  };

  watch(first);
  return {
    current: () => current,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await restarting; // a restart under way stops what it started
      await current.stop();
    },
  };
}
