// The tracking links over HTTP, on real mail: a message is sent through POST /v1/mail/send (or
// over SMTP) to the recording SMTP sink, and its links are taken from the HTML and headers the
// sink received. Each event type is checked against a JSON schema of exactly its fields.
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import nodemailer from 'nodemailer';
import type { NewAccount } from '../../core/accounts/accounts';
import { metrics } from '../../adapters/metrics/registry';
import type { EventDoc } from '../../adapters/store/store';
import { trackingSecret } from '../../core/content/tracking/secret';
import { trackingRecorderOf } from '../../core/tracking/recorder';
import { messageToken } from '../../core/content/tracking/token';
import { batchEvents } from '../support/events';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import { waitUntil } from '../support/wait';
import type { ReceivedMail } from '../support/smtp-sink';
import { openPixelUrl, withoutPixel } from '../support/pixel';
import { ledgerCount } from '../support/ledger';

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  herald = await startTestHerald({ env: { HERALD_TRUST_PROXY: '1' } }); // the client address comes from X-Forwarded-For
  acme = await herald.newAccount();
});
afterAll(() => herald?.stop());

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.60 Safari/537.36';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const LONDON = '81.2.69.160';

// ---- the schemas: exactly each type's fields ----

const text = { type: 'string' };
const GENERAL = {
  timestamp: { type: 'string', format: 'date-time' }, sent_timestamp: { type: 'string', format: 'date-time' },
  hour_of_day: { type: 'integer', minimum: 0, maximum: 23 }, day_of_week: { type: 'integer', minimum: 1, maximum: 7 },
  track_id: text, track_type: text, batch_id: text, mail_id: text, mail_type: { const: 'transactional' }, account: text, email: text, domain: text,
  tags: { type: 'array', items: text }, custom_args: { type: 'object', additionalProperties: text }, mta: text,
};
const CLIENT = Object.fromEntries(['user_agent', 'os_class', 'os', 'os_version', 'agent_name', 'agent_version', 'agent_name_version', 'ip', 'country', 'city'].map((k) => [k, text]));
const CLICK = { ...CLIENT, url: text, link_id: { type: 'string', pattern: '^\\d+$' }, interests: { type: 'array', items: text, minItems: 1 }, contact_id: { type: 'string', pattern: '^\\d+$' } };

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);
/** A schema with these properties, all required but `optional`, and nothing else. */
function schemaOf(type: string, properties: Record<string, object>, optional: string[] = []): ValidateFunction {
  const all = { ...GENERAL, ...properties, track_type: { const: type } };
  return ajv.compile({ type: 'object', additionalProperties: false, properties: all, required: Object.keys(all).filter((k) => !optional.includes(k)) });
}
const SCHEMAS: Record<string, ValidateFunction> = {
  'track.mail.sent': schemaOf('track.mail.sent', {}),
  'track.mail.dropped': schemaOf('track.mail.dropped', {}),
  'track.mail.opened': schemaOf('track.mail.opened', CLIENT),
  'track.mail.first_opened': schemaOf('track.mail.first_opened', { ...CLIENT, seconds_from_sent: { type: 'integer', minimum: 0 } }),
  'track.mail.clicked': schemaOf('track.mail.clicked', CLICK, ['interests', 'contact_id']),
  'track.mail.first_clicked': schemaOf('track.mail.first_clicked', CLICK, ['interests', 'contact_id']),
  'track.mail.viewed_online': schemaOf('track.mail.viewed_online', {}),
  'track.mail.shared': schemaOf('track.mail.shared', { ...CLIENT, shared_on: { enum: ['facebook', 'twitter', 'linkedin'] } }),
  'track.mail.unsubscribed': schemaOf('track.mail.unsubscribed', { reason: { enum: ['not_interested', 'too_frequent', 'spam_never_subscribed', 'spam_offensive', 'spam_fbl', 'oneclick'] } }),
};
/** An open through a mail proxy: the general fields (and seconds_from_sent on the first) only. */
const PROXY_OPEN = schemaOf('track.mail.opened', {});
const PROXY_FIRST_OPEN = schemaOf('track.mail.first_opened', { seconds_from_sent: { type: 'integer', minimum: 0 } });

