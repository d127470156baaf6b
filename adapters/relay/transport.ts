import nodemailer, { Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import type DKIM from 'nodemailer/lib/dkim';

/** A message as the send engine hands it to the relay: built MIME, its envelope, DKIM signing if any. */
export interface RelayMessage {
  envelope: { from: string; to: string[] };
  raw: Buffer;
  dkim?: DKIM.SingleKeyOptions;
}

/** What sends to the relay: the pooled transport itself, or the same on a thread of its own (adapters/relay/thread.ts). */
export interface RelaySender {
  /** Resolves with the relay's answer; rejects with an error classifyRelayFailure understands. */
  sendMail(message: RelayMessage): Promise<{ response: string }>;
  close(): void | Promise<void>;
}

/** One pooled SMTP connection set to the relay, shared by every send of a worker. */
export function createRelayTransport(relayUrl: string): Transporter<SMTPPool.SentMessageInfo> {
  const url = new URL(relayUrl);
  return nodemailer.createTransport({
    pool: true,
    maxConnections: 5,
    maxMessages: Infinity,
    host: url.hostname,
    port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 25),
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: 10000,
    socketTimeout: 60000,
  });
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
