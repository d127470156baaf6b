// A campaign's figures and the online version of its messages: a small campaign sent end to end
// over the account API (create, content, HTML, launch) to the recording sink, its links read out
// of the received mail and hit over HTTP (the real tracking endpoints), then the metrics on the
// detail and the list, GET …/metrics (the original's keys) and GET …/actions; a test send that
// counts nowhere. And the counting rules on stored events: a message bounced twice, refused at
// sending, a complaint, the NO_OPEN/NO_CLICK complements.
import type { NewAccount } from '../../core/accounts/accounts';
import { campaignActions, campaignMetrics, campaignReport } from '../../core/campaigns/metrics';
import { campaignBatchId, campaignMailId } from '../../core/campaigns/model';
import { buildEvent, type EventSubject } from '../../core/tracking/events';
import { nextId } from '../../adapters/store/counters';
import type { CampaignDoc, ContactDoc, EventDoc } from '../../adapters/store/store';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald, type Json } from '../support/http';
import { waitUntil } from '../support/wait';
import { openPixelUrl } from '../support/pixel';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald();
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const call = (method: string, path: string, options: { json?: unknown; form?: string } = {}) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${path}`, { ...options, headers: { authorization: `Bearer ${acme.apiKey}` } });

/** A request to a tracking link at the test's Herald (links point at HERALD_PUBLIC_URL), never following redirects. */
const hit = (link: string) => fetch(`${herald.baseUrl}${new URL(link).pathname}`, { redirect: 'manual', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0' } });

async function insertContact(listId: number, fields: Partial<ContactDoc>): Promise<ContactDoc> {
  const id = await nextId(herald.services.store, acme.account, 'contacts');
  const now = new Date();
  const contact: ContactDoc = {
    _id: `${acme.account}:${id}`, account: acme.account, id, email: `m${id}@example.com`, firstName: '', lastName: '', gender: '', language: '',
    preferredFormat: 'HTML', source: 'test', state: 'ACTIVE', quality: 0, lists: [listId], interests: [], customFields: {},
    created: now, lastModified: now, lastMailed: null, lastAction: null, inactivated: null, ...fields,
  };
  await herald.services.store.contacts.insertOne(contact);
  return contact;
}

const HTML = '<html><body><p>Hello ${contact.first_name!"friend"}, your number is ${contact.CLIENTNO!"none"}.</p>' +
  '<a href="https://shop.example.com/sale">Sale</a> <a href="https://shop.example.com/news">News</a></body></html>';

describe('a campaign sent end to end', () => {
  let campaignId: number;
  let contentId: number;
  let ada: ContactDoc;
  const mailOf = (email: string) => herald.sink.received.find((m) => m.rcptTo.includes(email))!;
  const linksOf = (email: string) => {
    const html = String(mailOf(email).parsed.html);
    const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    return {
      html,
      pixel: openPixelUrl(html),
      clicks: hrefs.filter((h) => h.includes('/t/c/')),
      online: hrefs.find((h) => h.includes('/t/v/'))!,
    };
  };

  beforeAll(async () => {
    const field = await call('POST', '/fields', { form: 'name=Client%20number&tag=CLIENTNO&format=TEXT' });
    expect(field.status).toBeLessThan(300);
    const list = await call('POST', '/lists', { form: 'name=Readers' });
    const listId = list.body.data.id;
    ada = await insertContact(listId, { firstName: 'Ada', lastName: 'Lovelace', customFields: { [field.body.data.id]: 'C-42' } });
    await insertContact(listId, { firstName: 'Grace' });
    await insertContact(listId, {});
    await insertContact(listId, { firstName: 'Bob' });
    const created = await call('POST', '/campaigns', { form: `name=Spring%20sale&tags[]=spring&include[lists][]=${listId}` });
    expect(created.status).toBeLessThan(300);
    campaignId = created.body.data.id;
    const content = await call('POST', `/campaigns/${campaignId}/contents`, { form: 'type=HTML&subject=Sale%20for%20%24%7Bcontact.first_name!%22you%22%7D&from=news%40acme.example.com&fromName=Acme' });
    expect(content.status).toBeLessThan(300);
    contentId = content.body.data.id;
    const body = await fetch(`${herald.baseUrl}/v2/${acme.account}/campaigns/${campaignId}/contents/${contentId}.html`, {
      method: 'PUT', body: HTML, headers: { authorization: `Bearer ${acme.apiKey}`, 'content-type': 'text/html' },
    });
    expect(body.status).toBe(200);
    // Before the launch: no metrics.
    expect((await call('GET', `/campaigns/${campaignId}`)).body.data.metrics).toBeNull();
    const launched = await call('POST', `/campaigns/${campaignId}/launch`, { form: '' });
    expect(launched.status).toBeLessThan(300);
    await waitUntil('the campaign SENT', async () => (await call('GET', `/campaigns/${campaignId}`)).body.data.state === 'SENT', 60_000);
    await herald.sink.waitFor(4);
  }, 120_000);

  it('sends each contact its own copy, whose online version renders as it was sent, without the pixel', async () => {
    const { html, online } = linksOf(ada.email);
    expect(mailOf(ada.email).parsed.subject).toBe('Sale for Ada');
    expect(html).toContain('Hello Ada, your number is C-42.');
    expect(html).toContain('herald-footer');
    const page = await hit(online);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const shown = await page.text();
    expect(shown).toContain('Hello Ada, your number is C-42.');
    expect(shown).not.toContain('/t/o/');
    // Click links stay tracked and the same as in the mail (the same signed tokens).
    expect([...shown.matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'))).toEqual(linksOf(ada.email).clicks);
    const other = linksOf(herald.sink.received.find((m) => !m.rcptTo.includes(ada.email))!.rcptTo[0]);
    expect(await (await hit(other.online)).text()).not.toContain('Ada');
  });

  it('counts opens and clicks on the detail, the list, GET …/metrics and GET …/actions', async () => {
    const emails = [...new Set(herald.sink.received.flatMap((m) => m.rcptTo))].sort();
    const [first, second] = emails;
    // Two recipients open (one twice), one of them clicks twice.
    for (const email of [first, first, second]) expect((await hit(linksOf(email).pixel)).status).toBe(200);
    for (const link of [linksOf(first).clicks[0], linksOf(first).clicks[1]]) {
      const answer = await hit(link);
      expect(answer.status).toBe(302);
      expect(answer.headers.get('location')).toMatch(/^https:\/\/shop\.example\.com\/(sale|news)\?utm_source=herald&utm_medium=email&utm_campaign=Spring%20sale$/);
    }
    expect((await hit(linksOf(second).online)).status).toBe(200);

    const expected = { sent: 4, sentP: 100, opened: 2, openedP: 50, clicked: 1, clickedP: 25, bounced: 0, bouncedP: 0 };
    expect((await call('GET', `/campaigns/${campaignId}`)).body.data.metrics).toEqual(expected);
    const listed = (await call('GET', '/campaigns')).body.data.find((c: Json) => c.id === campaignId);
    expect(listed.metrics).toEqual(expected);

    const report = await call('GET', `/campaigns/${campaignId}/metrics`);
    expect(report.status).toBe(200);
    expect(report.body.data).toEqual({
      sent: 4, sentP: 100, delivered: 4, deliveredP: 100, opened: 2, openedP: 50, openedT: 3, viewsOnline: 3, clicked: 1, clickedP: 25,
      clickedT: 2, ctor: 50, converted: 0, convertedP: 0, bounced: 0, bouncedP: 0, bouncedHard: 0, bouncedHardP: 0, bouncedSoft: 0,
      bouncedSoftP: 0, complained: 0, complainedP: 0, unsubscribed: 0, unsubscribedP: 0, shared: 0, sharedOpened: 0, sharedClicked: 0,
    });

    const opens = await call('GET', `/campaigns/${campaignId}/actions?filter[type]=OPEN`);
    expect(opens.status).toBe(200);
    expect(opens.body.paging).toMatchObject({ total: 2 });
    expect(opens.body.data.map((row: Json) => row.email).sort()).toEqual([first, second]);
    expect(opens.body.data.find((row: Json) => row.email === ada.email)).toMatchObject({ type: 'OPEN', contactId: ada.id });
    const noClick = await call('GET', `/campaigns/${campaignId}/actions?filter[type]=NO_CLICK`);
    expect(noClick.body.data.map((row: Json) => row.email).sort()).toEqual(emails.filter((e) => e !== first));
    const history = await call('GET', `/campaigns/${campaignId}/actions?filter[type]=ALL&q=${encodeURIComponent(first)}&sortdir=asc`);
    expect(history.body.data.map((row: Json) => row.type)).toEqual(['SENT', 'OPEN', 'OPEN', 'CLICK', 'CLICK']);
    expect(history.body.data[3].url).toMatch(/^https:\/\/shop\.example\.com\//);
  });

  it('sends a test copy to up to 10 addresses, marked and counted nowhere in the campaign', async () => {
    const before = herald.sink.received.length;
    const answer = await call('POST', `/campaigns/${campaignId}/contents/${contentId}/sendtest`, { json: { emails: ['qa@example.org', 'boss@example.org'] } });
    expect(answer.status).toBeLessThan(300);
    const mails = (await herald.sink.waitFor(before + 2)).slice(before);
    const qa = mails.find((m) => m.rcptTo.includes('qa@example.org'))!;
    expect(qa.parsed.subject).toBe('[Test] Sale for you');
    expect(String(qa.parsed.html)).toContain('Hello friend, your number is none.');
    expect(String(qa.parsed.html)).toContain('herald-footer');
    const tags = await waitUntil('the test sends recorded', async () => {
      const sent = await herald.services.store.events.find({ account: acme.account, email: 'qa@example.org', track_type: 'track.mail.sent' }).toArray();
      return sent.length > 0 && sent[0].tags;
    });
    expect(tags).toEqual(['campaign-test']);
    expect((await call('GET', `/campaigns/${campaignId}`)).body.data.metrics.sent).toBe(4);
    const tooMany = await call('POST', `/campaigns/${campaignId}/contents/${contentId}/sendtest`, { json: { emails: Array.from({ length: 11 }, (_, i) => `t${i}@example.org`) } });
    expect(tooMany.status).toBe(400);
  });
});

describe('counting rules, on stored events', () => {
  const campaignOf = (id: number, state: CampaignDoc['state'], snapshotTotal?: number): CampaignDoc => ({
    _id: `${acme.account}:${id}`, account: acme.account, id, name: `C${id}`, description: '', tags: [], type: 'SIMPLE', state, launchMode: 'NOW',
    launchDate: null, created: new Date(), lastModified: new Date(), archived: null, thumbnail: null, options: {},
    include: { lists: [], interests: [], campaigns: [] }, exclude: { lists: [], interests: [], campaigns: [] }, content: null,
    recipients: snapshotTotal ?? null, ...(snapshotTotal !== undefined ? { launch: { taskId: 1, workflowId: 'w', paused: false, snapshotTotal } } : {}),
  });
  const sentAt = new Date(Date.now() - 3_600_000);
  const subjectOf = (campaign: CampaignDoc, seq: number, round = 0): EventSubject => ({
    account: acme.account, batch_id: campaignBatchId(acme.account, campaign.id), mail_id: campaignMailId(acme.account, campaign.id, seq, round),
    email: `r${seq}@example.net`, sent_timestamp: sentAt, tags: [], custom_args: {}, mta: 'herald.test', mail_type: 'campaign',
  });
  const later = (minutes: number) => new Date(sentAt.getTime() + minutes * 60_000);

  it('counts messages refused at sending as sent and bounced, a message bounced twice once, complaints apart', async () => {
    const campaign = campaignOf(9001, 'SENT', 6);
    const s = (seq: number, round = 0) => subjectOf(campaign, seq, round);
    const events: EventDoc[] = [
      ...[0, 1, 2, 3].map((seq) => buildEvent('track.mail.sent', s(seq), sentAt, 'sent')),
      // seq 4: refused by the relay at sending (timestamp = sent_timestamp); seq 5 never reached (dropped: not sent).
      buildEvent('track.mail.bounced', { ...s(4), sent_timestamp: later(1) }, later(1), 'relay-rejected', { bounce_type: 'hard', message: '550' }),
      buildEvent('track.mail.dropped', s(5), sentAt, 'suppressed'),
      // seq 1: a soft report, then a hard one.
      buildEvent('track.mail.bounced', s(1), later(5), 'report:a', { bounce_type: 'soft', message: '452' }),
      buildEvent('track.mail.bounced', s(1), later(9), 'report:b', { bounce_type: 'hard', message: '550' }),
      // seq 2: a soft report only; seq 3: unsubscribed on the page, then reported as spam.
      buildEvent('track.mail.bounced', s(2), later(5), 'report:c', { bounce_type: 'soft', message: '452' }),
      buildEvent('track.mail.first_opened', s(0), later(2), 'first'),
      buildEvent('track.mail.opened', s(0), later(2), 'o1'),
      buildEvent('track.mail.opened', s(0), later(3), 'o2'),
      buildEvent('track.mail.first_opened', s(3), later(2), 'first'),
      buildEvent('track.mail.unsubscribed', s(3), later(4), 'page', { reason: 'not_interested' }),
      buildEvent('track.mail.unsubscribed', s(3), later(6), 'report:d', { reason: 'spam_fbl' }),
      buildEvent('track.mail.shared', s(0), later(7), 'share', { shared_on: 'twitter' }),
    ];
    await herald.services.store.events.insertMany(events);
    const draft = campaignOf(9002, 'DRAFT');
    const cancelledEarly = campaignOf(9003, 'CANCELLED');
    const metrics = await campaignMetrics(herald.services.store, [campaign, draft, cancelledEarly]);
    expect(metrics.get(9002)).toBeNull();
    expect(metrics.get(9003)).toBeNull();
    expect(metrics.get(9001)).toEqual({ sent: 5, sentP: 83.33, opened: 2, openedP: 40, clicked: 0, clickedP: 0, bounced: 3, bouncedP: 60 });
    expect(await campaignReport(herald.services.store, campaign)).toMatchObject({
      delivered: 2, deliveredP: 40, openedT: 2, ctor: 0, bouncedHard: 2, bouncedHardP: 40, bouncedSoft: 1, bouncedSoftP: 20,
      complained: 1, complainedP: 20, unsubscribed: 0, shared: 1,
    });
    const page = (type: Parameters<typeof campaignActions>[2]['type'], extra = {}) =>
      campaignActions(herald.services.store, campaign, { type, offset: 0, limit: 20, sortdir: 'desc', ...extra });
    expect((await page('HARD_BOUNCE')).items.map((row) => row.email).sort()).toEqual(['r1@example.net', 'r4@example.net']);
    expect((await page('COMPLAINT')).items).toEqual([expect.objectContaining({ type: 'COMPLAINT', email: 'r3@example.net', details: { reason: 'spam_fbl' } })]);
    expect((await page('UNSUBSCRIBE')).items.map((row) => row.details)).toEqual([{ reason: 'not_interested' }]);
    expect((await page('NO_OPEN')).items.map((row) => row.email)).toEqual(['r2@example.net', 'r1@example.net']);
    expect(await page('NO_OPEN', { offset: 1, limit: 1 })).toEqual({ total: 2, items: [expect.objectContaining({ email: 'r1@example.net', type: 'NO_OPEN' })] });
    expect(await page('CONVERSION')).toEqual({ items: [], total: 0 });
    expect((await page('NO_CONVERSION')).total).toBe(4);
    expect((await page('SHARE')).items).toEqual([expect.objectContaining({ email: 'r0@example.net', details: { shared_on: 'twitter' } })]);
    expect((await page('SENT', { q: 'R*@EXAMPLE.net' })).total).toBe(4);
    expect((await page('ALL', { q: 'r0@*' })).items.map((row) => row.type)).toEqual(['SHARE', 'OPEN', 'OPEN', 'SENT']);
  });
});