function expectValid(validate: ValidateFunction, event: EventDoc) {
  // Fields starting with `_` are never served: _id is the store's cursor, _ledger a ledger row's bookkeeping.
  expect(event._id).toBeDefined();
  const served = Object.fromEntries(Object.entries(event).filter(([key]) => !key.startsWith('_')));
  const ok = validate(served);
  if (!ok) throw new Error(`${event.track_type} does not match its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(served)}`);
}

// ---- sending real mail and reading its links ----

const HTML = '<html><body><p>Hello ${user.name}</p>'
  + '<a href="https://shop.example/p/${user.id}" data-interests="shoes, hats">Shop</a> '
  + '<a href="https://blog.example/post">Blog</a> '
  + '<a href="${urls.unsubscribe}">Unsubscribe</a> <a href="${urls.online_version}">View online</a> '
  + '<a href="${urls.share_facebook}">Facebook</a> <a href="${urls.share_twitter}">X</a> <a href="${urls.share_linkedin}">LinkedIn</a>'
  + '</body></html>';

interface Sent { email: string; mailId: string; mail: ReceivedMail; pixel: string; clicks: string[]; unsubscribe: string; online: string; shares: Record<string, string>; listUnsubscribe: string }

let sendCount = 0;
/** Sends one message to `email` over HTTP; resolves with its links once the sink has it and the ledger says sent. */
async function sendTo(email: string): Promise<Sent> {
  const answer = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${acme.transactionalKey}` },
    json: {
      from: { email: 'shop@example.com' }, subject: `Offer ${(sendCount += 1)}`, content: { html: HTML, text: 'Unsubscribe: ${urls.unsubscribe}' },
      recipients: [{ to: { email }, substitutions: { user: { name: 'Ada <3', id: 42 } }, custom_args: { order: '7' } }],
      tags: ['offers'], tracking: { analytics: { utm_source: 'mail' } },
    },
  });
  expect(answer.status).toBe(202);
  const [sent] = await batchEvents(herald.services.store, acme.account, answer.headers.get('herald-batch-id')!, 1);
  expect(sent.track_type).toBe('track.mail.sent');
  // The ledger row (which the links are checked against) is written beside the event: wait for both.
  await waitUntil('the ledger row', async () => (await ledgerCount(herald.services.store, { _id: sent.mail_id, account: acme.account })) === 1);
  return linksOf(email, sent.mail_id, await mailTo(email, `Offer ${sendCount}`));
}

async function mailTo(email: string, subject?: string): Promise<ReceivedMail> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const mail = herald.sink.received.find((m) => m.rcptTo.includes(email) && (subject === undefined || m.parsed.subject === subject));
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${email}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function headerOf(mail: ReceivedMail, name: string): string | undefined {
  const line = mail.parsed.headerLines.find((h) => h.key === name.toLowerCase())?.line;
  return line?.replace(/\r?\n[ \t]+/g, ' ').slice(name.length + 1).trim();
}

function linksOf(email: string, mailId: string, mail: ReceivedMail): Sent {
  const html = String(mail.parsed.html);
  const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  const listUnsubscribe = headerOf(mail, 'List-Unsubscribe') ?? '';
  return {
    email, mailId, mail, listUnsubscribe,
    pixel: openPixelUrl(html),
    clicks: hrefs.filter((h) => h.includes('/t/c/')),
    unsubscribe: hrefs.find((h) => h.includes('/t/u/'))!,
    online: hrefs.find((h) => h.includes('/t/v/'))!,
    shares: Object.fromEntries(hrefs.filter((h) => h.includes('/t/s/')).map((h) => [/\/t\/s\/(\w+)\//.exec(h)![1], h])),
  };
}

/** A request to a tracking link at the test's Herald (links point at HERALD_PUBLIC_URL), never following redirects. */
function hit(link: string, init: { method?: string; ua?: string; ip?: string; body?: string | FormData; type?: string } = {}) {
  const { pathname } = new URL(link);
  const headers: Record<string, string> = { 'user-agent': init.ua ?? CHROME, 'x-forwarded-for': `203.0.113.9, ${init.ip ?? LONDON}` };
  if (init.type) headers['content-type'] = init.type;
  return fetch(`${herald.baseUrl}${pathname}`, { method: init.method ?? 'GET', headers, body: init.body, redirect: 'manual' });
}

const eventsOf = (mailId: string, type?: string) => herald.services.store.events.find({ account: acme.account, mail_id: mailId, ...(type ? { track_type: type } : {}) }).toArray();
const hitsOf = async (kind: string) => (await metrics.trackingHits.get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;

// ---- the tests ----

describe('open pixel', () => {
  it('answers a 1×1 GIF that no cache keeps; the first hit is opened + first_opened, the next only opened', async () => {
    const m = await sendTo('reader@example.net');
    const hitsBefore = await hitsOf('open');
    const answer = await hit(m.pixel);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/gif');
    expect(answer.headers.get('cache-control')).toMatch(/no-store/);
    const gif = Buffer.from(await answer.arrayBuffer());
    expect(gif.subarray(0, 6).toString()).toBe('GIF89a');
    expect(gif.readUInt16LE(6)).toBe(1);
    expect(gif.readUInt16LE(8)).toBe(1);

    // Durable: the events are there the moment the pixel answered.
    const [opened] = await eventsOf(m.mailId, 'track.mail.opened');
    const [first] = await eventsOf(m.mailId, 'track.mail.first_opened');
    expectValid(SCHEMAS['track.mail.opened'], opened);
    expectValid(SCHEMAS['track.mail.first_opened'], first);
    expect(opened).toMatchObject({
      email: 'reader@example.net', domain: 'example.net', tags: ['offers'], custom_args: { order: '7' }, mta: 'herald.test',
      user_agent: CHROME, os_class: 'Desktop', os: 'Windows', os_version: '10', agent_name: 'Chrome', agent_version: '124.0.6367.60',
      agent_name_version: 'Chrome 124', ip: LONDON, country: 'GB', city: 'London',
    });
    expect(first.seconds_from_sent).toBeLessThan(120);
    expect(opened.track_id).not.toBe(first.track_id);

    expect((await hit(m.pixel)).status).toBe(200);
    expect(await eventsOf(m.mailId, 'track.mail.opened')).toHaveLength(2);
    expect(await eventsOf(m.mailId, 'track.mail.first_opened')).toHaveLength(1);
    expect(await hitsOf('open')).toBe(hitsBefore + 2);
  });

  it('through a mail proxy omits every device and place field; a click through it keeps them', async () => {
    const m = await sendTo('gmail-user@example.net');
    expect((await hit(m.pixel, { ua: GMAIL_PROXY, ip: '66.249.84.1' })).status).toBe(200);
    expectValid(PROXY_OPEN, (await eventsOf(m.mailId, 'track.mail.opened'))[0]);
    expectValid(PROXY_FIRST_OPEN, (await eventsOf(m.mailId, 'track.mail.first_opened'))[0]);
    // Apple Mail Privacy Protection: the bare User-Agent, or Apple's network.
    expect((await hit(m.pixel, { ua: 'Mozilla/5.0', ip: '104.28.1.1' })).status).toBe(200);
    expect((await hit(m.pixel, { ua: CHROME, ip: '17.58.1.2' })).status).toBe(200);
    const opens = await eventsOf(m.mailId, 'track.mail.opened');
    expect(opens).toHaveLength(3);
    for (const open of opens) expectValid(PROXY_OPEN, open);

    expect((await hit(m.clicks[1], { ua: GMAIL_PROXY, ip: '66.249.84.1' })).status).toBe(302);
    const [click] = await eventsOf(m.mailId, 'track.mail.clicked');
    expectValid(SCHEMAS['track.mail.clicked'], click);
    expect(click).toMatchObject({ user_agent: GMAIL_PROXY, ip: '66.249.84.1', agent_name: 'Firefox', country: 'US' });
  });
});

describe('click redirect', () => {
  it('redirects to exactly the signed URL (utm added) and records url, link_id, interests and contact_id', async () => {
    const contact = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/contacts`, {
      headers: { authorization: `Bearer ${acme.apiKey}` }, json: { email: 'Clicker@Example.net' },
    });
    expect(contact.status).toBe(200);
    const m = await sendTo('clicker@example.net');
    expect(m.clicks).toHaveLength(2); // Herald's own links stay as written

    const shop = await hit(m.clicks[0]);
    expect(shop.status).toBe(302);
    expect(shop.headers.get('location')).toBe('https://shop.example/p/42?utm_source=mail');
    const blog = await hit(m.clicks[1]);
    expect(blog.headers.get('location')).toBe('https://blog.example/post?utm_source=mail');

    const clicks = await eventsOf(m.mailId, 'track.mail.clicked');
    const firsts = await eventsOf(m.mailId, 'track.mail.first_clicked');
    expect(clicks).toHaveLength(2);
    expect(firsts).toHaveLength(1);
    for (const event of [...clicks, ...firsts]) expectValid(SCHEMAS[event.track_type], event);
    const shopClick = clicks.find((c) => c.link_id === '0')!;
    expect(shopClick).toMatchObject({
      url: 'https://shop.example/p/${user.id}', link_id: '0', interests: ['shoes', 'hats'], contact_id: String(contact.body.data.id), country: 'GB', city: 'London',
    });
    expect(firsts[0]).toMatchObject({ url: 'https://shop.example/p/${user.id}', link_id: '0', contact_id: String(contact.body.data.id) });
    const blogClick = clicks.find((c) => c.link_id === '1')!;
    expect(blogClick.url).toBe('https://blog.example/post');
    expect(blogClick).not.toHaveProperty('interests');
  });

  it('is no open redirect: an altered target is a 404 and records nothing', async () => {
    const m = await sendTo('target@example.net');
    const [message, messageSig, link, linkSig] = new URL(m.clicks[0]).pathname.slice('/t/c/'.length).split('.');
    const part = JSON.parse(Buffer.from(link, 'base64url').toString());
    const evil = Buffer.from(JSON.stringify({ ...part, t: 'https://evil.example/' })).toString('base64url');
    for (const token of [`${message}.${messageSig}.${evil}.${linkSig}`, `${message}.${messageSig}.${link}x.${linkSig}`]) {
      const answer = await hit(`http://h/t/c/${token}`);
      expect(answer.status).toBe(404);
      expect(answer.headers.get('location')).toBeNull();
    }
    expect(await eventsOf(m.mailId)).toHaveLength(1); // its sent event only
  });
});

