// Acceptance of a custom trigger event (checked by the intake route): count it against the
// account's hourly limit, record it (the claim check of its workflow), start its TriggerAutomation
// workflow. The event is accepted only once Temporal acknowledged the start; when a step fails the
// record is removed and the count given back, so a client told to retry leaves nothing half-done.
import type { Client } from '@temporalio/client';
import { readAccountSettings } from '../accounts/settings';
import { errors } from '../shared/errors';
import { derivedId, newId } from '../shared/ids';
import { isDuplicateKey, type Store, type TriggerEventDoc } from '../../adapters/store/store';
import { startTriggerAutomation } from '../../adapters/temporal/client';
import { insertsPerTurn } from '../../adapters/batching/turn-batch';
import type { TriggerEvent } from './event';
import { countTriggerEvent } from './hourly-limit';

export interface IntakeDeps { store: Store; temporal: Client; taskQueue: string }

export interface AcceptedEvent { eventId: string; key: string; email: string; replayed: boolean }

/** An Idempotency-Key: 1 to 255 printable ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** Events accepted together are recorded with one `insertMany` (adapters/batching/turn-batch.ts); an event whose own insert failed gets its error. */
const eventRecords = insertsPerTurn((store) => store.triggerEvents);

const ignore = () => undefined;

/**
 * Accepts the event and returns its id. With an Idempotency-Key the id derives from the account
 * and the key: a repeat of an accepted key is answered with the first event (`replayed`), counts
 * nothing and starts nothing twice; the same key with another event is a bad request. Over the
 * hourly limit: TOO_MANY_REQUESTS with the seconds to the next hour, nothing counted or recorded.
 */
export async function acceptTriggerEvent(deps: IntakeDeps, account: string, event: TriggerEvent, idempotencyKey?: string): Promise<AcceptedEvent> {
  const { store } = deps;
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) throw errors.badRequest('Idempotency-Key must be 1 to 255 printable ASCII characters');
  const eventId = idempotencyKey === undefined ? newId() : derivedId('ev', account, idempotencyKey);
  const _id = `${account}:${eventId}`;
  if (idempotencyKey !== undefined) {
    const earlier = await store.triggerEvents.findOne({ _id, account });
    if (earlier) return replay(deps, earlier, event);
  }
  const settings = await readAccountSettings(store, account);
  if (!settings) throw errors.unauthorized('Invalid trigger address'); // the account is gone
  const counted = await countTriggerEvent(store, account, settings.triggerHourlyLimit);
  if (!counted.allowed) {
    throw errors.tooManyRequests(
      `At most ${settings.triggerHourlyLimit} custom trigger events per hour: this event was discarded; retry after ${counted.nextHour.toISOString()}`,
      counted.retryAfterSeconds,
    );
  }
  const doc: TriggerEventDoc = { _id, account, eventId, key: event.key, email: event.email, context: JSON.stringify(event.context), receivedAt: new Date() };
  try {
    await eventRecords(store).add(doc);
  } catch (error) {
    await counted.giveBack().catch(ignore);
    // The same key posted twice at once: the other request recorded it first.
    const earlier = idempotencyKey !== undefined && isDuplicateKey(error) ? await store.triggerEvents.findOne({ _id, account }) : null;
    if (earlier) return replay(deps, earlier, event);
    throw error;
  }
  try {
    await startTriggerAutomation(deps.temporal, deps.taskQueue, { account, eventId, email: event.email });
  } catch (error) {
    await Promise.all([store.triggerEvents.deleteOne({ _id, account }).catch(ignore), counted.giveBack().catch(ignore)]);
    throw error;
  }
  return { eventId, key: event.key, email: event.email, replayed: false };
}

/** How long a repeat asks for the first event's start again (far less than any namespace's history retention). */
const RESTART_WINDOW_MS = 3_600_000;

/**
 * A repeat of an accepted event: the first one's answer. A recent one asks for the start again,
 * which starts nothing when the workflow exists (its id derives from the event) and answers only
 * once the first request's start is acknowledged too (the repeat may arrive while it is under
 * way). An older one starts nothing: its workflow may have left Temporal's history by now.
 */
async function replay(deps: IntakeDeps, earlier: TriggerEventDoc, event: TriggerEvent): Promise<AcceptedEvent> {
  if (earlier.key !== event.key || earlier.email !== event.email || earlier.context !== JSON.stringify(event.context)) {
    throw errors.badRequest('This Idempotency-Key was used with another event');
  }
  const { account, eventId, email, key } = earlier;
  if (Date.now() - earlier.receivedAt.getTime() < RESTART_WINDOW_MS) {
    await startTriggerAutomation(deps.temporal, deps.taskQueue, { account, eventId, email });
  }
  return { eventId, key, email, replayed: true };
}
