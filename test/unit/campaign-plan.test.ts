// A campaign's content planned into messages (core/campaigns/plan.ts): what its options put in the
// HTML, the personalisation model, the headers, and that a plan compiles and composes once.
import { simpleParser } from 'mailparser';
import { planCampaign, hasUnsubscribeLink } from '../../core/campaigns/plan';
import { campaignBatchId, campaignMailId, campaignRequestId, DEFAULT_UNSUBSCRIBE_TEXT } from '../../core/campaigns/model';
import type { CampaignContentDoc, CampaignDoc, CampaignRecipient, FieldDoc } from '../../adapters/store/store';
import { verifyTrackingToken, type TrackedLink } from '../../core/content/tracking/token';

// Counting wrappers around pure code (no store, no Temporal here): how often the MIME is composed
// and how often an HTML content is compiled.
jest.mock('../../core/sending/mime-splice', () => {
  const actual = jest.requireActual('../../core/sending/mime-splice');
  return { ...actual, buildSkeleton: jest.fn(actual.buildSkeleton) };
});
jest.mock('../../core/content/dialect/dialect', () => {
  const actual = jest.requireActual('../../core/content/dialect/dialect');
  return { ...actual, compileTemplate: jest.fn(actual.compileTemplate) };
});
// The mocked modules, to read their counters.
const { buildSkeleton } = require('../../core/sending/mime-splice') as { buildSkeleton: jest.Mock };
const { compileTemplate } = require('../../core/content/dialect/dialect') as { compileTemplate: jest.Mock };

const links = { publicUrl: 'https://t.herald.test', secret: Buffer.alloc(32, 7) };
/** The link tables plans saved, by `<account>:<request id>` (the store's linkTables, in memory: pure code here). */
const tables = new Map<string, TrackedLink[]>();
const linkTables = { save: async (account: string, requestId: string, saved: readonly TrackedLink[]) => void tables.set(`${account}:${requestId}`, [...saved]) };
const context = { mtaHost: 'mx.herald.test', links, linkTables };
const ALL_ON = {
  TRACK_LINKS: '1', ANALYTICS: '1', ANALYTICS_CAMPAIGN_NAME: '', VIEW_ONLINE: '1',
  SHARE_NETWORK_1: '1', SHARE_NETWORK_2: '1', SHARE_NETWORK_3: '1', SHARE_FORWARD: '1',
};
const field: FieldDoc = { _id: 'acme:10', account: 'acme', id: 10, name: 'Número de cliente', tag: 'NUMERODECLIENTE', format: 'TEXT', created: new Date(), lastModified: new Date() };
let unique = 0;

function contentOf(overrides: Partial<CampaignContentDoc> = {}): CampaignContentDoc {
  unique += 1; // each test's HTML is a new source: compilation counts start from nothing
  return {
    id: 1, type: 'HTML', subject: 'News for ${contact.first_name!"you"}', from: 'news@acme.test', fromName: 'Acme News',
    replyTo: '', replyToName: '', unsubscribeText: '',
    html: `<html><head><title>t${unique}</title></head><body class="x"><p>Hello \${contact.first_name!"friend"}, client \${contact.NUMERODECLIENTE} / \${contact.numerodecliente}</p>` +
      '<a href="https://shop.test/p?id=1">Shop</a></body></html>',
    text: null, created: new Date(), lastModified: new Date(), ...overrides,
  };
}

function campaignOf(options: Record<string, string> = ALL_ON, content = contentOf()): CampaignDoc {
  return {
    _id: 'acme:42', account: 'acme', id: 42, name: 'Spring sale', description: '', tags: ['spring'], type: 'SIMPLE', state: 'SENDING',
    launchMode: 'NOW', launchDate: null, created: new Date(), lastModified: new Date(), archived: null, thumbnail: null, options,
    include: { lists: [1], interests: [], campaigns: [] }, exclude: { lists: [], interests: [], campaigns: [] }, content, recipients: null,
  };
}

function row(seq: number, overrides: Partial<CampaignRecipient> = {}): CampaignRecipient {
  return {
    seq, contactId: 100 + seq, email: `p${seq}@example.net`,
    firstName: 'Ada', lastName: 'Lovelace', gender: 'F', language: 'en', customFields: { 10: `C-${seq}` }, ...overrides,
  };
}

