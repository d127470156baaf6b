// The transactional load: single sends over HTTP at a steady rate (some with an Idempotency-Key,
// sent twice; some to suppressed addresses), single sends over SMTP, and a 1,000-recipient request
// every minute. What is answered 202 or 250 goes into the context's record of what Herald owes.
import nodemailer from 'nodemailer';
import { callRecorded } from './answers';
import { every, FROM, SOAK_DOMAIN, type SoakContext } from './context';

/** Addresses put on the suppression list before the load starts. */
export const SUPPRESSED = 200;
export const suppressedAddress = (i: number) => `x${i}@${SOAK_DOMAIN}`;
/** HTTP sends whose mail the tracking load opens and clicks (the sink keeps their whole message). */
export const TRACKED_HTTP_PREFIX = 'ht';

const html = (n: string) => `<html><body><p>Hello ${n}</p><p><a href="https://shop.example/p/${n}">See it</a></p></body></html>`;

/** A single send's body, as every load's HTTP send makes it. */
export function sendBody(to: string, subject: string) {
  return { from: { email: FROM, name: 'Soak shop' }, subject, content: { html: html(subject), text: `Hello ${subject}` }, recipients: [{ to: { email: to } }] };
}

/** `perSecond` HTTP sends; one in ten carries an Idempotency-Key and is sent twice, one in twenty goes to a suppressed address. */
export function httpSends(ctx: SoakContext, perSecond: number, random: () => number): Promise<void> {
  return every(ctx, 1000 / perSecond, async (n) => {
    const suppressed = random() < 0.05;
    const idempotent = random() < 0.1;
    const to = suppressed ? suppressedAddress(n % SUPPRESSED) : `${n % 5 === 0 ? TRACKED_HTTP_PREFIX : 'h'}${n}@${SOAK_DOMAIN}`;
    const subject = `soak http ${n}`;
    const headers: Record<string, string> = { authorization: `Bearer ${ctx.transactionalKey}` };
    if (idempotent) headers['idempotency-key'] = `soak-${n}`;
    let batchId: string | undefined;
    for (let attempt = 0; attempt < (idempotent ? 2 : 1); attempt += 1) {
      const answer = await callRecorded(ctx.answers, 'http_send', `${ctx.apiUrl}/v1/mail/send`, { headers, json: sendBody(to, subject) });
      if (answer?.status === 202) batchId ??= answer.headers.get('herald-batch-id') ?? '';
    }
    if (batchId !== undefined) ctx.accepted.push({ to, subject, batchId, suppressed, kind: 'http' });
  }, 20);
}

/** `perSecond` single messages over SMTP, each on a connection of its own. */
export function smtpSends(ctx: SoakContext, perSecond: number): Promise<void> {
  return every(ctx, 1000 / perSecond, async (n) => {
    const to = `s${n}@${SOAK_DOMAIN}`;
    const subject = `soak smtp ${n}`;
    const transport = nodemailer.createTransport({
      host: '127.0.0.1', port: ctx.smtpPort, ignoreTLS: true, auth: { user: 'apikey', pass: ctx.transactionalKey },
      connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000,
    });
    try {
      const info = await transport.sendMail({ from: FROM, to, subject, text: `Hello ${subject}`, html: html(subject) }) as { response?: string };
      ctx.answers.record('smtp_send', 250);
      // "250 OK queued as <batch id>": where the check looks for a message it does not find.
      const batchId = /queued as (\S+)/.exec(info.response ?? '')?.[1];
      ctx.accepted.push({ to, subject, suppressed: false, kind: 'smtp', ...(batchId ? { batchId } : {}) });
    } catch (error) {
      const code = (error as { responseCode?: number }).responseCode;
      // 4xx is SMTP's "try again later": a clear refusal while a part of Herald is down (454 at
      // AUTH: the key could not be checked, RFC 4954).
      ctx.answers.record('smtp_send', code ?? 'none', (error as Error).message, [421, 450, 451, 452, 454]);
    } finally {
      transport.close();
    }
  }, 10);
}

/** A request of 1,000 recipients every minute, each recipient a message of its own. */
export function bigRequests(ctx: SoakContext, recipients = 1000): Promise<void> {
  return every(ctx, 60_000, async (n) => {
    const subject = `soak big ${n}`;
    const to = Array.from({ length: recipients }, (_, i) => `b${n}x${i}@${SOAK_DOMAIN}`);
    const body = { ...sendBody(to[0], subject), recipients: to.map((email) => ({ to: { email } })) };
    const answer = await callRecorded(ctx.answers, 'http_send_1000', `${ctx.apiUrl}/v1/mail/send`, { headers: { authorization: `Bearer ${ctx.transactionalKey}` }, json: body });
    if (answer?.status !== 202) return;
    const batchId = answer.headers.get('herald-batch-id') ?? '';
    for (const email of to) ctx.accepted.push({ to: email, subject, batchId, suppressed: false, kind: 'big' });
  });
}
