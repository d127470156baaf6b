// Where bounces and complaints come from, as an operator checks them: for each provider's webhook,
// whether it is configured, the URL to give the provider and when a report last came in (a webhook
// that was never called is the usual mistake of a set-up); the bounce mailbox likewise. Nothing
// here is ever a secret: settings are reduced to "configured" and a host.
import type { FeedbackSourceDoc, Store } from '../../adapters/store/store';
import { hostOf } from '../shared/url-host';
import type { FeedbackSettings } from './feedback-settings';
import { FEEDBACK_PROVIDERS, type FeedbackProvider } from './provider-event';
import type { FeedbackSummary } from './provider-intake';

export interface ProviderSourceView {
  provider: FeedbackProvider;
  configured: boolean;
  /** What to paste into the provider: HERALD_PUBLIC_URL's webhook (Postmark's basic-auth pair is added there, never shown here). */
  url: string;
  /** ISO time of the last request taken (recorded or ignored), or null. */
  lastReportAt: string | null;
  lastOutcome: FeedbackSummary | null;
}

export interface MailboxSourceView {
  configured: boolean;
  /** imaps://host:port, without the user and password. */
  host: string | null;
  /** ISO time of the reader's last read of the mailbox, or null (never read). */
  lastReadAt: string | null;
  lastReportAt: string | null;
}

const MAILBOX = 'mailbox';

/** A provider's request was taken (its events recorded or ignored): the console's "last report". */
export async function noteProviderReport(store: Store, provider: FeedbackProvider, summary: FeedbackSummary, at = new Date()): Promise<void> {
  await store.feedbackSources.updateOne({ _id: provider }, { $set: { lastReportAt: at, lastOutcome: summary } }, { upsert: true });
}

/** For the bounce mailbox's reader: it read the mailbox at `at`, and took `summary`'s reports (none: only the read is noted). */
export async function noteMailboxRead(store: Store, at: Date, summary?: FeedbackSummary): Promise<void> {
  const taken = summary && summary.events > 0 ? { lastReportAt: at, lastOutcome: summary } : {};
  await store.feedbackSources.updateOne({ _id: MAILBOX }, { $set: { lastReadAt: at, ...taken } }, { upsert: true });
}

/** The webhook URL a provider is given. */
export function feedbackUrl(publicUrl: string, provider: FeedbackProvider): string {
  return `${publicUrl.replace(/\/+$/, '')}/v1/feedback/${provider}`;
}

const iso = (date: Date | undefined) => date?.toISOString() ?? null;

/** The sources as shown, from the settings and what the store noted (pure). */
export function feedbackSourceViews(
  settings: FeedbackSettings, publicUrl: string, noted: FeedbackSourceDoc[],
): { feedback: ProviderSourceView[]; mailbox: MailboxSourceView } {
  const of = (id: string) => noted.find((doc) => doc._id === id);
  const feedback = FEEDBACK_PROVIDERS.map((provider) => ({
    provider,
    configured: settings[provider] !== undefined,
    url: feedbackUrl(publicUrl, provider),
    lastReportAt: iso(of(provider)?.lastReportAt),
    lastOutcome: of(provider)?.lastOutcome ?? null,
  }));
  const mailbox = of(MAILBOX);
  return {
    feedback,
    mailbox: {
      configured: settings.mailbox !== undefined,
      host: settings.mailbox ? hostOf(settings.mailbox.url) : null,
      lastReadAt: iso(mailbox?.lastReadAt),
      lastReportAt: iso(mailbox?.lastReportAt),
    },
  };
}

export async function feedbackSources(store: Store, settings: FeedbackSettings, publicUrl: string) {
  const noted = await store.feedbackSources.find({ _id: { $in: [...FEEDBACK_PROVIDERS, MAILBOX] } }).toArray();
  return feedbackSourceViews(settings, publicUrl, noted);
}
