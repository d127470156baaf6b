// A store request lost on its way (the store killed, the connection reset) is not known to be
// written, so nothing may be answered as written. The driver reports any failure of a bulk write
// (insertMany, bulkWrite), a lost connection too, as a MongoBulkWriteError without write errors;
// taken for "every statement written", it once answered 200 to a contact edit the store never saw
// (the 30-minute soak, around a store SIGKILL), and would have answered 202 to a send whose
// request was never kept. Here Herald reaches the suite's store through a TCP door that ends the
// connection carrying one chosen command before the store sees it, or after the store did it but
// before its answer comes back (a write done, not known to be: done again, it must count once).
import type http from 'node:http';
import { createAccount, type NewAccount } from '../../core/accounts/accounts';
import { trackingSecret } from '../../core/content/tracking/secret';
import { linkPart, linkSignature, messagePart, messageToken, type MessageRef } from '../../core/content/tracking/token';
import { mailIdOf } from '../../core/sending/plan';
import { buildEvent } from '../../core/tracking/events';
import { writeBatch } from '../../core/contacts/import/write';
import { newId } from '../../core/shared/ids';
import type { Herald } from '../../composition/herald';
import type { Store } from '../../adapters/store/store';
import { composeTestHerald, listenLocally } from '../support/herald';
import { openTcpDoor, type TcpDoor } from '../support/tcp-door';

const database = `herald_lost_${newId().slice(0, 8)}`;
let door: TcpDoor;
let herald: Herald;
let store: Store;
let server: http.Server;
let baseUrl: string;
let account: NewAccount;

/** The wire bytes of a command `name` on `collection` (OP_MSG: the command is the body's first field, a string). */
function command(name: string, collection: string): (data: Buffer) => boolean {
  const field = Buffer.concat([Buffer.from([0x02]), Buffer.from(`${name}\0`)]);
  const value = Buffer.from(`${collection}\0`);
  return (data) => {
    const at = data.indexOf(field);
    return at >= 0 && data.indexOf(value, at + field.length + 4) === at + field.length + 4;
  };
}

beforeAll(async () => {
  const target = new URL(process.env.MONGODB_URI!);
  door = await openTcpDoor(target.hostname, Number(target.port));
  // A task queue no worker polls: an accepted send would only wait there.
  herald = composeTestHerald({
    MONGODB_URI: `mongodb://127.0.0.1:${door.port}/?directConnection=true`, HERALD_MONGODB_DATABASE: database, HERALD_TASK_QUEUE: database,
  });
  store = await herald.store();
  server = await herald.apiServer();
  baseUrl = await listenLocally(server);
  account = await createAccount(store, 'lostacct');
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.db.dropDatabase();
  await herald.close();
  await door.close();
});

const call = (path: string, key: string, body: unknown) => fetch(`${baseUrl}${path}`, {
  method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
});

it('answers a contact edit 503 when its write is lost, leaving the contact as it was; sent again, it is kept', async () => {
  const list = await call('/v2/lostacct/lists', account.apiKey, { name: 'Readers' });
  expect(list.status).toBe(201);
  const listId = ((await list.json()) as { data: { id: number } }).data.id;
  expect((await call(`/v2/lostacct/lists/${listId}/contacts`, account.apiKey, { email: 'ann@example.com', firstName: 'Ann' })).status).toBe(200);

  const cut = door.cutAt(command('update', 'contacts'));
  const edit = await call(`/v2/lostacct/lists/${listId}/contacts`, account.apiKey, { email: 'ann@example.com', firstName: 'Edited' });
  await cut;
  expect(edit.status).toBe(503);
  expect(await edit.json()).toMatchObject({ error: { status: 503 } });
  expect(await store.contacts.findOne({ account: 'lostacct', email: 'ann@example.com' })).toMatchObject({ firstName: 'Ann' });

  const again = await call(`/v2/lostacct/lists/${listId}/contacts`, account.apiKey, { email: 'ann@example.com', firstName: 'Edited' });
  expect(again.status).toBe(200);
  expect(await again.json()).toMatchObject({ data: { firstName: 'Edited' } });
  expect(await store.contacts.findOne({ account: 'lostacct', email: 'ann@example.com' })).toMatchObject({ firstName: 'Edited' });
});

