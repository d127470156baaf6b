// Click links of a request with a link table (a campaign send's, core/content/tracking/token.ts):
// which links are the table's, their tokens (round trip, every altered part refused) beside the
// carried links of the same request and of requests without a table.
import { contentRenderer, type MessageIdentity } from '../../core/content/personalise';
import { linkTable } from '../../core/content/tracking/rewrite';
import { linkPart, linkSignature, messagePart, messageToken, tableLinkSignature, verifyTrackingToken, type TrackedLink } from '../../core/content/tracking/token';
import type { SendRequestBody, TrackingOptions } from '../../core/transactional/request';

const secret = Buffer.alloc(32, 7);
const publicUrl = 'https://herald.example';
const identity: MessageIdentity = { account: 'acme', requestId: 'campaign-42', index: 3, mailId: 'mail_1', batchId: 'acme_campaign_42', email: 'ada@example.net' };
const ref = { account: 'acme', requestId: 'campaign-42', index: 3 };
const tracking: TrackingOptions = { open: { enable: false }, analytics: { utm_source: 'herald', utm_campaign: 'spring sale' } };

const HTML = '<a href="https://shop.example/sale" data-interests="shoes, hats">Sale</a>'
  + '<a href="https://shop.example/u/${contact.id}">Mine</a>'
  + '<a href="https://blog.example/p?x=1&amp;y=2#top" data-track-final-url>Blog</a>'
  + '<a href="https://a.example/[#if vip]vip[#else]all[/#if]">Either</a>'
  + '<a href="https://off.example/" data-track-disabled>Off</a><a href="mailto:x@example.net">Mail</a><a href="${urls.unsubscribe}">Leave</a>'
  + '[#list items as item]<a href="https://shop.example/list">${item}</a>[/#list]';

function body(html: string): SendRequestBody {
  return { from: { email: 'news@acme.example' }, subject: 'Hi', content: { html }, recipients: [{ to: { email: 'ada@example.net' } }], tracking };
}

/** The click tokens of one message's HTML, in order. */
function clickTokens(linkTableOn: boolean, message = identity, html = HTML): string[] {
  const render = contentRenderer(body(html), { publicUrl, secret, linkTable: linkTableOn });
  const out = render({ to: { email: message.email }, substitutions: { contact: { id: 7 }, items: ['a', 'b'], vip: true } }, message).html!;
  return [...out.matchAll(/href="https:\/\/herald\.example\/t\/c\/([^"]+)"/g)].map((m) => m[1]);
}

/** The link a carried click token holds. */
function carried(token: string): TrackedLink {
  const payload = verifyTrackingToken(secret, 'c', token);
  if (!payload || !('link' in payload)) throw new Error(`${token} does not carry its link`);
  return payload.link;
}

const SALE: TrackedLink = { linkId: 0, target: 'https://shop.example/sale?utm_source=herald&utm_campaign=spring%20sale', url: 'https://shop.example/sale', interests: ['shoes', 'hats'] };
const BLOG: TrackedLink = { linkId: 2, target: 'https://blog.example/p?x=1&y=2&utm_source=herald&utm_campaign=spring%20sale#top', url: 'https://blog.example/p?x=1&y=2#top', interests: [] };
const LIST: TrackedLink = { linkId: 7, target: 'https://shop.example/list?utm_source=herald&utm_campaign=spring%20sale', url: 'https://shop.example/list', interests: [] };

describe('a link table', () => {
  it('holds the click links whose href holds no tag, as a carried link reports them', () => {
    expect(linkTable(HTML, tracking, publicUrl)).toEqual([SALE, BLOG, LIST]);
    // The same fields a click on the carried link records.
    const [sale, , blog, , list] = clickTokens(false).map(carried);
    expect([sale, blog, list]).toEqual([SALE, BLOG, LIST]);
  });

  it('is empty without click tracking', () => {
    expect(linkTable(HTML, { ...tracking, click: { enable: false } }, publicUrl)).toEqual([]);
  });
});

