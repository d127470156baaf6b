// Records the events of one provider's webhook request: each finds Herald's message (its mail_id,
// from the provider's metadata or the Message-ID Herald set) and goes through recordFeedback, the
// one way a bounce or complaint about a sent message is recorded. An event is named by the
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

/** Events of one request recorded at once, at most (a SendGrid batch may hold thousands). */
const CONCURRENCY = 16;

export async function recordProviderEvents(store: Store, provider: FeedbackProvider, events: ProviderEvent[]): Promise<FeedbackSummary> {
  const results: ReportResult[] = [];
  for (let start = 0; start < events.length; start += CONCURRENCY) {
    results.push(...await Promise.all(events.slice(start, start + CONCURRENCY).map((event) => recordProviderEvent(store, provider, event))));
  }
  const recorded = results.filter((r) => r.recorded !== 'nothing').length;
  const summary = { events: events.length, recorded, ignored: events.length - recorded };
  // After the events are stored, so "last report" means one taken: the console shows it beside
  // the provider's URL (a webhook never called is the usual set-up mistake).
  await noteProviderReport(store, provider, summary);
  return summary;
}

async function recordProviderEvent(store: Store, provider: FeedbackProvider, event: ProviderEvent): Promise<ReportResult> {
  if (event.outcome.kind === 'none') {
    countFeedback(provider, 'ignored');
    return { recorded: 'nothing', why: event.outcome.why };
  }
  const mailId = mailIdOfEvent(event);
  if (!mailId) {
    countFeedback(provider, 'unknown');
    return { recorded: 'nothing', why: 'the event names no message Herald sent' };
  }
  const result = await recordFeedback(store, mailId, (email) => outcomeForRecipient(event, email), `${provider}:${event.id}`);
  countFeedback(provider, outcomeLabel(result));
  return result;
}

export function outcomeLabel(result: ReportResult): string {
  if (result.recorded === 'bounce') return result.bounceType;
  if (result.recorded === 'complaint') return 'complaint';
  return result.account ? 'ignored' : 'unknown';
}

export function countFeedback(provider: FeedbackProvider | 'api', outcome: string): void {
  metrics.feedbackReports.inc({ provider, outcome });
}
