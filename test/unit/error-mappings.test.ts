import { AppError, ErrorCode, errors } from '../../core/shared/errors';
import { HTTP_STATUS, httpErrors, httpHeadersOf, httpStatusOf } from '../../api/http-errors';
import { SMTP_REPLIES, smtpReplyFor } from '../../smtp/replies';

// The domain raises codes; each edge maps every code to its own answer. These are the answers
// clients have always had: a change here changes what they see.
const ANSWERS: Record<ErrorCode, { http: number; smtp: number }> = {
  [ErrorCode.BadRequest]: { http: 400, smtp: 554 },
  [ErrorCode.Validation]: { http: 400, smtp: 554 },
  [ErrorCode.Unauthorized]: { http: 401, smtp: 554 },
  [ErrorCode.Forbidden]: { http: 403, smtp: 550 },
  [ErrorCode.NotFound]: { http: 404, smtp: 554 },
  [ErrorCode.MethodNotAllowed]: { http: 405, smtp: 554 },
  [ErrorCode.Conflict]: { http: 409, smtp: 554 },
  [ErrorCode.UnsupportedMediaType]: { http: 415, smtp: 554 },
  [ErrorCode.PayloadTooLarge]: { http: 413, smtp: 554 },
  [ErrorCode.TooManyRequests]: { http: 429, smtp: 554 },
  [ErrorCode.Internal]: { http: 500, smtp: 451 },
  [ErrorCode.Unavailable]: { http: 503, smtp: 451 },
  [ErrorCode.AccountRequired]: { http: 409, smtp: 554 },
  [ErrorCode.PasswordExpired]: { http: 401, smtp: 554 },
  [ErrorCode.InvalidRequest]: { http: 400, smtp: 554 },
};

const replyOf = (error: unknown) => smtpReplyFor(error) as Error & { responseCode: number };

describe('the error codes at the edges', () => {
  it.each(Object.values(ErrorCode))('%s has an HTTP status and an SMTP reply', (code) => {
    const error = new AppError(code, 'why');
    expect(httpStatusOf(error)).toBe(ANSWERS[code].http);
    expect(replyOf(error).responseCode).toBe(ANSWERS[code].smtp);
  });

  it('maps every code, and nothing else', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual(Object.values(ErrorCode).sort());
    expect(Object.keys(SMTP_REPLIES).sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it('carries no protocol in the domain error', () => {
    const error = errors.tooManyRequests('slow down', 60);
    expect(error).not.toHaveProperty('status');
    expect(error.extra).toEqual({ retryAfterSeconds: 60 });
  });
});

describe('the HTTP headers of an error', () => {
  it('names the allowed methods of a method not allowed', () => {
    const error = httpErrors.methodNotAllowed(['GET', 'POST']);
    expect([httpStatusOf(error), error.code, error.message]).toEqual([405, ErrorCode.MethodNotAllowed, 'Method not allowed here; allowed: GET, POST']);
    expect(httpHeadersOf(error)).toEqual({ Allow: 'GET, POST' });
    expect(httpHeadersOf(httpErrors.methodNotAllowed([]))).toEqual({ Allow: '' });
    expect(httpErrors.methodNotAllowed([]).message).toBe('Method not allowed here; allowed: none');
  });

  it('says when to retry a limit that resets, and only then', () => {
    expect(httpHeadersOf(errors.tooManyRequests('slow down', 1800))).toEqual({ 'Retry-After': '1800' });
    expect(httpHeadersOf(errors.tooManyRequests('slow down'))).toEqual({});
    expect(httpHeadersOf(errors.tooManyRequests('slow down', 0))).toEqual({});
    expect(httpHeadersOf(errors.unavailable())).toEqual({});
  });

  it('states a body limit as people write it', () => {
    expect(httpErrors.payloadTooLarge(10 * 1024 * 1024).message).toBe('Request body exceeds the limit of 10MB');
    expect(httpErrors.payloadTooLarge(64 * 1024).message).toBe('Request body exceeds the limit of 64KB');
    expect(httpErrors.payloadTooLarge(1000).message).toBe('Request body exceeds the limit of 1000 bytes');
  });
});

describe('the SMTP text of an error', () => {
  it('refuses with the reason for the policy and the client\'s mistakes, retries with it for a temporary limit, hides a fault', () => {
    expect(replyOf(errors.forbidden('Sender not allowed'))).toMatchObject({ responseCode: 550, message: 'Message refused: Sender not allowed' });
    expect(replyOf(errors.validation({}))).toMatchObject({ responseCode: 554, message: 'Message refused: Some fields have invalid values' });
    expect(replyOf(errors.unavailable('MONTHLY limit of 2 messages reached'))).toMatchObject({ responseCode: 451, message: 'MONTHLY limit of 2 messages reached' });
    expect(replyOf(errors.internal())).toMatchObject({ responseCode: 451, message: 'Temporary failure, please retry' });
  });
});
