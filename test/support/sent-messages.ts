// Real messages sent through a test Herald (POST /v1/mail/send, one request, a message per
// address), awaited until each has its send-ledger row: what bounce and complaint reports are about.
import type { NewAccount } from '../../core/accounts/accounts';
import type { EventDoc } from '../../adapters/store/store';
import { batchEvents } from './events';
import type { TestHerald } from './herald';
import { callHerald } from './http';
import { ledgerCount, ledgerRows } from './ledger';

export interface SentMessage { mailId: string; messageId: string; email: string; sentEvent: EventDoc }

export async function sendMessages(herald: TestHerald, account: NewAccount, emails: string[]): Promise<Map<string, SentMessage>> {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${account.transactionalKey}` },
    json: { from: { email: 'shop@example.com' }, subject: 'Your order', content: { text: 'Thank you' }, recipients: emails.map((email) => ({ to: { email } })) },
  });
  if (answer.status !== 202) throw new Error(`send refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  const events = await batchEvents(herald.services.store, account.account, answer.headers.get('herald-batch-id')!, emails.length);
  const sent = new Map<string, SentMessage>();
  for (const event of events) {
    if (event.track_type !== 'track.mail.sent') throw new Error(`${event.email}: ${event.track_type}`);
    sent.set(event.email, { mailId: event.mail_id, messageId: '', email: event.email, sentEvent: event });
  }
  const ids = [...sent.values()].map((m) => m.mailId);
  for (const deadline = Date.now() + 10_000; (await ledgerCount(herald.services.store, { _id: { $in: ids } })) < ids.length;) {
    if (Date.now() > deadline) throw new Error('the ledger rows were not written');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const row of await ledgerRows(herald.services.store, { _id: { $in: ids } })) sent.get(row.email)!.messageId = row.messageId;
  return sent;
}
