// Where bounces and complaints come from, as an operator checks them: for each provider's webhook,
// whether it is configured, the URL to give the provider and when a report last came in (a webhook
// that was never called is the usual mistake of a set-up); the bounce mailbox likewise. Nothing
// here is ever a secret: settings are reduced to "configured" and a host.
import { perStore } from '../../adapters/store/per-store';
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

/** A provider's "last report" is written at most this often by a process; the latest one of a burst follows the window. */
const NOTE_EVERY_MS = 1000;

/** Per store and provider: when the note was last written, and the one waiting for the window to end. */
const notesOf = perStore(() => new Map<FeedbackProvider, { writtenAt: number; waiting?: { summary: FeedbackSummary; at: Date } }>());

/**
 * A provider's request was taken (its events recorded or ignored): the console's "last report".
 * A burst of webhook requests (a provider's retries, a SendGrid backlog) makes one write a second,
 * not one each: the note is at most a second behind, and the last one of a burst is written too.
 */
export async function noteProviderReport(store: Store, provider: FeedbackProvider, summary: FeedbackSummary, at = new Date()): Promise<void> {
  const notes = notesOf(store);
  const note = notes.get(provider);
  const write = (latest: { summary: FeedbackSummary; at: Date }) => (
    store.feedbackSources.updateOne({ _id: provider }, { $set: { lastReportAt: latest.at, lastOutcome: latest.summary } }, { upsert: true })
  );
  if (note && Date.now() - note.writtenAt < NOTE_EVERY_MS) {
    if (!note.waiting) {
      setTimeout(() => {
        const latest = note.waiting!;
        note.waiting = undefined;
        note.writtenAt = Date.now();
        write(latest).catch(() => undefined); // a note missed (the store away) is only the console's figure
      }, NOTE_EVERY_MS - (Date.now() - note.writtenAt)).unref();
    }
    note.waiting = { summary, at };
    return;
  }
  notes.set(provider, { writtenAt: Date.now() });
  await write({ summary, at });
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