async function sent(campaign: CampaignDoc, recipient = row(0), round = 0) {
  const plan = await planCampaign(campaign, [field], context, round);
  const message = plan.message(recipient);
  const raw = message.raw();
  return { plan, message, raw, mail: await simpleParser(raw) };
}

beforeEach(() => { buildSkeleton.mockClear(); compileTemplate.mockClear(); });

it('personalises with the contact: built-in fields, custom fields by tag and lower-case tag, fallbacks', async () => {
  const { mail } = await sent(campaignOf());
  expect(mail.html).toContain('Hello Ada, client C-0 / C-0');
  expect(mail.subject).toBe('News for Ada');
  expect(mail.to).toMatchObject({ value: [{ name: 'Ada Lovelace', address: 'p0@example.net' }] });
  expect(mail.from?.value).toEqual([{ name: 'Acme News', address: 'news@acme.test' }]);
  // No first name: the `!` fallback shows; no name at all: the address alone.
  const anonymous = await sent(campaignOf(), row(1, { firstName: '', lastName: '', customFields: {} }));
  expect(anonymous.mail.html).toContain('Hello friend, client  / ');
  expect(anonymous.mail.subject).toBe('News for you');
  expect(anonymous.mail.to).toMatchObject({ value: [{ name: '', address: 'p1@example.net' }] });
});

it('names the message after the campaign: mail_id, request and batch ids, tags, mail_type, Message-ID, List-Unsubscribe', async () => {
  const { message, mail, raw } = await sent(campaignOf(), row(7), 2);
  expect(message.mailId).toBe(campaignMailId('acme', 42, 7, 2));
  expect(campaignMailId('acme', 42, 7, 2)).not.toBe(campaignMailId('other', 42, 7, 2)); // the ledger's _id is global
  expect(message.requestId).toBe(campaignRequestId(42, 2));
  expect(message.subject).toMatchObject({
    account: 'acme', batch_id: campaignBatchId('acme', 42), mail_id: message.mailId, email: 'p7@example.net', tags: ['spring'],
    custom_args: {}, mail_type: 'campaign', mta: 'mx.herald.test',
  });
  expect(mail.messageId).toBe(`<${message.mailId}@mx.herald.test>`);
  const unsubscribe = /^List-Unsubscribe:\s*<([^>]+)>/m.exec(raw.toString())![1];
  expect(raw.toString()).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
  // The links sign [account, campaign request id of the round, seq] and that the mail_id is the round's prefix and seq:
  // the tracking endpoints find the ledger row by its mail_id.
  const token = unsubscribe.slice(`${links.publicUrl}/t/u/`.length);
  expect(verifyTrackingToken(links.secret, 'u', token)?.message).toEqual({ account: 'acme', requestId: campaignRequestId(42, 2), index: 7, seqMailId: true });
});

it('with every option on: header links, footer, tracked clicks with utm parameters, the open pixel', async () => {
  const { mail } = await sent(campaignOf());
  const html = String(mail.html);
  // The header right after <body…>, the footer right before </body>.
  expect(html).toMatch(/<body class="x">\n<div class="herald-header"/);
  expect(html).toMatch(/<div class="herald-footer"[^>]*><a href="https:\/\/t\.herald\.test\/t\/u\/[^"]+"[^>]*>To stop receiving these emails, unsubscribe here\.<\/a><\/div>\s*<div [^>]*\/t\/o\/[^>]*>&nbsp;<\/div><\/body>/);
  expect(html).toContain(`>${DEFAULT_UNSUBSCRIBE_TEXT}</a>`);
  expect(html).toMatch(/href="https:\/\/t\.herald\.test\/t\/v\/[^"]+"[^>]*>View this email online/);
  for (const network of ['facebook', 'twitter', 'linkedin']) expect(html).toMatch(new RegExp(`href="https://t\\.herald\\.test/t/s/${network}/`));
  // Forward: the reader's mail client with the recipient's subject and the online version, URL-encoded.
  const forward = /href="(mailto:[^"]+)"/.exec(html)![1].replace(/&amp;/g, '&');
  const query = new URLSearchParams(forward.slice('mailto:?'.length));
  expect(query.get('subject')).toBe('News for Ada');
  expect(query.get('body')).toMatch(/^https:\/\/t\.herald\.test\/t\/v\//);
  // The shop link goes through a click token naming its entry of the request's link table, whose target carries the utm
  // parameters (utm_campaign: the name by default).
  const click = /href="(https:\/\/t\.herald\.test\/t\/c\/[^"]+)"/.exec(html)![1];
  const payload = verifyTrackingToken(links.secret, 'c', click.slice(`${links.publicUrl}/t/c/`.length));
  // Its link_id counts the header's links (online version, shares, forward) before it.
  expect(payload).toMatchObject({ message: { account: 'acme', requestId: campaignRequestId(42), index: 0 }, tableLink: 5 });
  expect(tables.get(`acme:${campaignRequestId(42)}`)).toEqual([
    { linkId: 5, target: 'https://shop.test/p?id=1&utm_source=herald&utm_medium=email&utm_campaign=Spring%20sale', url: 'https://shop.test/p?id=1', interests: [] },
  ]);
  expect(html).toMatch(/background-image:url\('https:\/\/t\.herald\.test\/t\/o\//);
});

