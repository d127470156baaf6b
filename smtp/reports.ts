// The SMTP listener's side of bounce and complaint reports: mail to the bounce domain comes from
// other MTAs, without AUTH and often from the null sender `<>` (RFC 3464 DSNs, RFC 5965 feedback
// reports). RCPT TO decides: a message's return path whose signature holds, or one of the fixed
// report mailboxes (fbl@, abuse@, postmaster@), is taken; any other address of the bounce domain
// is refused with 550. A report transaction has exactly one recipient, so a report is recorded
// once; a second recipient (of any kind) is answered 452, which tells the client to send it in a
// transaction of its own (RFC 5321 4.5.3.1.10). What the report says is stored before the 250.
import type { Logger } from '../adapters/logger';
import { takeReport, type ReportDeps } from '../core/bounces/intake';
import { isOnBounceDomain, readBounceAddress, REPORT_MAILBOXES, type BounceAddress } from '../core/bounces/return-path';
import { trackingSecret } from '../core/content/tracking/secret';
import { smtpReply, smtpReplyFor } from './replies';

export interface ReportIntake {
  /** Whether mail to this address is a report (an address of the bounce domain). */
  isReportAddress(address: string): boolean;
  /** Resolves when RCPT TO this report address is taken; rejects with the SMTP reply otherwise (550, or 451 with the store down). */
  checkRecipient(address: string): Promise<void>;
  /** Records the report sent to `address`; resolves with the 250 text. */
  take(raw: Buffer, address: string): Promise<string>;
}

type Taken = Exclude<BounceAddress, { kind: 'forged' }>;

export function createReportIntake(deps: ReportDeps & { logger: Logger }): ReportIntake {
  const { bounceDomain, logger, store } = deps;

  async function addressOf(address: string): Promise<Taken> {
    const local = address.slice(0, address.lastIndexOf('@')).toLowerCase();
    // The fixed mailboxes need no key: they are taken even before the store has answered once.
    const read = REPORT_MAILBOXES.includes(local) ? { kind: 'mailbox' as const, name: local } : readBounceAddress(address, await trackingSecret(store), bounceDomain);
    if (!read || read.kind === 'forged') throw smtpReply(550, `No such return path or mailbox at ${bounceDomain}`);
    return read;
  }

  return {
    isReportAddress: (address) => isOnBounceDomain(address, bounceDomain),
    checkRecipient: (address) => addressOf(address).then(() => undefined, (error: unknown) => {
      throw typeof (error as { responseCode?: unknown }).responseCode === 'number' ? error : smtpReplyFor(error);
    }),
    async take(raw, address) {
      const result = await takeReport(deps, raw, await addressOf(address));
      if (result.recorded === 'nothing') {
        logger.info({ to: result.mailId ? 'return path' : 'report mailbox', account: result.account, mailId: result.mailId, why: result.why }, 'report taken: nothing to record');
        return 'OK report taken, nothing to record';
      }
      logger.info({ account: result.account, mailId: result.mailId, recorded: result.recorded, ...(result.recorded === 'bounce' ? { bounceType: result.bounceType } : {}) }, 'report recorded');
      return `OK ${result.recorded === 'bounce' ? `${result.bounceType} bounce` : 'complaint'} recorded`;
    },
  };
}
