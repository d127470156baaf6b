// What HTTP and SMTP do with a send between reading it and answering: the account's policy, then
// acceptance at most once per Idempotency-Key. The HTTP route (api/transactional/router.ts) and
// the SMTP listener (smtp/server.ts) both go through here, so a send is judged the same whichever
// way it came.
import { isAllowedSender, type AccountSettings } from '../accounts/settings';
import { errors } from '../shared/errors';
import { acceptSendRequest, type AcceptDeps, type AcceptedIds } from './accept';
import { claimKey } from './idempotency';
import type { AcceptedRequest } from './request';

/** The account's policy (core/accounts/settings.ts): forbidden when the send breaks it. */
export function enforceSendPolicy(settings: AccountSettings, account: string, send: { from: string; hasAttachments: boolean }): void {
  if (!isAllowedSender(settings, send.from)) throw senderNotAllowed(settings);
  if (send.hasAttachments && !settings.attachments) {
    throw errors.forbidden(`attachments are not enabled for this account; an operator enables them with npx herald account set ${account} --attachments on`);
  }
}

export function senderNotAllowed(settings: AccountSettings) {
  return errors.forbidden(`origin address not allowed: this account sends only from ${settings.senderDomains.join(', ')}`);
}

/** An Idempotency-Key and what identifies the request it came with (a retry must be the same request). */
export interface Idempotency { key: string; fingerprint: string }

/**
 * Accepts the request, or, for a retry with the Idempotency-Key of an accepted request, gives
 * that request's answer and starts nothing (`replayed`). The monthly limit is counted (and given
 * back on failure) in acceptSendRequest.
 */
export async function acceptOnce(
  deps: AcceptDeps, request: AcceptedRequest, settings: AccountSettings, idempotency?: Idempotency,
): Promise<{ accepted: AcceptedIds; replayed: boolean }> {
  const claim = idempotency ? await claimKey(deps.store, request.account, idempotency.key, idempotency.fingerprint) : undefined;
  if (claim?.replay) return { accepted: claim.replay, replayed: true };
  let accepted: AcceptedIds;
  try {
    accepted = await acceptSendRequest(deps, request, settings);
  } catch (error) {
    await claim?.release().catch(() => undefined);
    throw error;
  }
  await claim?.settle(accepted);
  return { accepted, replayed: false };
}
