// The relays a worker sends through, as one sender: each message goes to the first relay, in the
// relays file's order, whose conditions match it (./routes.ts) and that is up (./health.ts); when
// that relay itself fails (refused connection, TLS, AUTH, a timeout, a 421 for the session) it is
// marked down, its waiting messages are let go, and each goes to the next relay that matches. A
// relay's answer about one message (4xx or 5xx to its recipient or content, a refused sender) is
// that message's answer: it goes to no other relay. With every relay that may take it down, the
// first of them is tried anyway; when it fails too, the message fails with its error, which the
// send engine treats as the relay's trouble (the attempt is retried by Temporal).
import type { RelayDefinition, Stream } from './routes';
import { DEFAULT_MAX_CONNECTIONS, matches } from './routes';
import { DOWN_TIMES, RelayHealth, type DownTimes } from './health';
import { RelayPool } from './pool';
import { RateLimit } from './rate-limit';
import { dkimSigned } from './dkim-sign';
import { relayEnvelope } from './envelope';
import { smtpData } from './smtp-data';
import type { RelayMessage, RelaySender } from './transport';

/** What the router tells its owner (metrics, logs, the console): no URL, no credential. */
export interface RouterEvents {
  /** Messages' outcome at a relay (one, or `count` handed over together): sent, deferred (4xx about it), failed (5xx about it), or the relay's own trouble. */
  outcome?(relay: string, outcome: 'sent' | 'deferred' | 'failed' | 'trouble', count?: number): void;
  /** A relay went down or came back. */
  health?(relay: string, up: boolean, reason?: string): void;
}

/** A relay's share of its limits in this process (./shares: a limit holds across worker processes). */
export interface RelayShare { ratePerSecond?: number; maxConnections: number }

interface Member {
  definition: RelayDefinition;
  pool: RelayPool;
  health: RelayHealth;
  limit?: RateLimit;
  /** Postmark returns X-PM-Metadata-* headers with its bounce reports: the mail_id goes with each message. */
  postmark: boolean;
}

/** How long a relay may take before it counts as timed out (and is down): to connect, to greet, to answer a command. */
export interface RelayTimeouts { connectionMs: number; greetingMs: number; socketMs: number }

/** Connecting 10 s; the greeting 15 s (greet-delaying MTAs such as postscreen wait ~6 s); a command a minute. */
export const RELAY_TIMEOUTS: RelayTimeouts = { connectionMs: 10_000, greetingMs: 15_000, socketMs: 60_000 };

/** The router's timings: tests shorten them. */
export interface RouterTimings { downTimes?: DownTimes; timeouts?: RelayTimeouts }

/** An SMTP error that says the relay itself is unusable now, not that it refused this message. */
export function isRelayDown(error: unknown): boolean {
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  if (responseCode === 421) return true;
  return typeof code === 'string' && ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'ETLS', 'EAUTH', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EPROTOCOL'].includes(code);
}

/** A relay at Postmark (its SMTP hosts are under postmarkapp.com). */
export const isPostmark = (relayUrl: string) => /(^|\.)postmarkapp\.com$/i.test(new URL(relayUrl).hostname);

/**
 * The message with the header Postmark turns into its bounce and complaint webhooks' metadata
 * (`Metadata["herald-mail-id"]`), so core/bounces/postmark.ts finds the message. Added after DKIM
 * signing, which does not cover it; a mail_id is [A-Za-z0-9_-] only, so it cannot break the header.
 */
export function withPostmarkMetadata(mailId: string, message: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`X-PM-Metadata-herald-mail-id: ${mailId}\r\n`), message]);
}

const noRelay = (stream: Stream, recipient: string) => Object.assign(
  new Error(`no relay of the relays file takes this message (stream ${stream}, recipient ${recipient}): add one without conditions as the last`),
  { code: 'ENORELAY' },
);

export interface RelayRouter extends RelaySender {
  /** Changes a relay's limits in this process (its share of those the file sets). */
  share(relay: string, share: RelayShare): void;
  /** Each relay's name and whether it is up, in file order. */
  states(): Array<{ name: string; up: boolean }>;
}

