// The activity of the bounce mailbox reader: one batch of the IMAP mailbox the relays file names
// (feedback.mailbox), read by core/bounces/mailbox.ts. The settings come from the worker's
// configuration, never from the workflow (the URL holds the password). A login the server refuses
// or a folder it does not have fails without retries (the operator must change the settings; the
// schedule tries again at its next time); a connection that failed is retried.
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import type { Logger } from '../adapters/logger';
import type { Store } from '../adapters/store/store';
import { imapMailboxClient } from '../adapters/imap/imap-client';
import { MailboxError, type MailboxClient } from '../adapters/imap/mailbox-port';
import type { BounceMailboxSettings } from '../core/bounces/feedback-settings';
import { mailboxTarget, readBounceMailbox, type MailboxLog, type MailboxReadResult } from '../core/bounces/mailbox';
import { defaultBounceDomain } from '../core/bounces/return-path';

export interface BounceMailboxActivityDeps {
  store: Store;
  mtaHost: string;
  bounceDomain?: string;
  /** The relays file's feedback.mailbox; unset, there is no mailbox to read. */
  bounceMailbox?: BounceMailboxSettings;
  /** How the mailbox is reached: IMAP over TLS by default (tests give theirs the CA of their server). */
  mailboxClient?: MailboxClient;
  /** Herald's logger; the activity's own (Temporal's) when not given. */
  logger?: Logger;
}

/** What one read did; `configured: false` when this worker has no mailbox setting (it read nothing). */
export type BounceMailboxReadResult = MailboxReadResult & { configured: boolean };

/** Heartbeats on a timer too: one IMAP command may take a while on a slow server. */
const HEARTBEAT_EVERY_MS = 2000;

export function createBounceMailboxActivities(deps: BounceMailboxActivityDeps) {
  const client = deps.mailboxClient ?? imapMailboxClient();
  const bounceDomain = deps.bounceDomain ?? defaultBounceDomain(deps.mtaHost);

  return {
    /** Reads one batch (up to 500 messages) of the bounce mailbox; see core/bounces/mailbox.ts. */
    async readBounceMailbox(): Promise<BounceMailboxReadResult> {
      const context = Context.current();
      const log: MailboxLog = deps.logger ?? {
        info: (fields, message) => context.log.info(message, { ...fields }),
        warn: (fields, message) => context.log.warn(message, { ...fields }),
        error: (fields, message) => context.log.error(message, { ...fields }),
      };
      if (!deps.bounceMailbox) {
        log.warn({}, 'bounce mailbox: this worker has no feedback.mailbox setting, nothing read');
        return { configured: false, bounces: 0, complaints: 0, nothing: 0, unreadable: 0, more: false };
      }
      const beat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        const result = await readBounceMailbox({
          store: deps.store, bounceDomain, client, log, heartbeat: () => context.heartbeat(), stopped: () => context.cancellationSignal.aborted,
        }, mailboxTarget(deps.bounceMailbox));
        if (context.cancellationSignal.aborted) throw new CancelledFailure('bounce mailbox read stopped');
        return { configured: true, ...result };
      } catch (error) {
        if (error instanceof MailboxError && error.kind !== 'connection') throw ApplicationFailure.nonRetryable(error.message, `BounceMailbox${error.kind === 'login' ? 'Login' : 'Folder'}`);
        throw error;
      } finally {
        clearInterval(beat);
      }
    },
  };
}