describe('first_* under concurrency', () => {
  it('records first_opened and first_clicked exactly once under 50 concurrent hits', async () => {
    const m = await sendTo('crowd@example.net');
    const opens = await Promise.all(Array.from({ length: 50 }, () => hit(m.pixel)));
    const clicks = await Promise.all(Array.from({ length: 50 }, () => hit(m.clicks[0])));
    expect(opens.every((a) => a.status === 200)).toBe(true);
    expect(clicks.every((a) => a.status === 302)).toBe(true);
    expect(await eventsOf(m.mailId, 'track.mail.opened')).toHaveLength(50);
    expect(await eventsOf(m.mailId, 'track.mail.first_opened')).toHaveLength(1);
    expect(await eventsOf(m.mailId, 'track.mail.clicked')).toHaveLength(50);
    expect(await eventsOf(m.mailId, 'track.mail.first_clicked')).toHaveLength(1);
  });
});

describe('forged and altered tokens', () => {
  it('are a 404 for every kind, and record nothing', async () => {
    const m = await sendTo('forger@example.net');
    const tokenOf = (link: string) => new URL(link).pathname.split('/').pop()!;
    const open = tokenOf(m.pixel);
    const [message, signature] = open.split('.');
    const otherIndex = Buffer.from(JSON.stringify([acme.account, 'x', 1])).toString('base64url');
    const flip = (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A');
    const bad = [
      'nonsense', '', `${message}.${flip(signature)}`, `${otherIndex}.${signature}`, `${message}.`, `${message}.${signature}.x`,
    ];
    const paths = [
      ...bad.map((t) => `/t/o/${t}`), ...bad.map((t) => `/t/v/${t}`), ...bad.map((t) => `/t/u/${t}`), ...bad.map((t) => `/t/s/facebook/${t}`),
      ...bad.map((t) => `/t/c/${t}`),
      `/t/u/${open}`, `/t/v/${open}`, `/t/s/twitter/${open}`, `/t/c/${open}`, // a valid token of another kind
      `/t/s/myspace/${tokenOf(m.shares.facebook)}`, // a network not on the list
      `/t/o/${tokenOf(m.unsubscribe)}`,
    ];
    for (const path of paths) {
      const answer = await hit(`http://h${path}`);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(await answer.text()).not.toMatch(/forger|Offer|shop\.example/);
    }
    for (const path of [`/t/u/${open}`, `/t/u/${message}.${flip(signature)}`]) {
      expect((await hit(`http://h${path}`, { method: 'POST', body: 'List-Unsubscribe=One-Click', type: 'application/x-www-form-urlencoded' })).status).toBe(404);
    }
    expect((await eventsOf(m.mailId)).map((e) => e.track_type)).toEqual(['track.mail.sent']);
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email: 'forger@example.net' })).toBeNull();
  });
});

