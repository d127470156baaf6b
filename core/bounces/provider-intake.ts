// Records the events of one provider's webhook request: each finds Herald's message (its mail_id,
// from the provider's metadata or the Message-ID Herald set) and goes through recordFeedback, the
// one way a bounce or complaint about a sent message is recorded (a request's events, and
// concurrent requests', are recorded together: core/bounces/intake.ts). An event is named by the
// provider's id of it, so a provider that retries (or sends an event twice) records it once.
//
// Events about no message Herald sent (mail sent around Herald through the same provider account,
// a message the ledger no longer has) record nothing and are not an error: the provider gets its
// 2xx and stops retrying what could never succeed.
import { metrics } from '../../adapters/metrics/registry';
import type { Store } from '../../adapters/store/store';
import { noteProviderReport } from './feedback-sources';
import { recordFeedback, type ReportResult } from './intake';
import { mailIdOfEvent, outcomeForRecipient, type FeedbackProvider, type ProviderEvent } from './provider-event';

export interface FeedbackSummary {
  /** Events in the request. */
  events: number;
  /** Bounces and complaints recorded (a repeat of one already recorded counts again: it is recorded, once). */
  recorded: number;
  /** Events that record nothing: another kind of event, another recipient, a message Herald did not send. */
  ignored: number;
}

export async function recordProviderEvents(store: Store, provider: FeedbackProvider, events: ProviderEvent[]): Promise<FeedbackSummary> {
  const recorded = await Promise.all(events.map((event) => recordProviderEvent(store, provider, event)));
  const summary = { events: events.length, recorded: recorded.filter(Boolean).length, ignored: events.length - recorded.filter(Boolean).length };
  // After the events are stored, so "last report" means one taken: the console shows it beside
  // the provider's URL (a webhook never called is the usual set-up mistake).
  await noteProviderReport(store, provider, summary);
  return summary;
}

/** Records the event if it names a message of Herald's; true when it recorded a bounce or complaint. */
async function recordProviderEvent(store: Store, provider: FeedbackProvider, event: ProviderEvent): Promise<boolean> {
  const mailId = event.outcome.kind === 'none' ? undefined : mailIdOfEvent(event);
  if (!mailId) {
    countFeedback(provider, event.outcome.kind === 'none' ? 'ignored' : 'unknown');
    return false;
  }
  const result = await recordFeedback(store, mailId, (email) => outcomeForRecipient(event, email), `${provider}:${event.id}`);
  countFeedback(provider, outcomeLabel(result));
  return result.recorded !== 'nothing';
}

export function outcomeLabel(result: ReportResult): string {
  if (result.recorded === 'bounce') return result.bounceType;
  if (result.recorded === 'complaint') return 'complaint';
  return result.account ? 'ignored' : 'unknown';
}

export function countFeedback(provider: FeedbackProvider | 'api', outcome: string): void {
  metrics.feedbackReports.inc({ provider, outcome });
}