it('answers a send 503 when the write of its request is lost, and queues nothing', async () => {
  const cut = door.cutAt(command('insert', 'sendRequests'));
  const send = await call('/v1/mail/send', account.transactionalKey, {
    from: { email: 'a@example.com' }, subject: 's', content: { text: 't' }, recipients: [{ to: { email: 'b@example.net' } }],
  });
  await cut;
  expect(send.status).toBe(503);
  expect(await store.sendRequests.countDocuments({ account: 'lostacct' })).toBe(0);
  expect(await store.sendQueue.countDocuments({ account: 'lostacct' })).toBe(0);
});

it('fails an import batch whose insert is lost, instead of counting its rows created', async () => {
  const rows = ['cy@example.com', 'dee@example.com'].map((email, i) => ({ line: i + 2, email, values: {}, customFields: {}, interests: [] }));
  const target = { account: 'lostacct', list: null, interests: [], mode: 'OVERWRITE' as const };
  const cut = door.cutAt(command('insert', 'contacts'));
  await expect(writeBatch(store, target, rows, 1000)).rejects.toThrow();
  await cut;
  expect(await store.contacts.countDocuments({ account: 'lostacct', email: { $in: ['cy@example.com', 'dee@example.com'] } })).toBe(0);

  expect(await writeBatch(store, target, rows, 1000)).toEqual({ created: 2, updated: 0, ignored: 0 });
});

describe('a tracking hit whose write is done but not answered', () => {
  const link = { linkId: 1, target: 'https://shop.example/sale?utm_source=mail', url: 'https://shop.example/sale', interests: [] };
  let request: { _id: string; batchId: string };

  beforeAll(async () => {
    const send = await call('/v1/mail/send', account.transactionalKey, {
      from: { email: 'a@example.com' }, subject: 's', content: { text: 't' }, recipients: [{ to: { email: 'sent@example.net' } }, { to: { email: 'unrecorded@example.net' } }],
    });
    expect(send.status).toBe(202);
    request = (await store.sendRequests.findOne({ account: 'lostacct', batchId: send.headers.get('herald-batch-id')! }))!;
    // The first message is sent and recorded (its ledger row); the second is sent, its row not written yet.
    const sentAt = new Date();
    const subject = { account: 'lostacct', batch_id: request.batchId, mail_id: mailIdOf('lostacct', request._id, 0), email: 'sent@example.net', sent_timestamp: sentAt, tags: [], custom_args: {}, mta: 'test' };
    await store.ledger.insertOne({
      ...buildEvent('track.mail.sent', subject, sentAt, 'sent'),
      _outcome_of: subject.mail_id,
      _ledger: { requestId: request._id, messageId: '<m0@test>', status: 'sent', relayResponse: '250 OK', sentAt },
    });
  });

  async function click(index: number): Promise<Response> {
    const secret = await trackingSecret(store);
    const ref: MessageRef = { account: 'lostacct', requestId: request._id, index };
    const part = linkPart(link);
    return fetch(`${baseUrl}/t/c/${messageToken(secret, 'c', messagePart(ref))}.${part}.${linkSignature(secret, request._id, part)}`, { redirect: 'manual' });
  }

  it('records a click once when the answer to its events\' write is lost and the hit is recorded again', async () => {
    const mailId = mailIdOf('lostacct', request._id, 0);
    const cut = door.cutReplyTo(command('insert', 'events'));
    const answer = await click(0);
    await cut;
    expect([answer.status, answer.headers.get('location')]).toEqual([302, link.target]);
    const events = await store.events.find({ account: 'lostacct', mail_id: mailId, track_type: { $in: ['track.mail.clicked', 'track.mail.first_clicked'] } }).toArray();
    expect(events.map((e) => e.track_type).sort()).toEqual(['track.mail.clicked', 'track.mail.first_clicked']);
  });

  it('holds a click on a message not recorded yet once when the answer to its hold is lost', async () => {
    const cut = door.cutReplyTo(command('insert', 'heldHits'));
    const answer = await click(1);
    await cut;
    expect([answer.status, answer.headers.get('location')]).toEqual([302, link.target]);
    const held = await store.heldHits.find({ account: 'lostacct', mailId: mailIdOf('lostacct', request._id, 1) }).toArray();
    expect(held.map((h) => [h.kind, h.link?.url])).toEqual([['click', link.url]]);
  });
});
