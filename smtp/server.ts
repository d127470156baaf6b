import { SMTPServer, SMTPServerOptions } from 'smtp-server';
import type { Client } from '@temporalio/client';
import { findKey } from '../core/keys';
import type { Logger } from '../core/logger';
import type { Store } from '../core/store';
import { acceptSendRequest } from '../core/transactional/accept';
import type { SmtpSubmission } from '../core/transactional/request';

export interface SmtpDeps { store: Store; temporal: Client; taskQueue: string; logger: Logger }

/** The spec's 10MB limit for a transactional request applies to SMTP messages too. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

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
        if (!record) return callback(Object.assign(new Error('Invalid username or API key'), { responseCode: 535 }));
        callback(null, { user: record.account });
      } catch (error) {
        deps.logger.error({ err: error }, 'smtp auth failed');
        callback(Object.assign(new Error('Temporary authentication failure'), { responseCode: 454 }));
      }
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        if (stream.sizeExceeded) return callback(Object.assign(new Error('Message exceeds the 10MB limit'), { responseCode: 552 }));
        const account = String(session.user);
        const submission: SmtpSubmission = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('latin1'), // byte-exact round trip
        };
        try {
          const requestId = await acceptSendRequest(deps, { account, source: 'smtp', body: submission });
          deps.logger.info({ account, sendRequest: requestId, recipients: submission.rcptTo.length }, 'smtp message accepted');
          callback(null, `Queued as ${requestId}`);
        } catch (error) {
          deps.logger.error({ err: error }, 'smtp message could not be queued');
          callback(Object.assign(new Error('Temporary failure, please retry'), { responseCode: 451 }));
        }
      });
    },
  };
  return new SMTPServer(options);
}
