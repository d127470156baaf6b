// A replay of discarded events (POST /v2/{account}/webhooks/{id}/replay): the events chosen,
// all of them discarded events of this endpoint, POSTed now in one request to the endpoint's
// current URL, signed with its current secret by the same poster as every delivery (its
// connections pass the URL policy's address check). The request is logged (`replayed` on 2xx,
// else `failed`, with `replay: true`); delivered events leave the discarded list, the others stay.
import { metrics } from '../../adapters/metrics/registry';
import type { Store, WebhookDoc } from '../../adapters/store/store';
import { errors, fieldError } from '../shared/errors';
import { logRequest } from './deliveries';
import { discardsOf, forgetDiscards, readEvents } from './discards';
import { splitIntoRequests } from './payload';
import type { Poster } from './post';
import { acquireRequests } from './rate-limit';

export const MAX_REPLAY_EVENTS = 500;

export interface ReplayResult { delivered: boolean; status: number | null; error: string | null; events: number }

export async function replayDiscarded(store: Store, poster: Poster, endpoint: WebhookDoc, trackIds: string[]): Promise<ReplayResult> {
  if (!endpoint.enabled) throw errors.badRequest('The webhook endpoint is disabled: enable it (PUT enabled: true) before replaying its events');
  const wanted = [...new Set(trackIds)];
  const records = await discardsOf(store, endpoint, wanted);
  const events = await readEvents(store, endpoint.account, records.map((r) => r.eventId));
  const found = new Set(events.map((e) => e.trackId));
  const unknown = wanted.filter((t) => !found.has(t));
  if (unknown.length > 0) {
    const shown = unknown.slice(0, 20).join(', ') + (unknown.length > 20 ? ` and ${unknown.length - 20} more` : '');
    throw errors.validation({ track_ids: fieldError('invalid_value', `Not discarded events of this endpoint: ${shown}`) });
  }
  const [request] = splitIntoRequests(events, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  await acquireRequests(store, endpoint.url, 1);
  const result = await poster.post(endpoint, request.body, { 'Herald-Attempt': 'replay' });
  const delivered = result.outcome === 'delivered';
  if (delivered) {
    metrics.webhookEventsDelivered.inc(events.length);
    await forgetDiscards(store, endpoint, request.trackIds);
  }
  await logRequest(store, endpoint, request.trackIds, {
    outcome: delivered ? 'replayed' : 'failed', attempt: 1, status: result.status, error: result.error, replay: true,
  });
  return { delivered, status: result.status, error: result.error, events: events.length };
}
