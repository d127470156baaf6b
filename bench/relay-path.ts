// The relay path alone: N sends of a campaign's ~21 KB messages (built beforehand by the campaign's
// own plan, as campaign-send's reference does) to the counting sink, 50 in flight over 5
// connections, through (a) pooled nodemailer `sendMail({envelope, raw})` configured as Herald's
// relay transport was before its lean path, (b) Herald's relay transport
// (adapters/relay/transport.ts), and (c) the same on its thread, as the worker runs it
// (adapters/relay/thread.ts). Each with the messages as Herald builds them (their HTML part has
// bare LF line ends, which go out as CRLF) and with the same messages already all CRLF.
// Figures: messages/s and the sending process's CPU ms per message (process.cpuUsage: every
// thread of this process; the sink is a process of its own).
import nodemailer from 'nodemailer';
import { createThreadedRelay } from '../adapters/relay/thread';
import { createRelayTransport, type MessageRoute } from '../adapters/relay/transport';
import { benchPlan } from './campaign-message';
import { snapshotRow } from './campaign-send';
import { startCountingSink } from './counting-sink';
import { recipientOf } from './mail';
import { perSecond, round } from './stats';
import { log, runPool, Teardown } from './support';

const MESSAGES = Number(process.env.HERALD_BENCH_RELAY_MESSAGES ?? 20_000);
const WARM_UP = 1_000;
const DISTINCT = 200;
const IN_FLIGHT = 50;
const FROM = 'news@herald.test';

interface Sender { sendMail(message: { envelope: { from: string; to: string[] }; raw: Buffer; route: MessageRoute }): Promise<unknown>; close(): unknown }

/** Herald's relay transport before the lean path: nodemailer's pool, Mailer and MailComposer for every raw message. */
function nodemailerPool(relayUrl: string): Sender {
  const url = new URL(relayUrl);
  return nodemailer.createTransport({
    pool: true, maxConnections: 5, maxMessages: Infinity, host: url.hostname, port: Number(url.port), secure: false,
    connectionTimeout: 10000, socketTimeout: 60000,
  });
}

/** The campaign's first DISTINCT messages as its plan builds them (no store: the campaign is a document made here). */
async function campaignMessages(): Promise<Buffer[]> {
  const plan = await benchPlan();
  return Array.from({ length: DISTINCT }, (_, seq) => plan.message(snapshotRow(seq)).raw());
}

/** `count` sends of `raws` in turn, IN_FLIGHT at a time, after WARM_UP sends that open the connections and warm the code. */
async function measure(sender: Sender, raws: Buffer[], count: number) {
  const send = (i: number) => sender.sendMail({
    envelope: { from: FROM, to: [recipientOf(i)] }, raw: raws[i % raws.length], route: { stream: 'campaign', account: 'bench', sender: FROM, recipient: recipientOf(i) },
  });
  await runPool(WARM_UP, IN_FLIGHT, 120_000, send);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const pool = await runPool(count, IN_FLIGHT, 600_000, send);
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  if (pool.errors > 0) log(`relay-path: ${pool.errors} errors, the first: ${pool.firstError}`);
  return {
    messages_per_s: perSecond(pool.results.length, ms),
    cpu_ms_per_message: round((user + system) / 1000 / count, 4),
    errors: pool.errors,
  };
}

export async function runRelayPath(): Promise<Record<string, unknown>> {
  const teardown = new Teardown();
  try {
    const sink = await startCountingSink();
    teardown.defer('counting sink', () => sink.stop());
    const asBuilt = await campaignMessages();
    const crlf = asBuilt.map((raw) => Buffer.from(raw.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1'));
    const paths: Record<string, (url: string) => Sender> = { nodemailer: nodemailerPool, relay: createRelayTransport, relay_thread: (url) => createThreadedRelay([{ name: 'default', url }]) };
    const results: Record<string, unknown> = {};
    for (const [variant, raws] of [['crlf', crlf], ['as_built', asBuilt]] as const) {
      for (const [name, make] of Object.entries(paths)) {
        log(`relay-path: ${name}, ${variant} messages: ${MESSAGES} sends`);
        const sender = make(sink.url);
        try {
          results[`${name}_${variant}`] = await measure(sender, raws, MESSAGES);
        } finally {
          await sender.close();
        }
      }
    }
    return {
      scenario: 'relay-path',
      ...results,
      messages: MESSAGES,
      sink_received: await sink.count(),
      message_kb: round(asBuilt.reduce((sum, raw) => sum + raw.length, 0) / asBuilt.length / 1024),
      notes: `${MESSAGES} sends (after ${WARM_UP} to warm up) of ${DISTINCT} distinct campaign messages, ${IN_FLIGHT} in flight, 5 connections, to a counting sink ` +
        'in a child process; nodemailer = pooled nodemailer sendMail({envelope, raw}) as the relay transport was, relay = adapters/relay/transport.ts, ' +
        'relay_thread = the same on its thread (adapters/relay/thread.ts), messages crossing to it; ' +
        'as_built = the messages as Herald builds them (bare LF in the HTML part), crlf = the same with CRLF line ends; cpu = this process, every thread (user + system)',
    };
  } finally {
    await teardown.run();
  }
}
