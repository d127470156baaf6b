// POST /v2/{account}/bounces on a running Herald: a bounce or complaint reported by the account,
// recorded against its message (named, or its latest to the address) the way Herald records its
// own reports, once; without a message a hard bounce or complaint still suppresses the address;
// another account's message is out of reach; the permission bounces:create is needed. And the
// providers' webhooks of a Herald whose relays file configures none answer 404.
import type { NewAccount } from '../../core/accounts/accounts';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Answer } from '../support/http';
import { sendMessages, type SentMessage } from '../support/sent-messages';

let herald: TestHerald;
let acme: NewAccount;
let other: NewAccount;
let sent: Map<string, SentMessage>;
let otherSent: Map<string, SentMessage>;

beforeAll(async () => {
  herald = await startTestHerald();
  [acme, other] = await Promise.all([herald.newAccount(), herald.newAccount()]);
  await Promise.all(['named@example.org', 'latest@example.org', 'never@example.org', 'complains@example.org'].map((email) =>
    callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/contacts`, { headers: { authorization: `Bearer ${acme.apiKey}` }, json: { email } })));
  [sent, otherSent] = await Promise.all([
    sendMessages(herald, acme, ['named@example.org', 'latest@example.org', 'soft@example.org', 'complains@example.org']),
    sendMessages(herald, other, ['theirs@example.org']),
  ]);
});
afterAll(() => herald?.stop());

const report = (account: NewAccount, json: unknown, key = account.apiKey): Promise<Answer> =>
  callHerald(herald.baseUrl, 'POST', `/v2/${account.account}/bounces`, { headers: { authorization: `Bearer ${key}` }, json });
async function stateOf(account: string, email: string) {
  const { store } = herald.services;
  const events = await store.events.find({ account, email, track_type: { $in: ['track.mail.bounced', 'track.mail.unsubscribed'] } }).toArray();
  const suppression = await store.suppressions.findOne({ account, email });
  return {
    events: events.map((e) => ({ mail_id: e.mail_id, track_type: e.track_type, bounce_type: e.bounce_type, reason: e.reason, message: e.message })),
    suppression: suppression?.reason ?? null,
    contact: (await store.contacts.findOne({ account, email }))?.state ?? null,
  };
}

describe('POST /v2/{account}/bounces', () => {
  it('records a hard bounce against the named message: event, suppression, contact; once', async () => {
    const { mailId } = sent.get('named@example.org')!;
    const answer = await report(acme, { email: 'Named@Example.org', type: 'hard', message: '550 5.1.1 user unknown', mail_id: mailId });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      href: `/v2/${acme.account}/bounces`, success: true, data: { email: 'named@example.org', type: 'hard', mail_id: mailId, recorded: 'event' },
    });
    expect((await report(acme, { email: 'named@example.org', type: 'hard', message: 'again', mail_id: mailId })).status).toBe(200);
    expect(await stateOf(acme.account, 'named@example.org')).toEqual({
      events: [{ mail_id: mailId, track_type: 'track.mail.bounced', bounce_type: 'hard', reason: undefined, message: '550 5.1.1 user unknown' }],
      suppression: 'bounced', contact: 'BOUNCED',
    });
  });

  it('without a mail_id takes the latest message to the address; a soft bounce only records its event; a complaint, form-encoded too', async () => {
    const latest = await report(acme, { email: 'latest@example.org', type: 'hard' });
    expect(latest.body.data).toEqual({ email: 'latest@example.org', type: 'hard', mail_id: sent.get('latest@example.org')!.mailId, recorded: 'event' });
    expect((await stateOf(acme.account, 'latest@example.org')).events).toEqual([expect.objectContaining({ bounce_type: 'hard', message: 'Reported through the bounces API' })]);

    expect((await report(acme, { email: 'soft@example.org', type: 'soft', message: '452 mailbox full' })).body.data.recorded).toBe('event');
    expect(await stateOf(acme.account, 'soft@example.org')).toEqual({
      events: [expect.objectContaining({ bounce_type: 'soft', message: '452 mailbox full' })], suppression: null, contact: null,
    });

    const form = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/bounces`, {
      headers: { authorization: `Bearer ${acme.apiKey}` }, form: 'email=complains%40example.org&type=complaint',
    });
    expect(form.body.data).toMatchObject({ recorded: 'event', type: 'complaint' });
    expect(await stateOf(acme.account, 'complains@example.org')).toEqual({
      events: [expect.objectContaining({ track_type: 'track.mail.unsubscribed', reason: 'spam_fbl' })], suppression: 'complained', contact: 'COMPLAINED',
    });
  });

  it('for an address the account never mailed: a hard bounce suppresses it and marks its contact; a soft one records nothing', async () => {
    expect((await report(acme, { email: 'never@example.org', type: 'soft' })).body.data).toEqual({ email: 'never@example.org', type: 'soft', mail_id: null, recorded: 'nothing' });
    expect(await stateOf(acme.account, 'never@example.org')).toEqual({ events: [], suppression: null, contact: 'ACTIVE' });
    expect((await report(acme, { email: 'never@example.org', type: 'hard' })).body.data).toEqual({ email: 'never@example.org', type: 'hard', mail_id: null, recorded: 'suppression' });
    expect(await stateOf(acme.account, 'never@example.org')).toEqual({ events: [], suppression: 'bounced', contact: 'BOUNCED' });
  });

  it('never reaches another account\'s message: 404, nothing recorded; the address of the account is not the other\'s', async () => {
    const theirs = otherSent.get('theirs@example.org')!;
    const answer = await report(acme, { email: 'theirs@example.org', type: 'hard', mail_id: theirs.mailId });
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ success: false, error: { status: 404, type: 'NOT_FOUND' } });
    // Without a mail_id it is acme's own address (never mailed by acme): suppressed in acme only.
    expect((await report(acme, { email: 'theirs@example.org', type: 'complaint' })).body.data).toMatchObject({ mail_id: null, recorded: 'suppression' });
    expect(await stateOf(other.account, 'theirs@example.org')).toEqual({ events: [], suppression: null, contact: null });
    // Another account's credentials on acme's path: 403.
    expect((await report(acme, { email: 'x@example.org', type: 'hard' }, other.apiKey)).status).toBe(403);
  });

  it('validates the body (VALIDATION_ERROR naming every field), the recipient of the mail_id', async () => {
    const bad = await report(acme, { email: 'not an address', type: 'bounced', mail_id: 'nope', message: 'x'.repeat(1001) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('VALIDATION_ERROR');
    expect(Object.keys(bad.body.error.validationErrors).sort()).toEqual(['email', 'mail_id', 'message', 'type']);
    expect((await report(acme, {})).body.error.validationErrors).toMatchObject({ email: expect.any(String), type: expect.any(String) });
    const wrong = await report(acme, { email: 'someone@example.org', type: 'hard', mail_id: sent.get('soft@example.org')!.mailId });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.validationErrors).toEqual({ email: `Not the recipient of ${sent.get('soft@example.org')!.mailId}` });
    expect((await stateOf(acme.account, 'someone@example.org')).suppression).toBeNull();
  });

  it('needs the permission bounces:create', async () => {
    const auth = { authorization: `Bearer ${acme.apiKey}` };
    const user = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users`, {
      headers: auth, json: { email: 'reader@example.com', password: 'password12', permissions: ['contacts:list', 'contacts:update'] },
    });
    const { key } = (await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/users/${user.body.data.id}/keys`, { headers: auth })).body.data;
    const refused = await report(acme, { email: 'perm@example.org', type: 'hard' }, key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'FORBIDDEN', userMessage: 'Missing permission bounces:create' });
    expect((await stateOf(acme.account, 'perm@example.org')).suppression).toBeNull();
  });
});

it('answers 404 for a provider the relays file does not configure', async () => {
  for (const provider of ['ses', 'sendgrid', 'mailgun', 'postmark']) {
    const answer = await callHerald(herald.baseUrl, 'POST', `/v1/feedback/${provider}`, { json: [] });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ success: false, error: { status: 404, type: 'not_found', message: expect.stringContaining(`feedback.${provider}`) } });
  }
});
