// Messages as mailbox providers like them: Debian's SpamAssassin 4 (`spamassassin -L -t`: local
// tests only, no network) scores Herald's three default messages, sent through a running Herald
// and taken from the relay: a campaign (a 600-word autumn newsletter with two links, the default
// layout), an automation email and a transactional message (a shipped order, HTML only). No rule
// that Herald's own structure or headers cause may fire on any of them: a text part beside the
// HTML, List-Id on list mail, a Message-ID host that is not local, a Date, MIME as RFCs want it.
// Rules about the content the test wrote (its words, its colours) are not Herald's doing; the
// rules below are those that are.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { NewAccount } from '../../core/accounts/accounts';
import { createContent, setHtmlBody } from '../../core/campaigns/content-record';
import { createCampaign } from '../../core/campaigns/campaigns';
import { campaignApi, waitForCampaign } from '../support/campaigns';
import { startTestHerald, type TestHerald } from '../support/herald';
import { callHerald } from '../support/http';
import type { ReceivedMail } from '../support/smtp-sink';
import { waitUntil } from '../support/wait';

const execFileAsync = promisify(execFile);
const fixture = (name: string) => fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'messages', name), 'utf8');

/**
 * Rules a message's structure or headers trigger, whatever its words: what Herald composes. A rule
 * of these families firing on a default message is Herald's defect.
 */
const STRUCTURAL = [
  /^MIME_/, /^HTML_IMAGE_ONLY/, /^HTML_IMAGE_RATIO/, /^HTML_SHORT_LINK_IMG/, /^LIST_PARTIAL/, /^MSGID_/, /^MISSING_/, /^INVALID_/, /^DATE_IN_/,
  /^HEADER_/, /^FROM_/, /^TO_NO_BRKTS/, /^TVD_/, /^T_REMOTE_IMAGE/, /^PYZOR/, /^RDNS_/, /^NO_DNS/, /^HTML_MIME_NO_HTML_TAG/, /^MPART_ALT_DIFF/,
  /^BASE64_/, /^CTYPE_/, /^SUBJ_ALL_CAPS/, /^EMPTY_MESSAGE/, /^__/,
  // The default footer's words before its link ("unsubscribe here", then the link).
  /^REMOVE_BEFORE_LINK/,
];

let herald: TestHerald;
let acme: NewAccount;

beforeAll(async () => {
  // As an operator runs it: a public https URL, no MTA host of its own (the URL's host is used).
  herald = await startTestHerald({ env: { HERALD_PUBLIC_URL: 'https://mail.bakery.example.com', HERALD_MTA_HOST: '' } });
  acme = await herald.newAccount();
}, 60_000);
afterAll(() => herald?.stop());

const v2 = (method: string, route: string, json?: unknown) =>
  callHerald(herald.baseUrl, method, `/v2/${acme.account}${route}`, { json, headers: { authorization: `Bearer ${acme.apiKey}` } });

/** SpamAssassin's report of a message: each rule that fired with its points. */
async function spamRules(raw: Buffer): Promise<Array<{ rule: string; points: number }>> {
  const child = execFileAsync('spamassassin', ['-L', '-t'], { maxBuffer: 20 * 1024 * 1024, timeout: 120_000 });
  child.child.stdin!.end(raw);
  const { stdout } = await child;
  const table = stdout.slice(stdout.indexOf('---- ----'));
  return [...table.matchAll(/^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s/gm)].map((m) => ({ rule: m[2], points: Number(m[1]) }));
}

const structural = (rules: Array<{ rule: string; points: number }>) => rules.filter(({ rule, points }) => points > 0 && STRUCTURAL.some((family) => family.test(rule)));

/** The message the relay got for the address, checked for what the rules look for: a text part beside the HTML, a List-Id, a Message-ID on a public host. */
async function mailTo(email: string): Promise<ReceivedMail> {
  const mail = await waitUntil(`a message to ${email}`, async () => herald.sink.received.find((received) => received.rcptTo[0] === email));
  expect(mail.raw.toString()).toMatch(/^Content-Type: multipart\/alternative;/m);
  expect(String(mail.parsed.text).length).toBeGreaterThan(100);
  expect(mail.parsed.headerLines.find((line) => line.key === 'list-id')?.line).toBe(`List-Id: <${acme.account.toLowerCase()}.mail.bakery.example.com>`);
  expect(mail.parsed.messageId).toMatch(/^<mail_[0-9a-z]+@mail\.bakery\.example\.com>$/);
  return mail;
}

it('no rule Herald causes fires on a default campaign', async () => {
  const list = await v2('POST', '/lists', { name: 'Bakery letters' });
  expect((await v2('POST', '/contacts', { email: 'reader@example.org', firstName: 'Ada', lists: [list.body.data.id] })).status).toBe(200);
  const campaign = await createCampaign(herald.services.store, acme.account, { name: 'Autumn letter', include: { lists: [list.body.data.id] } });
  const content = await createContent(herald.services.store, campaign, { subject: 'Autumn at the bakery', from: 'letters@bakery.example.com', fromName: 'The Bakery' });
  await setHtmlBody(herald.services.store, { ...campaign, content }, content, fixture('autumn-newsletter.html'));
  const stored = (await herald.services.store.campaigns.findOne({ _id: campaign._id, account: acme.account }))!;
  await campaignApi(herald.baseUrl, acme.account, acme.apiKey).launch(stored, null);
  await waitForCampaign(herald.services.store, stored, ['SENT']);
  const rules = await spamRules((await mailTo('reader@example.org')).raw);
  expect(structural(rules)).toEqual([]);
}, 180_000);

it('no rule Herald causes fires on a default automation email', async () => {
  const activated = await v2('POST', '/integrations/customtriggers/activate');
  const triggerPath = new URL(activated.body.data.trigger_url).pathname;
  const created = await v2('POST', '/automations', {
    name: 'Welcome', trigger: { type: 'custom', key: 'signed_up' },
    steps: [{ type: 'email', subject: 'Welcome to the bakery, ${contact.first_name!"friend"}', from: 'hello@bakery.example.com', fromName: 'The Bakery', html: fixture('autumn-newsletter.html') }],
  });
  expect(created.status).toBe(201);
  expect((await v2('POST', `/automations/${created.body.data.id}/activate`)).status).toBe(200);
  const posted = await callHerald(herald.baseUrl, 'POST', triggerPath, { json: { trigger_key: 'signed_up', contact: 'new.customer@example.org', context: {} } });
  expect(posted.status).toBe(202);
  const rules = await spamRules((await mailTo('new.customer@example.org')).raw);
  expect(structural(rules)).toEqual([]);
}, 180_000);

it('no rule Herald causes fires on a default transactional message (HTML only, as most clients send it)', async () => {
  const sent = await callHerald(herald.baseUrl, 'POST', '/v1/mail/send', {
    headers: { authorization: `Bearer ${acme.transactionalKey}` },
    json: {
      from: { email: 'orders@teashop.example.com', name: 'The Tea Shop' }, subject: 'Your order 10452 has shipped',
      content: { html: fixture('shipped-order.html') },
      recipients: [{ to: { email: 'customer@example.org', name: 'Grace Hopper' }, substitutions: { order_id: '10452', name: 'Grace' } }],
    },
  });
  expect(sent.status).toBe(202);
  const rules = await spamRules((await mailTo('customer@example.org')).raw);
  expect(structural(rules)).toEqual([]);
}, 180_000);
