// The SMTP submission listener (the spec's "Transactional send (SMTP)"): AUTH LOGIN or PLAIN with
// the username `apikey` and a transactional key; a message goes through the same acceptance,
// gathering and sending as an HTTP send (core/transactional/submit.ts), one copy per envelope
// recipient. 250 only once the message is durably accepted; 451 (retry) when the store or
// Temporal cannot take it, so nothing the client was told is queued is ever lost.
// With a bounce domain it also takes bounce and complaint reports for that domain, without AUTH
// (smtp/reports.ts): AUTH is then asked for at RCPT TO, where the recipient says which it is.
import { createHash } from 'node:crypto';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { readAccountSettings, isAllowedSender, type AccountSettings } from '../core/accounts/settings';
import { isEmailAddress } from '../core/shared/email-address';
import { errors } from '../core/shared/errors';
import { findKey } from '../core/accounts/keys';
import type { Logger } from '../adapters/logger';
import type { AcceptDeps } from '../core/transactional/accept';
import { readSubmittedMessage } from '../core/transactional/smtp-message';
import { acceptOnce, enforceSendPolicy, senderNotAllowed } from '../core/transactional/submit';
import { AuthThrottle, DEFAULT_AUTH_THROTTLE, type AuthThrottleOptions } from './auth-throttle';
import { smtpReply, smtpReplyFor } from './replies';
import { createReportIntake } from './reports';

/** The spec's 10 MB request limit: advertised as SIZE, and a message past it is refused with 552. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** A report's transaction has one recipient; another one is answered 452 (RFC 5321: the client sends it in a later transaction). */
const ONE_REPORT_RECIPIENT = 'A report takes one recipient: send this one in a transaction of its own';
/** As many recipients as one HTTP request may have. */
export const MAX_RECIPIENTS = 1000;

export interface SmtpOptions {
  /** PEM key and certificate: STARTTLS is offered with them, and not at all without. */
  tls?: { key: Buffer; cert: Buffer };
  /** Refuse AUTH (and so any mail) on a connection that has not started TLS. Needs `tls`. */
  requireTls: boolean;
  /** Connections at once, all clients together; and from one client address. */
  maxClients: number;
  maxClientsPerAddress: number;
  /** A connection idle this long is closed. */
  socketTimeoutMs: number;
  /** On shutdown, sessions have this long to finish before they are told 421 and closed. */
  closeTimeoutMs: number;
  authThrottle: AuthThrottleOptions;
  /**
   * The domain of the messages' return paths (HERALD_BOUNCE_DOMAIN): mail to it is a bounce or
   * complaint report, taken without AUTH. Unset: no reports, and AUTH before MAIL FROM.
   */
  bounceDomain?: string;
}

export const DEFAULT_SMTP_OPTIONS: SmtpOptions = {
  requireTls: false, maxClients: 200, maxClientsPerAddress: 20, socketTimeoutMs: 60_000, closeTimeoutMs: 10_000, authThrottle: DEFAULT_AUTH_THROTTLE,
};

export interface SmtpDeps extends AcceptDeps { logger: Logger }

/**
 * How long the listener trusts an account's settings once read: a changed policy (sender domains,
 * attachments) applies to SMTP within this, and a client sending message after message costs one
 * store read a second instead of one per message.
 */
const SETTINGS_MAX_AGE_MS = 1000;

/** The account a session authenticated as (smtp-server keeps what onAuth gave as `user`). */
const accountOf = (session: SMTPServerSession) => String(session.user);

