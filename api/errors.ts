// Errors the HTTP interfaces answer with. Domain code throws these; one renderer per
// interface turns them into that interface's body shape, and nothing else leaks out.

export type TransactionalErrorType =
  | 'bad_request' | 'validation_error' | 'unauthorized' | 'forbidden' | 'internal_server_error' | 'service_unavailable';

export type ValidationCode = 'required' | 'required_at_least_one' | 'max_length_exceeded' | 'too_many_items' | 'invalid_value';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly type: TransactionalErrorType,
    message: string,
    readonly errors?: Record<string, ValidationCode>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const httpErrors = {
  badRequest: (message: string) => new HttpError(400, 'bad_request', message),
  validation: (errors: Record<string, ValidationCode>) =>
    new HttpError(400, 'validation_error', 'Some fields have invalid values', errors),
  unauthorized: (message = 'API key invalid or missing') => new HttpError(401, 'unauthorized', message),
  forbidden: (message: string) => new HttpError(403, 'forbidden', message),
  unavailable: (message = 'Service temporarily unavailable, please retry') => new HttpError(503, 'service_unavailable', message),
  internal: () => new HttpError(500, 'internal_server_error', 'Unexpected server error'),
};
