import { ALLOWED_HEADERS, isAllowedCustomHeader } from '../../core/transactional/headers';

const cases = (name: string) => [name, name.toLowerCase(), name.toUpperCase()];

// Address, MIME, routing, signature and identity headers: each would let a client change who
// receives a message or how it is read.
const REFUSED = [
  'Bcc', 'Cc', 'To', 'From', 'Sender', 'Reply-To', 'Return-Path', 'Subject', 'Date', 'Message-ID',
  'Content-Type', 'Content-Transfer-Encoding', 'Content-Disposition', 'MIME-Version', 'DKIM-Signature',
  'ARC-Seal', 'Received', 'Resent-To', 'Resent-Bcc', 'Disposition-Notification-To', 'List-Unsubscribe',
  'List-Unsubscribe-Post', 'Authentication-Results', 'X-', 'X-Bad\r\nBcc', 'X-Bad Name', 'X-Bad:Name', '',
];

describe('client-supplied header names', () => {
  it.each(REFUSED.flatMap(cases))('refuses %j', (name) => {
    expect(isAllowedCustomHeader(name)).toBe(false);
  });

  it.each([...ALLOWED_HEADERS, 'X-Order', 'X-Mailer'].flatMap(cases))('allows %j', (name) => {
    expect(isAllowedCustomHeader(name)).toBe(true);
  });
});