export function createSmtpServer(deps: SmtpDeps, given: Partial<SmtpOptions> = {}): SMTPServer {
  const options = { ...DEFAULT_SMTP_OPTIONS, ...given };
  if (options.requireTls && !options.tls) throw new Error('SMTP: refusing AUTH without TLS needs a TLS key and certificate');
  const throttle = new AuthThrottle(options.authThrottle);
  const perAddress = new Map<string, number>();
  // Sessions counted in perAddress: onClose also reports connections smtp-server refused at
  // maxClients before onConnect; only what onConnect counted is taken off its address's count.
  const counted = new WeakSet<SMTPServerSession>();
  const recentSettings = new Map<string, { read: Promise<AccountSettings | null>; at: number }>();
  const accountSettings = (account: string) => {
    const now = Date.now();
    const recent = recentSettings.get(account);
    if (recent && now - recent.at < SETTINGS_MAX_AGE_MS) return recent.read;
    if (recentSettings.size >= 10_000) recentSettings.clear(); // bounded: at worst each account is read again
    const read = readAccountSettings(deps.store, account);
    recentSettings.set(account, { read, at: now });
    read.catch(() => recentSettings.delete(account)); // a failed read is not remembered
    return read;
  };
  const { logger } = deps;
  const reports = options.bounceDomain ? createReportIntake({ store: deps.store, bounceDomain: options.bounceDomain, logger }) : undefined;
  /** A transaction is a report's when its first recipient is on the bounce domain. */
  const isReportTransaction = (session: SMTPServerSession) => {
    const first = session.envelope.rcptTo[0];
    return reports !== undefined && first !== undefined && reports.isReportAddress(first.address);
  };

  const server: SMTPServerOptions = {
    name: 'herald',
    banner: 'ESMTP Herald',
    size: MAX_MESSAGE_BYTES,
    authMethods: ['LOGIN', 'PLAIN'],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    allowInsecureAuth: !options.requireTls,
    maxClients: options.maxClients,
    socketTimeout: options.socketTimeoutMs,
    closeTimeout: options.closeTimeoutMs,
    logger: false,
    // Reports come without AUTH: submission's AUTH is then required at RCPT TO (onRcptTo).
    authOptional: reports !== undefined,

    onConnect(session, callback) {
      const count = (perAddress.get(session.remoteAddress) ?? 0) + 1;
      perAddress.set(session.remoteAddress, count);
      counted.add(session);
      if (count > options.maxClientsPerAddress) return callback(smtpReply(421, `Too many connections from your address (at most ${options.maxClientsPerAddress}), try again later`));
      callback();
    },

    onClose(session) {
      if (!counted.delete(session)) return;
      const count = (perAddress.get(session.remoteAddress) ?? 1) - 1;
      if (count > 0) perAddress.set(session.remoteAddress, count);
      else perAddress.delete(session.remoteAddress);
    },

    onAuth(auth, session, callback) {
      const peer = session.remoteAddress;
      if (throttle.lockedUntil(peer) !== undefined) {
        logger.warn({ peer }, 'smtp login refused: too many failed logins from this address');
        return callback(smtpReply(454, 'Too many failed logins from your address, try again later'));
      }
      const answer = (error: Error | null, user?: string) => setTimeout(() => callback(error, user === undefined ? undefined : { user }), error ? throttle.delayFor(peer) : 0);
      const verify = async () => (auth.username === 'apikey' && auth.password ? findKey(deps.store, auth.password, 'transactional') : null);
      verify().then((record) => {
        if (!record) {
          throttle.failed(peer);
          logger.warn({ peer }, 'smtp login failed');
          return answer(smtpReply(535, 'Invalid username or API key (the username is apikey, the password a transactional key)'));
        }
        throttle.succeeded(peer);
        answer(null, record.account);
      }, (error: unknown) => {
        logger.error({ err: error }, 'smtp login could not be checked');
        answer(smtpReply(454, 'Temporary authentication failure, try again later'));
      });
    },

    onMailFrom(address, session, callback) {
      // Not logged in: only a report can follow (RCPT TO decides), from any sender, `<>` included.
      if (!session.user) return callback();
      if (!isEmailAddress(address.address)) return callback(smtpReply(553, 'The sender must be a valid email address'));
      accountSettings(accountOf(session)).then((settings) => {
        if (!settings) return callback(smtpReply(535, 'This key\'s account no longer exists'));
        if (!isAllowedSender(settings, address.address)) return callback(smtpReply(553, senderNotAllowed(settings).message));
        callback();
      }, (error: unknown) => callback(smtpReplyFor(error)));
    },

    onRcptTo(address, session, callback) {
      if (reports?.isReportAddress(address.address)) {
        if (session.envelope.rcptTo.length > 0) return callback(smtpReply(452, ONE_REPORT_RECIPIENT));
        return void reports.checkRecipient(address.address).then(() => callback(), callback);
      }
      if (!session.user) return callback(smtpReply(530, 'Authentication required: log in with the username apikey and a transactional key'));
      if (isReportTransaction(session)) return callback(smtpReply(452, ONE_REPORT_RECIPIENT));
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpReply(452, `Too many recipients (at most ${MAX_RECIPIENTS} per message)`));
      if (!isEmailAddress(address.address)) return callback(smtpReply(553, 'The recipient must be a valid email address'));
      callback();
    },

    onData(stream, session, callback) {
      // Kept up to the limit; past it the message is refused at once, and the rest is read off
      // the socket (smtp-server drains it) without being kept.
      const chunks: Buffer[] = [];
      let bytes = 0;
      let refused = false;
      stream.on('data', (chunk: Buffer) => {
        if (refused) return;
        bytes += chunk.length;
        if (bytes > MAX_MESSAGE_BYTES) {
          refused = true;
          chunks.length = 0;
          callback(smtpReply(552, `Message exceeds the ${MAX_MESSAGE_BYTES} byte limit`));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('end', () => {
        if (refused) return;
        const raw = Buffer.concat(chunks);
        const first = session.envelope.rcptTo[0].address;
        (reports && isReportTransaction(session) ? reports.take(raw, first) : submit(raw, session)).then(
          (reply) => callback(null, reply),
          (error: unknown) => {
            const reply = smtpReplyFor(error);
            if ((reply as { responseCode?: number }).responseCode === 451) logger.error({ err: error }, 'smtp message could not be queued or report recorded');
            callback(reply);
          },
        );
      });
    },
  };

  /** Reads the message, applies the account's policy, accepts it: the 250 text. */
  async function submit(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const account = accountOf(session);
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const rcptTo = session.envelope.rcptTo.map((r) => r.address);
    const { message, idempotencyKey } = await readSubmittedMessage(raw, mailFrom);
    const settings = await accountSettings(account);
    if (!settings) throw errors.unauthorized('This key\'s account no longer exists');
    enforceSendPolicy(settings, account, { from: message.from.email, hasAttachments: message.attachments !== undefined });
    // A retry is the same message to the same recipients: its bytes and envelope.
    const fingerprint = () => createHash('sha256').update(JSON.stringify([mailFrom, rcptTo])).update(raw).digest('hex');
    const { accepted, replayed } = await acceptOnce(
      deps, { account, source: 'smtp', submission: { mailFrom, rcptTo, message } }, settings,
      idempotencyKey ? { key: idempotencyKey, fingerprint: fingerprint() } : undefined,
    );
    if (!replayed) logger.info({ account, sendRequest: accepted.requestId, recipients: rcptTo.length }, 'smtp message accepted');
    return `OK queued as ${accepted.batchId}`;
  }

  return new SMTPServer(server);
}