describe('online version and share links', () => {
  it('shows the HTML as the recipient got it, without the pixel, sandboxed, and records viewed_online', async () => {
    const m = await sendTo('viewer@example.net');
    const answer = await hit(m.online);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toMatch(/^sandbox /);
    const page = await answer.text();
    expect(page).toBe(withoutPixel(m.mail.parsed.html));
    expect(page).toContain('Hello Ada &lt;3');
    const [view] = await eventsOf(m.mailId, 'track.mail.viewed_online');
    expectValid(SCHEMAS['track.mail.viewed_online'], view);
  });

  it('share links redirect to the network\'s page for the online version and record shared with shared_on', async () => {
    const m = await sendTo('sharer@example.net');
    expect(Object.keys(m.shares).sort()).toEqual(['facebook', 'linkedin', 'twitter']);
    const answer = await hit(m.shares.facebook);
    expect(answer.status).toBe(302);
    const location = answer.headers.get('location')!;
    expect(location).toBe(`https://www.facebook.com/sharer/sharer.php?u=${encodeURIComponent(m.online)}`);
    expect((await hit(m.shares.twitter)).headers.get('location')).toBe(`https://twitter.com/intent/tweet?url=${encodeURIComponent(m.online)}`);
    expect((await hit(m.shares.linkedin)).headers.get('location')).toMatch(/^https:\/\/www\.linkedin\.com\/sharing\/share-offsite\/\?url=/);
    const shares = await eventsOf(m.mailId, 'track.mail.shared');
    expect(shares.map((s) => s.shared_on).sort()).toEqual(['facebook', 'linkedin', 'twitter']);
    for (const share of shares) expectValid(SCHEMAS['track.mail.shared'], share);
    expect(shares[0]).toMatchObject({ country: 'GB', user_agent: CHROME });
  });
});

