// The bounces API (POST /v2/{account}/bounces): a bounce or complaint the account learnt of
// elsewhere (a provider Herald has no webhook for, its own mailbox, a support ticket), recorded
// the way Herald records its own reports (recordFeedback), within the account only.
// - With a mail_id: that message of the account (another account's, or an unknown one, is 404),
//   whose recipient must be the email given.
// - Without: the account's latest message sent to the address, if any: the event goes against it.
//   When Herald never sent it anything, a hard bounce or a complaint still suppresses the address
//   and marks its contact (nothing to record an event against); a soft bounce records nothing.
// The same report posted twice records one event: a message gets at most one hard bounce, one soft
// bounce and one complaint through this API.
import type { Store } from '../../adapters/store/store';
import { normaliseEmail } from '../accounts/users';
import { errors, fieldError } from '../shared/errors';
import { recordAddressFeedback, recordFeedback } from './intake';
import type { ReportOutcome } from './outcome';
import { countFeedback, outcomeLabel } from './provider-intake';
import { providerMessage } from './provider-event';

export const REPORTED_TYPES = ['hard', 'soft', 'complaint'] as const;
export type ReportedType = (typeof REPORTED_TYPES)[number];

export interface ReportedBounce { email: string; type: ReportedType; message?: string; mail_id?: string }

export interface ReportedBounceResult {
  email: string;
  type: ReportedType;
  /** The message it was recorded against; null when the account never sent the address anything. */
  mail_id: string | null;
  /** `event`: recorded against the message; `suppression`: no message, the address suppressed; `nothing`: a soft bounce without a message. */
  recorded: 'event' | 'suppression' | 'nothing';
}

const DEFAULT_MESSAGE = 'Reported through the bounces API';

export async function reportBounce(store: Store, account: string, input: ReportedBounce): Promise<ReportedBounceResult> {
  const email = normaliseEmail(input.email);
  const mailId = input.mail_id ? await ownMessage(store, account, input.mail_id, email) : await latestMessage(store, account, input.email.trim(), email);
  if (!mailId) {
    const recorded = input.type === 'soft' ? 'nothing' : 'suppression';
    if (input.type !== 'soft') await recordAddressFeedback(store, account, email, input.type);
    countFeedback('api', input.type === 'soft' ? 'ignored' : input.type);
    return { email, type: input.type, mail_id: null, recorded };
  }
  const outcome: ReportOutcome = input.type === 'complaint'
    ? { kind: 'complaint' }
    : { kind: 'bounce', bounceType: input.type, message: providerMessage(input.message) || DEFAULT_MESSAGE };
  const result = await recordFeedback(store, mailId, () => outcome, `api:${input.type}`);
  countFeedback('api', outcomeLabel(result));
  return { email, type: input.type, mail_id: mailId, recorded: result.recorded === 'nothing' ? 'nothing' : 'event' };
}

/** The mail_id given, once it is the account's message to that address and was sent. */
async function ownMessage(store: Store, account: string, mailId: string, email: string): Promise<string> {
  const row = await store.ledger.findOne({ _outcome_of: mailId, account }, { projection: { _id: 0, email: 1, _ledger: 1 } });
  if (!row) throw errors.notFound(`No message ${mailId.slice(0, 40)} in this account`);
  if (normaliseEmail(row.email) !== email) throw errors.validation({ email: fieldError('invalid_value', `Not the recipient of ${mailId}`) });
  const { status } = row._ledger;
  if (status !== 'sent') throw errors.validation({ mail_id: fieldError('invalid_value', `The message was not sent (${status}): there is nothing to bounce`) });
  return mailId;
}

/** The ledger keeps the address as the send wrote it: looked up as given and in lowercase. */
async function latestMessage(store: Store, account: string, given: string, email: string): Promise<string | undefined> {
  const [row] = await store.ledger.find({ account, email: { $in: [...new Set([given, email])] }, '_ledger.status': 'sent' }, { projection: { _id: 0, _outcome_of: 1 } })
    .sort({ '_ledger.sentAt': -1 }).limit(1).toArray();
  return row?._outcome_of;
}