export function createRelayRouter(relays: RelayDefinition[], events: RouterEvents = {}, timings: RouterTimings = {}): RelayRouter {
  const { downTimes = DOWN_TIMES, timeouts = RELAY_TIMEOUTS } = timings;
  const members: Member[] = relays.map((definition) => {
    const url = new URL(definition.url);
    const user = decodeURIComponent(url.username);
    const pool = new RelayPool({
      host: url.hostname,
      port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 25),
      secure: url.protocol === 'smtps:',
      connectionTimeout: timeouts.connectionMs,
      greetingTimeout: timeouts.greetingMs,
      socketTimeout: timeouts.socketMs,
    }, url.username ? { user, credentials: { user, pass: decodeURIComponent(url.password) } } : undefined, definition.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
    return {
      definition,
      pool,
      health: new RelayHealth(downTimes),
      limit: definition.ratePerSecond ? new RateLimit(definition.ratePerSecond) : undefined,
      postmark: isPostmark(definition.url),
    };
  });
  const byName = new Map(members.map((member) => [member.definition.name, member]));
  let closed = false;

  async function sendThrough(member: Member, message: RelayMessage, signed: Buffer): Promise<string> {
    await member.limit?.take();
    const data = member.postmark && message.route.mailId ? withPostmarkMetadata(message.route.mailId, signed) : signed;
    return member.pool.send(relayEnvelope(message.envelope), smtpData(data), message.route.stream !== 'campaign');
  }

  /** One relay's try: its answer, or its own trouble (the relay marked down); an answer about the message is thrown. */
  async function attempt(member: Member, message: RelayMessage, signed: Buffer): Promise<{ response: string; relay: string } | { trouble: unknown }> {
    const name = member.definition.name;
    try {
      const response = await sendThrough(member, message, signed);
      if (member.health.succeeded()) events.health?.(name, true);
      events.outcome?.(name, 'sent');
      return { response, relay: name };
    } catch (error) {
      if (closed) throw error;
      if (!isRelayDown(error)) {
        if (member.health.succeeded()) events.health?.(name, true); // it answered: it is up
        const code = (error as { responseCode?: unknown }).responseCode;
        events.outcome?.(name, typeof code === 'number' && code < 500 ? 'deferred' : 'failed');
        throw Object.assign(error as Error, { relay: name });
      }
      events.outcome?.(name, 'trouble');
      if (member.health.failed()) {
        events.health?.(name, false, (error as Error).message);
        // The messages queued for it would each wait for a connection to fail: they move on now.
        member.pool.failWaiting(Object.assign(new Error(`relay ${name} is down`), { code: 'ECONNECTION' }));
      }
      return { trouble: error };
    }
  }

  return {
    async sendMail(message) {
      if (closed) throw Object.assign(new Error('Connection pool was closed'), { code: 'ECONNECTION' });
      const { route } = message;
      const candidates = members.filter((member) => matches(member.definition, route));
      if (candidates.length === 0) throw noRelay(route.stream, route.recipient);
      // DKIM signs once, whichever relay takes it.
      const signed = message.dkim ? await dkimSigned(message.raw, message.dkim) : message.raw;
      // Each relay that may take it in turn, skipping those down (not yet due for a probe). When
      // every one is down, the first is tried all the same: with no relay to move to, each attempt
      // asks the relay itself (as with one relay), and it is back as soon as it answers.
      let trouble: unknown;
      let tried = false;
      for (const member of candidates) {
        if (!member.health.admit()) continue;
        tried = true;
        const sent = await attempt(member, message, signed);
        if ('response' in sent) return sent;
        trouble = sent.trouble;
      }
      if (!tried) {
        const sent = await attempt(candidates[0], message, signed);
        if ('response' in sent) return sent;
        trouble = sent.trouble;
      }
      throw trouble;
    },
    share(relay, share) {
      const member = byName.get(relay);
      if (!member) return;
      member.pool.resize(share.maxConnections);
      if (share.ratePerSecond !== undefined) member.limit?.setRate(share.ratePerSecond);
    },
    states: () => members.map((member) => ({ name: member.definition.name, up: member.health.up })),
    close() {
      closed = true;
      for (const member of members) {
        member.limit?.close();
        member.pool.close();
      }
    },
  };
}
