import { AppError, errors } from './errors';
import { storeFaultKind } from '../../adapters/store/store';
import { isTemporalFault } from '../../adapters/temporal/client';

/**
 * Turns anything thrown while serving a request into the error model. Only AppErrors carry
 * their own text to clients: an outage of the store or Temporal is "unavailable" (temporary:
 * the client retries), a value the store refused to encode is the client's error (a bad
 * request), and everything else is an internal fault whose details stay in the logs.
 */
export function toAppError(caught: unknown): AppError {
  if (caught instanceof AppError) return caught;
  switch (storeFaultKind(caught)) {
    case 'unstorable': return errors.badRequest('The request contains a value that cannot be stored');
    case 'outage': return errors.unavailable('The data store is unavailable, please retry');
    default: break;
  }
  if (isTemporalFault(caught)) return errors.unavailable('The workflow service is unavailable, please retry');
  return errors.internal();
}
