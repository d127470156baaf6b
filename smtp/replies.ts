import { toAppError } from '../core/faults';

/** An error smtp-server answers with the given reply code. */
export function smtpReply(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * The error model rendered for SMTP: the client's fault is a permanent 554 (retrying the same
 * message cannot help); an outage or an internal fault is a temporary 451 (the client keeps the
 * message and retries, so nothing accepted is lost).
 */
export function smtpReplyFor(caught: unknown): Error {
  const error = toAppError(caught);
  if (error.status >= 400 && error.status < 500) return smtpReply(554, `Message refused: ${error.message}`);
  return smtpReply(451, 'Temporary failure, please retry');
}
