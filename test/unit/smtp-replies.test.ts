import { ServiceError } from '@temporalio/client';
import { MongoNetworkError } from 'mongodb';
import { errors } from '../../core/shared/errors';
import { smtpReplyFor } from '../../smtp/replies';

const code = (error: unknown) => (smtpReplyFor(error) as Error & { responseCode: number }).responseCode;

describe('the error model rendered for SMTP', () => {
  it('answers 451 (retry later) for an outage of the store or Temporal, and for a fault', () => {
    expect(code(new MongoNetworkError('down'))).toBe(451);
    expect(code(new ServiceError('down'))).toBe(451);
    expect(code(new Error('bug'))).toBe(451);
    expect(smtpReplyFor(new Error('secret internals')).message).not.toContain('secret');
  });

  it('answers 554 with the reason for a message refused as the client\'s fault', () => {
    const reply = smtpReplyFor(errors.badRequest('The request contains a value that cannot be stored'));
    expect(reply).toMatchObject({ responseCode: 554, message: expect.stringContaining('cannot be stored') });
  });
});
