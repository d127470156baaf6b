import nodemailer, { Transporter } from 'nodemailer';

/** One pooled SMTP connection set to the relay, shared by every send of a worker. */
export function createRelayTransport(relayUrl: string): Transporter {
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
