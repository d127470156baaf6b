import type { Store } from '../../adapters/store/store';
import { safetyNet } from './safety-net';

/**
 * Polls `probe` every `everyMs` (100 ms by default) until it returns a truthy value, which it then
 * returns. Without `timeoutMs` it gives up after a safety net of 30 s, stretched for a busy machine.
 */
export async function waitUntil<T>(
  what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = safetyNet(30000), everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Until the account's sender has stopped draining its send queue (it clears its mark once the
 * queue stayed empty): a request then rings Temporal instead of joining a drain at work.
 */
export function senderIdle(store: Store, account: string, timeoutMs = 30000): Promise<true> {
  return waitUntil(`the sender of ${account} to go idle`, async () => {
    const sender = await store.senders.findOne({ _id: account });
    return !sender || sender.drainingUntil.getTime() <= Date.now();
  }, timeoutMs);
}