it('saves its round\'s link table before it is ready; links with a substitution in the href carry their link', async () => {
  const content = contentOf({ html: '<body><a href="https://shop.test/sale">Sale</a> <a href="https://shop.test/c/${contact.NUMERODECLIENTE}">Mine</a></body>' });
  let stored: () => void = () => undefined;
  const saved: string[] = [];
  const slow = { save: (account: string, requestId: string) => new Promise<void>((resolve) => { saved.push(`${account}:${requestId}`); stored = resolve; }) };
  let ready = false;
  const planned = planCampaign(campaignOf(ALL_ON, content), [field], { ...context, linkTables: slow }, 3).then((plan) => { ready = true; return plan; });
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(saved).toEqual([`acme:${campaignRequestId(42, 3)}`]);
  expect(ready).toBe(false); // no message before the table is stored
  stored();
  const html = String((await simpleParser((await planned).message(row(1)).raw())).html);
  const clicks = [...html.matchAll(/href="https:\/\/t\.herald\.test\/t\/c\/([^"]+)"/g)].map((m) => verifyTrackingToken(links.secret, 'c', m[1].replace(/&amp;/g, '&')));
  expect(clicks.slice(-2)).toEqual([
    { kind: 'c', message: { account: 'acme', requestId: campaignRequestId(42, 3), index: 1, seqMailId: true }, tableLink: 5 },
    {
      kind: 'c', message: { account: 'acme', requestId: campaignRequestId(42, 3), index: 1, seqMailId: true },
      link: { linkId: 6, target: 'https://shop.test/c/C-1?utm_source=herald&utm_medium=email&utm_campaign=Spring%20sale', url: 'https://shop.test/c/${contact.NUMERODECLIENTE}', interests: [] },
    },
  ]);
});

