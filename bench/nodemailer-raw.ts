// (b) The sending floor without Herald: pooled nodemailer building and sending each ~15 KB
// message to a counting sink in another process. Herald's send rate cannot beat this.
import nodemailer from 'nodemailer';
import { startCountingSink } from './counting-sink';
import { recipientOf, sampleHtml } from './mail';
import { perSecond, round } from './stats';
import { log, runPool, Teardown } from './support';

const MESSAGES = 2000;
const MAX_CONNECTIONS = 5;
/** sendMail calls in flight; the pool queues them onto its 5 connections. */
const IN_FLIGHT = 50;

export async function runNodemailerRaw(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const sink = await startCountingSink();
    teardown.defer('counting sink', () => sink.stop());
    const { port } = new URL(sink.url);
    const transport = nodemailer.createTransport({
      pool: true, maxConnections: MAX_CONNECTIONS, maxMessages: Infinity, host: '127.0.0.1', port: Number(port), secure: false, ignoreTLS: true,
    });
    teardown.defer('transport', () => transport.close());
    const send = (i: number) => transport.sendMail({
      from: 'Bench <bench@herald.test>', to: recipientOf(i), subject: `Order ${i} shipped`, html: sampleHtml(i),
    });
    await send(-1); // warm-up: opens the first connection outside the timing
    log(`nodemailer-raw: sending ${MESSAGES} messages`);
    const started = performance.now();
    const pool = await runPool(MESSAGES, IN_FLIGHT, 120_000, send);
    const ms = performance.now() - started;
    const received = (await sink.count()) - 1;
    return {
      scenario: 'nodemailer-raw',
      messages_per_s: perSecond(pool.results.length, ms),
      messages: pool.results.length,
      errors: MESSAGES - pool.results.length,
      ...(pool.firstError ? { first_error: pool.firstError } : {}),
      sink_received: received,
      message_kb: round(Buffer.byteLength(sampleHtml(0)) / 1024),
      max_connections: MAX_CONNECTIONS,
      notes: `pooled nodemailer, MIME built per message, ${IN_FLIGHT} sendMail calls in flight; smtp-server sink that only counts, in a child process`,
    };
  } finally {
    await teardown.run();
  }
}
