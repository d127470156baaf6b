import { SMTPServer, SMTPServerOptions } from 'smtp-server';
import { findKey } from '../core/keys';
import type { Logger } from '../core/logger';
import { acceptSendRequest, type AcceptDeps } from '../core/transactional/accept';
import type { SmtpSubmission } from '../core/transactional/request';
import { smtpReply, smtpReplyFor } from './replies';

export interface SmtpDeps extends AcceptDeps { logger: Logger }

/** The spec's 10MB limit for a transactional request applies to SMTP messages too. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
/** As many recipients as one HTTP request may have. */
export const MAX_RECIPIENTS = 1000;

/**
 * The SMTP submission listener: AUTH LOGIN with username `apikey` and the transactional key
 * as password, no TLS (as the original service). Accepted messages are stored and handed to
 * the same workflow as HTTP sends; 250 only once Temporal has it, 451 when it can't.
 */
export function createSmtpServer(deps: SmtpDeps): SMTPServer {
  const options: SMTPServerOptions = {
    name: 'herald',
    banner: 'ESMTP Herald',
    size: MAX_MESSAGE_BYTES,
    authMethods: ['LOGIN', 'PLAIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    async onAuth(auth, _session, callback) {
      try {
        const record = auth.username === 'apikey' && auth.password ? await findKey(deps.store, auth.password, 'transactional') : null;
        if (!record) return callback(smtpReply(535, 'Invalid username or API key'));
        callback(null, { user: record.account });
      } catch (error) {
        deps.logger.error({ err: error }, 'smtp auth failed');
        callback(smtpReply(454, 'Temporary authentication failure'));
      }
    },
    onRcptTo(_address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(smtpReply(452, `Too many recipients (at most ${MAX_RECIPIENTS})`));
      callback();
    },
    onData(stream, session, callback) {
      // Keep at most the limit: past it the rest is read off the socket and dropped.
      const chunks: Buffer[] = [];
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= MAX_MESSAGE_BYTES) chunks.push(chunk);
      });
      stream.on('end', async () => {
        if (stream.sizeExceeded || bytes > MAX_MESSAGE_BYTES) return callback(smtpReply(552, 'Message exceeds the 10MB limit'));
        const account = String(session.user);
        const submission: SmtpSubmission = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        };
        try {
          const { requestId } = await acceptSendRequest(deps, { account, source: 'smtp', submission });
          deps.logger.info({ account, sendRequest: requestId, recipients: submission.rcptTo.length }, 'smtp message accepted');
          callback(null, `Queued as ${requestId}`);
        } catch (error) {
          deps.logger.error({ err: error }, 'smtp message could not be queued');
          callback(smtpReplyFor(error));
        }
      });
    },
  };
  return new SMTPServer(options);
}