describe('click tokens of a request with a link table', () => {
  it('name the table\'s links by link_id; links with a tag in the href carry their link', () => {
    const tokens = clickTokens(true);
    expect(tokens).toHaveLength(6); // sale, mine, blog, either, and the list's link twice
    const payloads = tokens.map((token) => verifyTrackingToken(secret, 'c', token));
    expect(payloads[0]).toEqual({ kind: 'c', message: ref, tableLink: 0 });
    expect(payloads[2]).toEqual({ kind: 'c', message: ref, tableLink: 2 });
    expect(payloads[4]).toEqual({ kind: 'c', message: ref, tableLink: 7 });
    expect(tokens[5]).toBe(tokens[4]);
    expect(carried(tokens[1])).toEqual({ linkId: 1, target: 'https://shop.example/u/7?utm_source=herald&utm_campaign=spring%20sale', url: 'https://shop.example/u/${contact.id}', interests: [] });
    expect(carried(tokens[3])).toMatchObject({ linkId: 3, target: 'https://a.example/vip?utm_source=herald&utm_campaign=spring%20sale' });
  });

  it('are short: the message\'s half, then the link_id and its signature', () => {
    const [sale] = clickTokens(true);
    const [message, messageSig, linkId, linkSig] = sale.split('.');
    expect(`${message}.${messageSig}`).toBe(messageToken(secret, 'c', messagePart(ref)));
    expect(linkId).toBe('0');
    expect(linkSig).toBe(tableLinkSignature(secret, 'acme', 'campaign-42', '0'));
    expect(`${publicUrl}/t/c/${sale}`.length).toBeLessThan(130);
    expect(`${publicUrl}/t/c/${clickTokens(false)[0]}`.length).toBeGreaterThan(250);
  });

  it('share the link half across the request\'s messages', () => {
    const linkHalf = (token: string) => token.split('.').slice(2).join('.');
    const [a, b] = [clickTokens(true), clickTokens(true, { ...identity, index: 4, email: 'bob@example.net' })];
    expect(a.map(linkHalf)).toEqual(b.map(linkHalf));
    expect(a[0]).not.toBe(b[0]);
  });

  it('refuse every altered part', () => {
    const [message, messageSig, linkId, linkSig] = clickTokens(true)[0].split('.');
    const otherMessage = messagePart({ ...ref, index: 4 });
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const forged of [
      [otherMessage, messageSig, linkId, linkSig], [message, flip(messageSig), linkId, linkSig],
      [message, messageSig, '2', linkSig], [message, messageSig, '99', linkSig], [message, messageSig, linkId, flip(linkSig)],
      [message, messageSig, linkId, linkSig.slice(0, -1)], [message, messageSig, linkId], [message, messageSig, linkId, linkSig, ''],
    ]) expect(verifyTrackingToken(secret, 'c', forged.join('.'))).toBeNull();
    expect(verifyTrackingToken(Buffer.alloc(32, 8), 'c', [message, messageSig, linkId, linkSig].join('.'))).toBeNull();
  });

  it('refuse a link_id signed for another request, or for the same request id of another account', () => {
    const [message, messageSig] = clickTokens(true)[0].split('.');
    expect(verifyTrackingToken(secret, 'c', `${message}.${messageSig}.0.${tableLinkSignature(secret, 'acme', 'campaign-43', '0')}`)).toBeNull();
    expect(verifyTrackingToken(secret, 'c', `${message}.${messageSig}.0.${tableLinkSignature(secret, 'other', 'campaign-42', '0')}`)).toBeNull();
    // Nor is a table link's signature one of a carried link, or the other way round.
    expect(verifyTrackingToken(secret, 'c', `${message}.${messageSig}.0.${linkSignature(secret, 'campaign-42', '0')}`)).toBeNull();
    const link = linkPart(SALE);
    expect(verifyTrackingToken(secret, 'c', `${message}.${messageSig}.${link}.${tableLinkSignature(secret, 'acme', 'campaign-42', link)}`)).toBeNull();
  });

  it('take a link_id only in decimal without leading zeros, whatever it is signed with', () => {
    const [message, messageSig] = clickTokens(true)[0].split('.');
    for (const id of ['00', '01', '+1', '-1', '1e1', ' 1', '0x1', '1234567890']) {
      expect(verifyTrackingToken(secret, 'c', `${message}.${messageSig}.${id}.${tableLinkSignature(secret, 'acme', 'campaign-42', id)}`)).toBeNull();
    }
  });

  it('leave the carried tokens of the request (mail already sent) valid', () => {
    const [sale] = clickTokens(false);
    expect(verifyTrackingToken(secret, 'c', sale)).toEqual({ kind: 'c', message: ref, link: SALE });
  });
});
