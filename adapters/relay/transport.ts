// The relay transport: a pool of SMTP connections per relay (./router.ts picks the relay), shared
// by every send of a worker. Per message: the envelope as nodemailer would send it (./envelope.ts), DKIM signing as
// nodemailer's Mailer signed (./dkim-sign.ts), the DATA bytes made once with native scans
// (./smtp-data.ts), and nodemailer's SMTPConnection for the rest (./pool.ts,
// ./data-connection.ts). What goes to the relay is byte for byte what pooled nodemailer's
// sendMail({envelope, raw, dkim}) sent, without its per-message Mailer and MailComposer work.
import type DKIM from 'nodemailer/lib/dkim';
import { createRelayRouter } from './router';
import type { Route } from './routes';

/** What routing and the relay read of a message besides its bytes (./routes.ts). */
export interface MessageRoute extends Route {
  /** The message's mail_id: passed to relays that return it with their bounce reports (Postmark). */
  mailId?: string;
}

/** A message as the send engine hands it to the relay: built MIME, its envelope, DKIM signing if any. */
export interface RelayMessage {
  envelope: { from: string; to: string[] };
  raw: Buffer;
  dkim?: DKIM.SingleKeyOptions;
  /** Which relay takes it; a campaign's messages wait behind the others' at a relay. */
  route: MessageRoute;
}

/** What sends to the relays: the router itself (./router.ts), or the same on a thread of its own (./thread.ts). */
export interface RelaySender {
  /** Resolves with the relay's answer and the relay's name; rejects with an error classifyRelayFailure understands. */
  sendMail(message: RelayMessage): Promise<{ response: string; relay?: string }>;
  close(): void | Promise<void>;
}

/**
 * One relay that takes anything (`smtp://` or `smtps://`, credentials in the URL): up to 5
 * connections, each kept for any number of messages; STARTTLS when the relay offers it.
 */
export function createRelayTransport(relayUrl: string): RelaySender {
  return createRelayRouter([{ name: 'default', url: relayUrl }]);
}

/**
 * What a failed send means. The relay refusing this message's recipient or content (a reply to
 * RCPT TO or DATA): `refused` for 5xx (a hard bounce; no retry helps), `deferred` for 4xx (that
 * recipient is tried again later; the others go on). Anything else is the relay's own trouble
 * (connection, timeout, authentication, a refused sender): retried, never a bounce.
 */
export type RelayFailure = 'refused' | 'deferred' | 'relay';

export function classifyRelayFailure(error: unknown): RelayFailure {
  const { responseCode: code, command } = (error ?? {}) as { responseCode?: unknown; command?: unknown };
  if (typeof code !== 'number' || (command !== 'RCPT TO' && command !== 'DATA')) return 'relay';
  if (code >= 500 && code < 600) return 'refused';
  if (code >= 400 && code < 500) return 'deferred';
  return 'relay';
}
