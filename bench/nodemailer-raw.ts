// (b) The sending floor without Herald: pooled nodemailer building and sending each ~15 KB
// message to a counting sink in another process; and the relay's own speed, the same messages
// composed beforehand and sent as raw MIME (no composing on the sending path). Herald's send rate
// is measured against the latter.
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { startCountingSink } from './counting-sink';
import { recipientOf, sampleHtml } from './mail';
import { perSecond, round } from './stats';
import { log, runPool, Teardown } from './support';

const MESSAGES = 2000;
const MAX_CONNECTIONS = 5;
/** sendMail calls in flight; the pool queues them onto its 5 connections. */
const IN_FLIGHT = 50;

/** A pooled transport to a sink, as Herald's relay transport is configured (adapters/relay/transport.ts). */
function poolTo(sinkUrl: string) {
  const { port } = new URL(sinkUrl);
  return nodemailer.createTransport({
    pool: true, maxConnections: MAX_CONNECTIONS, maxMessages: Infinity, host: '127.0.0.1', port: Number(port), secure: false, ignoreTLS: true,
  });
}

/**
 * The relay's speed: `count` messages composed before the clock starts, then sent as raw MIME,
 * IN_FLIGHT at a time over a pooled transport. Returns messages/s.
 */
export async function measurePrebuiltRaw(sinkUrl: string, count: number): Promise<{ messages_per_s: number; errors: number }> {
  const raws = await Promise.all(Array.from({ length: count }, (_, i) => new MailComposer({
    from: 'Bench <bench@herald.test>', to: recipientOf(i), subject: `Order ${i} shipped`, html: sampleHtml(i),
  }).compile().build()));
  const transport = poolTo(sinkUrl);
  try {
    await transport.sendMail({ envelope: { from: 'bench@herald.test', to: [recipientOf(-1)] }, raw: raws[0] }); // opens the first connection
    const started = performance.now();
    const pool = await runPool(count, IN_FLIGHT, 120_000, (i) => transport.sendMail({ envelope: { from: 'bench@herald.test', to: [recipientOf(i)] }, raw: raws[i] }));
    return { messages_per_s: perSecond(pool.results.length, performance.now() - started), errors: count - pool.results.length };
  } finally {
    transport.close();
  }
}

/**
 * The relay's speed for messages given already built: `count` sends of `raws` in turn (message i
 * is raws[i % raws.length], to recipientOf(i)), IN_FLIGHT at a time over a pooled transport, after
 * one send that opens the first connection. Returns messages/s.
 */
/**
 * Pooled nodemailer sending prebuilt raw messages to the sink: the rate, and `cpu_ms_per_message`,
 * this process's CPU (user + system, every thread) per message meanwhile (the caller runs nothing else then).
 */
export async function measureRawSends(sinkUrl: string, raws: Buffer[], count: number, from: string): Promise<{ messages_per_s: number; errors: number; cpu_ms_per_message: number }> {
  const transport = poolTo(sinkUrl);
  try {
    await transport.sendMail({ envelope: { from, to: [recipientOf(-1)] }, raw: raws[0] });
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const pool = await runPool(count, IN_FLIGHT, 600_000, (i) => transport.sendMail({ envelope: { from, to: [recipientOf(i)] }, raw: raws[i % raws.length] }));
    const cpu = process.cpuUsage(cpuBefore);
    return {
      messages_per_s: perSecond(pool.results.length, performance.now() - started),
      errors: count - pool.results.length,
      cpu_ms_per_message: round((cpu.user + cpu.system) / 1000 / Math.max(1, pool.results.length), 3),
    };
  } finally {
    transport.close();
  }
}

export async function runNodemailerRaw(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const sink = await startCountingSink();
    teardown.defer('counting sink', () => sink.stop());
    const transport = poolTo(sink.url);
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
    log(`nodemailer-raw: the same messages composed beforehand, sent as raw MIME`);
    const prebuilt = await measurePrebuiltRaw(sink.url, MESSAGES);
    return {
      scenario: 'nodemailer-raw',
      messages_per_s: perSecond(pool.results.length, ms),
      messages: pool.results.length,
      errors: MESSAGES - pool.results.length,
      ...(pool.firstError ? { first_error: pool.firstError } : {}),
      sink_received: received,
      prebuilt_raw_messages_per_s: prebuilt.messages_per_s,
      prebuilt_raw_errors: prebuilt.errors,
      message_kb: round(Buffer.byteLength(sampleHtml(0)) / 1024),
      max_connections: MAX_CONNECTIONS,
      notes: `pooled nodemailer, MIME built per message, ${IN_FLIGHT} sendMail calls in flight; smtp-server sink that only counts, in a child process; ` +
        'prebuilt_raw = the same messages composed before the clock starts and sent as raw MIME (the relay\'s speed)',
    };
  } finally {
    await teardown.run();
  }
}
