// A process starting up reaches its servers (the store, Temporal) by several short attempts within
// a deadline, not one long one. On a saturated machine an attempt's own deadline (5 s) was seen to
// pass while the server was up: a Temporal call that had not yet left the process, a store whose
// JVM had not yet accepted the connection. Only the first connect waits so: once connected, an
// outage still fails each operation within the client's short timeout (the API's quick 503s).

/** How long a starting process keeps trying to reach a server before it gives up. */
export const FIRST_CONNECT_FOR_MS = 30_000;
const PAUSE_BETWEEN_ATTEMPTS_MS = 500;

export interface FirstConnectOptions {
  /** How long to keep trying (FIRST_CONNECT_FOR_MS). */
  forMs?: number;
  /** Whether a failed attempt is worth another (a bad address or credentials are not). */
  retryable?: (error: unknown) => boolean;
  /** Told of each failed attempt that is tried again. */
  onRetry?: (error: unknown) => void;
}

export async function firstConnect<T>(attempt: () => Promise<T>, options: FirstConnectOptions = {}): Promise<T> {
  const giveUpAt = Date.now() + (options.forMs ?? FIRST_CONNECT_FOR_MS);
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() >= giveUpAt || !(options.retryable?.(error) ?? true)) throw error;
      options.onRetry?.(error);
      await new Promise((resolve) => setTimeout(resolve, PAUSE_BETWEEN_ATTEMPTS_MS));
    }
  }
}