describe('unsubscribe', () => {
  it('the page asks to confirm, with reasons; its POST unsubscribes with the chosen reason, once', async () => {
    const email = "o'brien&co@example.net";
    const contact = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/contacts`, { headers: { authorization: `Bearer ${acme.apiKey}` }, json: { email } });
    const m = await sendTo(email);
    expect(m.unsubscribe).toBe(/^<(.+)>$/.exec(m.listUnsubscribe)![1]);

    const page = await hit(m.unsubscribe);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('o&#39;brien&amp;co@example.net');
    expect(html).not.toContain(email);
    for (const reason of ['not_interested', 'too_frequent', 'spam_never_subscribed', 'spam_offensive']) expect(html).toContain(`value="${reason}"`);
    expect(html).toMatch(/<form method="post">/);
    expect(await eventsOf(m.mailId, 'track.mail.unsubscribed')).toHaveLength(0); // showing the page changes nothing

    const bogus = await hit(m.unsubscribe, { method: 'POST', body: 'reason=bogus', type: 'application/x-www-form-urlencoded' });
    expect(bogus.status).toBe(400);
    expect(await bogus.text()).toContain('<li>reason: ');
    const done = await hit(m.unsubscribe, { method: 'POST', body: 'reason=too_frequent', type: 'application/x-www-form-urlencoded' });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('You are unsubscribed');
    const again = await hit(m.unsubscribe, { method: 'POST', body: 'reason=spam_offensive', type: 'application/x-www-form-urlencoded' });
    expect(again.status).toBe(200);

    const events = await eventsOf(m.mailId, 'track.mail.unsubscribed');
    expect(events).toHaveLength(1);
    expectValid(SCHEMAS['track.mail.unsubscribed'], events[0]);
    expect(events[0].reason).toBe('too_frequent');
    const after = await callHerald(herald.baseUrl, 'GET', `/v2/${acme.account}/contacts/${contact.body.data.id}`, { headers: { authorization: `Bearer ${acme.apiKey}` } });
    expect(after.body.data.state).toBe('UNSUBSCRIBED');
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email })).toMatchObject({ reason: 'unsubscribed' });
  });

  it('RFC 8058 one-click (urlencoded or multipart) unsubscribes with reason oneclick; the next send is dropped', async () => {
    const m = await sendTo('oneclick@example.net');
    expect(headerOf(m.mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const target = /^<(.+)>$/.exec(m.listUnsubscribe)![1];
    const answer = await hit(target, { method: 'POST', body: 'List-Unsubscribe=One-Click', type: 'application/x-www-form-urlencoded' });
    expect(answer.status).toBe(200);
    const [event] = await eventsOf(m.mailId, 'track.mail.unsubscribed');
    expectValid(SCHEMAS['track.mail.unsubscribed'], event);
    expect(event.reason).toBe('oneclick');
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email: 'oneclick@example.net' })).toMatchObject({ reason: 'unsubscribed' });

    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const other = await sendTo('multipart@example.net');
    expect((await hit(/^<(.+)>$/.exec(other.listUnsubscribe)![1], { method: 'POST', body: form })).status).toBe(200);
    expect((await eventsOf(other.mailId, 'track.mail.unsubscribed'))[0]?.reason).toBe('oneclick');

    const again = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
      headers: { authorization: `Bearer ${acme.transactionalKey}` },
      json: { from: { email: 'shop@example.com' }, subject: 'Again', content: { text: 'hi' }, recipients: [{ to: { email: 'oneclick@example.net' } }] },
    });
    const [dropped] = await batchEvents(herald.services.store, acme.account, again.headers.get('herald-batch-id')!, 1);
    expect(dropped.track_type).toBe('track.mail.dropped');
    expectValid(SCHEMAS['track.mail.dropped'], dropped);
  });
});

describe('a message whose send is not recorded yet', () => {
  // As a worker killed between the relay's 250 and its ledger write leaves it: delivered, no ledger row yet.
  async function withoutItsRow(email: string) {
    const m = await sendTo(email);
    const row = (await herald.services.store.events.findOne({ account: acme.account, mail_id: m.mailId, track_type: 'track.mail.sent' }))!;
    await herald.services.store.events.deleteOne({ _id: row._id, account: acme.account });
    return { m, row };
  }
  const heldOf = (mailId: string) => herald.services.store.heldHits.find({ account: acme.account, mailId }).toArray();

  it('answers its links as any other, unsubscribes at once, and records the hits once its send is recorded', async () => {
    const { m, row } = await withoutItsRow('late@example.net');
    expect((await hit(m.pixel)).status).toBe(200);
    const click = await hit(m.clicks[1]);
    expect([click.status, click.headers.get('location')]).toEqual([302, 'https://blog.example/post?utm_source=mail']);
    expect((await hit(m.online)).status).toBe(200);
    expect(await (await hit(m.unsubscribe)).text()).toContain('late@example.net');
    expect((await hit(m.unsubscribe, { method: 'POST', body: 'reason=too_frequent', type: 'application/x-www-form-urlencoded' })).status).toBe(200);
    // The address is off the list at once; the events wait for the message's row.
    expect(await herald.services.store.suppressions.findOne({ account: acme.account, email: 'late@example.net' })).toMatchObject({ reason: 'unsubscribed' });
    expect(await eventsOf(m.mailId)).toEqual([]);
    const held = await heldOf(m.mailId);
    expect(held.map((h) => h.kind).sort()).toEqual(['click', 'online', 'open', 'unsubscribe']);

    await herald.services.store.events.insertOne(row); // the retried send records it
    await waitUntil('the held hits recorded', async () => (await heldOf(m.mailId)).length === 0);
    const types = ['track.mail.opened', 'track.mail.first_opened', 'track.mail.clicked', 'track.mail.first_clicked', 'track.mail.viewed_online', 'track.mail.unsubscribed'];
    const recorded = (await eventsOf(m.mailId)).filter((e) => e.track_type !== 'track.mail.sent');
    expect(recorded.map((e) => e.track_type).sort()).toEqual([...types].sort());
    for (const event of recorded) expectValid(SCHEMAS[event.track_type], event);
    expect(recorded.find((e) => e.track_type === 'track.mail.clicked')).toMatchObject({ url: 'https://blog.example/post', ip: LONDON });
    expect(recorded.find((e) => e.track_type === 'track.mail.unsubscribed')).toMatchObject({ reason: 'too_frequent' });

    // A sweep that stopped before removing what it recorded (its process killed), taken up by another process, records nothing twice.
    await herald.services.store.heldHits.insertMany(held);
    expect(await trackingRecorderOf(herald.services.store).held.sweep()).toBe(0);
    expect(await heldOf(m.mailId)).toEqual([]);
    expect((await eventsOf(m.mailId)).length).toBe(recorded.length + 1);
  });

  it('is a 404 once its request is gone too (history pruned), and holds nothing', async () => {
    const { m, row } = await withoutItsRow('gone@example.net');
    expect((await herald.services.store.sendRequests.deleteMany({ account: acme.account, batchId: row.batch_id })).deletedCount).toBe(1);
    for (const link of [m.pixel, m.clicks[1], m.online, m.unsubscribe]) expect([link, (await hit(link)).status]).toEqual([link, 404]);
    expect(await heldOf(m.mailId)).toEqual([]);
  });
});

describe('SMTP submissions and Herald\'s own mail', () => {
  it('an SMTP-sent copy carries the unsubscribe headers (the client\'s own replaced), and its open and online version work', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: herald.smtpPort, ignoreTLS: true, auth: { user: 'apikey', pass: acme.transactionalKey } });
    await transport.sendMail({
      from: 'app@example.com', to: ['smtp-a@example.net', 'smtp-b@example.net'], subject: 'Via SMTP',
      html: '<p>Hi ${not.substituted}</p><a href="https://shop.example/">Shop</a>', headers: { 'List-Unsubscribe': '<mailto:client@example.com>' },
    });
    transport.close();
    const mail = await mailTo('smtp-b@example.net', 'Via SMTP');
    expect(mail.parsed.headerLines.filter((h) => h.key === 'list-unsubscribe')).toHaveLength(1);
    const [sent] = await waitForEvents({ email: 'smtp-b@example.net', track_type: 'track.mail.sent' });
    expectValid(SCHEMAS['track.mail.sent'], sent);
    // The ledger row (which the links are checked against) is written beside the event: wait for both.
    await waitUntil('the ledger row', async () => (await ledgerCount(herald.services.store, { _id: sent.mail_id, account: acme.account })) === 1);
    const m = linksOf('smtp-b@example.net', sent.mail_id, mail);
    expect(m.listUnsubscribe).toMatch(/^<http.+\/t\/u\/[\w-]+\.[\w-]+>$/);
    expect(headerOf(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');

    expect((await hit(m.pixel)).status).toBe(200);
    const [open] = await eventsOf(sent.mail_id, 'track.mail.opened');
    expectValid(SCHEMAS['track.mail.opened'], open);
    expect(open).toMatchObject({ email: 'smtp-b@example.net', country: 'GB' });
    // SMTP content is not substituted (no ${urls.online_version}): the online-version token is made as the renderer makes it.
    const message = new URL(m.pixel).pathname.split('/').pop()!.split('.')[0];
    const online = await hit(`http://h/t/v/${messageToken(await trackingSecret(herald.services.store), 'v', message)}`);
    expect(online.status).toBe(200);
    expect(await online.text()).toMatch(/^<p>Hi \$\{not\.substituted\}<\/p><a href="http[^"]+\/t\/c\/[^"]+">Shop<\/a>\n?$/);
    expect((await eventsOf(sent.mail_id, 'track.mail.viewed_online'))).toHaveLength(1);
    expect((await hit(m.clicks[0])).headers.get('location')).toBe('https://shop.example/');
    expect((await hit(/^<(.+)>$/.exec(m.listUnsubscribe)![1], { method: 'POST', body: 'List-Unsubscribe=One-Click', type: 'application/x-www-form-urlencoded' })).status).toBe(200);
    expect((await eventsOf(sent.mail_id, 'track.mail.unsubscribed'))[0]?.reason).toBe('oneclick');
  });

  it('the hosted opt-in\'s confirmation mail carries no List-Unsubscribe', async () => {
    const list = await callHerald(herald.baseUrl, 'POST', `/v2/${acme.account}/lists`, { headers: { authorization: `Bearer ${acme.apiKey}` }, json: { name: 'News' } });
    const answer = await callHerald(herald.baseUrl, 'POST', `/v2/optin/${acme.account}/${list.body.data.id}`, { form: 'email=joiner%40example.net' });
    expect(answer.status).toBe(200);
    const mail = await mailTo('joiner@example.net');
    expect(headerOf(mail, 'List-Unsubscribe')).toBeUndefined();
    expect(headerOf(mail, 'List-Unsubscribe-Post')).toBeUndefined();
  });
});

async function waitForEvents(filter: Record<string, unknown>): Promise<EventDoc[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await herald.services.store.events.find({ account: acme.account, ...filter }).toArray();
    if (events.length > 0) return events;
    if (Date.now() > deadline) throw new Error(`no event ${JSON.stringify(filter)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
