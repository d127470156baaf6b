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

/** The relay's answer was a permanent 5xx refusal of this message (no retry helps). */
export function isPermanentRejection(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}
