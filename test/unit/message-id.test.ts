// The host of Herald's Message-IDs (core/sending/plan.ts messageIdHost): the MTA host it was given,
// unless that is a local name (npm start's default is localhost), then the sender's domain.
import { messageIdHost, messageIdOf } from '../../core/sending/plan';
import { mailIdOfMessageId } from '../../core/bounces/return-path';

it.each([
  ['mail.example.com', 'news@shop.example', 'mail.example.com'],
  ['herald.test', 'news@shop.example', 'herald.test'],
  ['localhost', 'news@Shop.Example', 'shop.example'],
  ['herald', 'news@shop.example', 'shop.example'],
  ['box.localdomain', 'news@shop.example', 'shop.example'],
  ['printer.local', 'news@shop.example', 'shop.example'],
  ['127.0.0.1', 'news@shop.example', 'shop.example'],
  ['::1', 'news@shop.example', 'shop.example'],
  ['localhost', 'postmaster@localhost', 'localhost'], // no better name to give
])('MTA host %s, sender %s: %s', (mtaHost, sender, host) => {
  expect(messageIdHost(mtaHost, sender)).toBe(host);
});

it('keeps the mail_id readable from the Message-ID whatever its host (the bounce path reads it back)', () => {
  const id = messageIdOf('mail_abc123', messageIdHost('localhost', 'news@shop.example'));
  expect(id).toBe('<mail_abc123@shop.example>');
  expect(mailIdOfMessageId(id)).toBe('mail_abc123');
});