it('with the options off: no header, no footer, links as written, and an analytics name of its own when given', async () => {
  const off = { TRACK_LINKS: '0', ANALYTICS: '0', VIEW_ONLINE: '0', SHARE_NETWORK_1: '0', SHARE_NETWORK_2: '0', SHARE_NETWORK_3: '0', SHARE_FORWARD: '0', USE_FOOTER: '0' };
  const html = String((await sent(campaignOf(off))).mail.html);
  expect(html).not.toContain('herald-header');
  expect(html).not.toContain('herald-footer');
  expect(html).not.toContain('/t/c/');
  expect(html).toContain('<a href="https://shop.test/p?id=1">Shop</a>');
  expect(html).toMatch(/\/t\/o\//); // opens are always tracked

  // Links on but USE_HEADER 0: no header; analytics without click tracking rewrites the href itself.
  const noHeader = String((await sent(campaignOf({ ...ALL_ON, USE_HEADER: '0', TRACK_LINKS: '0', ANALYTICS_CAMPAIGN_NAME: 'spring-2026' }))).mail.html);
  expect(noHeader).not.toContain('herald-header');
  expect(noHeader).toContain('href="https://shop.test/p?id=1&amp;utm_source=herald&amp;utm_medium=email&amp;utm_campaign=spring-2026"');
  expect(noHeader).toContain('herald-footer');

  // Only VIEW_ONLINE: a header with that one link.
  const viewOnly = String((await sent(campaignOf({ ...off, VIEW_ONLINE: '1' }))).mail.html);
  expect(viewOnly.match(/<div class="herald-header"[^>]*>([\s\S]*?)<\/div>/)![1].trim()).toMatch(/^<a href="https:\/\/t\.herald\.test\/t\/v\/[^"]+"[^>]*>View this email online<\/a>$/);
});

it('puts the layout first and last in HTML without a body element, escapes the unsubscribe text, and adds a text footer', async () => {
  const content = contentOf({ html: '<p>Bare ${contact.first_name}</p>', text: 'Hi ${contact.first_name}', unsubscribeText: 'Leave <now> & ${contact.email}' });
  const { mail } = await sent(campaignOf(ALL_ON, content));
  const html = String(mail.html);
  expect(html.trimStart().startsWith('<div class="herald-header"')).toBe(true);
  expect(html).toContain('<p>Bare Ada</p>\n<div class="herald-footer"');
  // The campaign's own text is shown as written, never read as a template.
  expect(html).toContain('>Leave &lt;now&gt; &amp; ${contact.email}</a>');
  expect(mail.text).toMatch(/^Hi Ada\n\n-- \nLeave <now> & \$\{contact\.email\} https:\/\/t\.herald\.test\/t\/u\/\S+\n?$/);
});

it('never lets CR or LF reach a header', async () => {
  const content = contentOf({ subject: 'Hi ${contact.first_name}\r\nBcc: x@evil.test', fromName: 'Acme\r\nX-Evil: 1', replyTo: 'help@acme.test', replyToName: 'Help\nX-Evil: 2' });
  const { raw, mail } = await sent(campaignOf(ALL_ON, content), row(0, { firstName: 'Ada\r\nX-Injected: 1', lastName: 'L\nX-Also: 1' }));
  const head = raw.toString().slice(0, raw.indexOf('\r\n\r\n'));
  expect(head).not.toMatch(/^(X-Evil|X-Injected|X-Also|Bcc):/im);
  expect(mail.subject).toBe('Hi Ada X-Injected: 1 Bcc: x@evil.test');
  expect(mail.replyTo?.value).toEqual([{ name: 'Help X-Evil: 2', address: 'help@acme.test' }]);
});

it('compiles the content and composes the MIME once per plan, not per recipient', async () => {
  const campaign = campaignOf({ ...ALL_ON }, contentOf({ text: 'Hi ${contact.first_name}' }));
  const plan = await planCampaign(campaign, [field], context);
  const raws = [0, 1, 2].map((seq) => plan.message(row(seq, { firstName: `F${seq}` })).raw().toString());
  expect(buildSkeleton).toHaveBeenCalledTimes(1);
  // The HTML content (with its layout) compiled once, for the tracking rewrite.
  expect(compileTemplate).toHaveBeenCalledTimes(1);
  // One skeleton: every copy shares its multipart boundary.
  const boundaries = raws.map((raw) => /boundary="([^"]+)"/.exec(raw)![1]);
  expect(new Set(boundaries).size).toBe(1);
  expect(raws.map((raw) => /Hi (F\d)/.exec(raw)![1])).toEqual(['F0', 'F1', 'F2']);
  // The layout keeps lines short: the HTML goes as it is, not base64.
  expect(raws[0]).toMatch(/Content-Type: text\/html; charset=utf-8\r\nContent-Transfer-Encoding: 7bit/);
  // Another plan of the same campaign (the next page) finds the compilation cached.
  await planCampaign(campaign, [field], context);
  expect(compileTemplate).toHaveBeenCalledTimes(1);
  expect(buildSkeleton).toHaveBeenCalledTimes(2);
});

it('knows whether the message carries an unsubscribe link', () => {
  const content = contentOf();
  expect(hasUnsubscribeLink(content, ALL_ON)).toBe(true);
  expect(hasUnsubscribeLink(content, { ...ALL_ON, USE_FOOTER: '0' })).toBe(false);
  expect(hasUnsubscribeLink({ ...content, html: '<a href="${ urls.unsubscribe }">bye</a>' }, { USE_FOOTER: '0' })).toBe(true);
  expect(hasUnsubscribeLink({ ...content, html: null }, { USE_FOOTER: '0' })).toBe(false);
});
