import { type AppError, ErrorCode } from '../core/shared/errors';
import { toAppError } from '../core/shared/faults';

/** An error smtp-server answers with the given reply code. */
export function smtpReply(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** How SMTP answers one kind of error: a reply code and the text shown with it. */
export interface SmtpReplyRule { code: number; text: (error: AppError) => string }

/** Permanent, the account's policy: retrying the same message cannot help. */
const POLICY: SmtpReplyRule = { code: 550, text: (error) => `Message refused: ${error.message}` };
/** Permanent, anything else the client got wrong. */
const REFUSED: SmtpReplyRule = { code: 554, text: (error) => `Message refused: ${error.message}` };
/** Temporary, with its reason (an outage, a concurrent change, the monthly quota): the client keeps the message and retries, so nothing accepted is lost. */
const TEMPORARY: SmtpReplyRule = { code: 451, text: (error) => error.message };
/** Temporary too, and without detail: an internal fault's text stays in the logs. */
const FAULT: SmtpReplyRule = { code: 451, text: () => 'Temporary failure, please retry' };

/** The error model rendered for SMTP: the reply of each error code. */
export const SMTP_REPLIES: Record<ErrorCode, SmtpReplyRule> = {
  [ErrorCode.Forbidden]: POLICY,
  [ErrorCode.BadRequest]: REFUSED,
  [ErrorCode.Validation]: REFUSED,
  [ErrorCode.Unauthorized]: REFUSED,
  [ErrorCode.NotFound]: REFUSED,
  [ErrorCode.MethodNotAllowed]: REFUSED,
  [ErrorCode.Conflict]: REFUSED,
  [ErrorCode.UnsupportedMediaType]: REFUSED,
  [ErrorCode.PayloadTooLarge]: REFUSED,
  [ErrorCode.TooManyRequests]: REFUSED,
  [ErrorCode.AccountRequired]: REFUSED,
  [ErrorCode.PasswordExpired]: REFUSED,
  [ErrorCode.InvalidRequest]: REFUSED,
  [ErrorCode.Unavailable]: TEMPORARY,
  [ErrorCode.Internal]: FAULT,
};

/** Anything thrown while taking a message, as the SMTP reply that answers it. */
export function smtpReplyFor(caught: unknown): Error {
  const error = toAppError(caught);
  const rule = SMTP_REPLIES[error.code];
  return smtpReply(rule.code, rule.text(error));
}
