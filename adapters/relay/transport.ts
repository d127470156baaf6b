// The relay transport: one pool of SMTP connections to the relay, shared by every send of a
// worker. Per message: the envelope as nodemailer would send it (./envelope.ts), DKIM signing as
// nodemailer's Mailer signed (./dkim-sign.ts), the DATA bytes made once with native scans
// (./smtp-data.ts), and nodemailer's SMTPConnection for the rest (./pool.ts,
// ./data-connection.ts). What goes to the relay is byte for byte what pooled nodemailer's
// sendMail({envelope, raw, dkim}) sent, without its per-message Mailer and MailComposer work.
import type DKIM from 'nodemailer/lib/dkim';
import { dkimSigned } from './dkim-sign';
import { relayEnvelope } from './envelope';
import { RelayPool } from './pool';
import { smtpData } from './smtp-data';

/** A message as the send engine hands it to the relay: built MIME, its envelope, DKIM signing if any. */
export interface RelayMessage {
  envelope: { from: string; to: string[] };
  raw: Buffer;
  dkim?: DKIM.SingleKeyOptions;
  /** Sent ahead of the messages waiting that are not (transactional mail, ahead of a campaign's). */
  urgent?: boolean;
}

/** What sends to the relay: the transport itself, or the same on a thread of its own (adapters/relay/thread.ts). */
export interface RelaySender {
  /** Resolves with the relay's answer; rejects with an error classifyRelayFailure understands. */
  sendMail(message: RelayMessage): Promise<{ response: string }>;
  close(): void | Promise<void>;
}

/**
 * Up to 5 connections to the relay (`smtp://` or `smtps://`, credentials in the URL), each kept
 * for any number of messages; STARTTLS when the relay offers it.
 */
export function createRelayTransport(relayUrl: string): RelaySender {
  const url = new URL(relayUrl);
  const user = decodeURIComponent(url.username);
  const pool = new RelayPool({
    host: url.hostname,
    port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 25),
    secure: url.protocol === 'smtps:',
    connectionTimeout: 10000,
    socketTimeout: 60000,
  }, url.username ? { user, credentials: { user, pass: decodeURIComponent(url.password) } } : undefined, 5);
  return {
    async sendMail({ envelope, raw, dkim, urgent }) {
      const message = dkim ? await dkimSigned(raw, dkim) : raw;
      return { response: await pool.send(relayEnvelope(envelope), smtpData(message), urgent) };
    },
    close: () => pool.close(),
  };
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
