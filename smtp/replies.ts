import { toAppError } from '../core/shared/faults';

/** An error smtp-server answers with the given reply code. */
export function smtpReply(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * The error model rendered for SMTP. The account's policy (403) is 550 and anything else the
 * client got wrong 554: permanent, retrying the same message cannot help. An outage or a limit
 * (503, the monthly limit included) is a temporary 451, with its reason: the client keeps the
 * message and retries, so nothing accepted is lost. An internal fault is 451 too, without detail.
 */
export function smtpReplyFor(caught: unknown): Error {
  const error = toAppError(caught);
  if (error.status === 403) return smtpReply(550, `Message refused: ${error.message}`);
  if (error.status >= 400 && error.status < 500) return smtpReply(554, `Message refused: ${error.message}`);
  if (error.status === 503) return smtpReply(451, `${error.message}`);
  return smtpReply(451, 'Temporary failure, please retry');
}
