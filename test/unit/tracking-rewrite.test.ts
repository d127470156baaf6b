import { contentRenderer, type MessageIdentity } from '../../core/content/personalise';
import type { Recipient, SendRequestBody, TrackingOptions } from '../../core/transactional/request';
import { linkPart, linkSignature, sign, verifyTrackingToken, type TrackedLink } from '../../core/content/tracking/token';

const secret = Buffer.alloc(32, 7);
const links = { publicUrl: 'https://herald.example', secret };
const identity: MessageIdentity = { account: 'demo', requestId: 'req1', index: 0, mailId: 'mail_1', batchId: 'demo_transactional_req1', email: 'ada@example.net' };
/** What the tokens carry of it: the rest is found in the stored request. */
const ref = { account: identity.account, requestId: identity.requestId, index: identity.index };

function body(html: string, tracking?: TrackingOptions, extra: Partial<SendRequestBody> = {}): SendRequestBody {
  return { from: { email: 'shop@example.com' }, subject: 'Hello', content: { html }, recipients: [{ to: { email: 'ada@example.net' } }], ...(tracking ? { tracking } : {}), ...extra };
}

/** The HTML one recipient gets. */
function rendered(html: string, tracking?: TrackingOptions, substitutions: Record<string, unknown> = {}, message = identity): string {
  const request = body(html, tracking);
  const recipient: Recipient = { to: { email: message.email }, substitutions };
  return contentRenderer(request, links)(recipient, message).html!;
}

const CLICK = /https:\/\/herald\.example\/t\/c\/([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/;
/** The pixel of a content with images of its own, and of one without (a background image). */
const PIXEL_IMG = /<img src="https:\/\/herald\.example\/t\/o\/([^"]+)" width="1" height="1" alt="" border="0" style="[^"]*" \/>/;
const PIXEL_DIV = /<div style="width:1px;height:1px;line-height:1px;font-size:1px;background-image:url\('https:\/\/herald\.example\/t\/o\/([^']+)'\)">&nbsp;<\/div>/;
const PIXEL = new RegExp(`${PIXEL_IMG.source}|${PIXEL_DIV.source}`);
/** The pixel's token. */
const pixelToken = (html: string) => { const match = PIXEL.exec(html)!; return match[1] ?? match[2]; };

/** The hrefs of `html`, in order. */
const hrefs = (html: string) => [...html.matchAll(/href=(?:"([^"]*)"|'([^']*)')/g)].map((m) => m[1] ?? m[2]);

/** The link a click href carries, verified. */
function clickOf(href: string): TrackedLink {
  const token = CLICK.exec(href)?.[1];
  expect(token).toBeDefined();
  const payload = verifyTrackingToken(secret, 'c', token!);
  expect(payload?.message).toEqual(ref);
  if (!payload || !('link' in payload)) throw new Error(`${href} does not carry its link`);
  return payload.link;
}

const noTracking: TrackingOptions = { open: { enable: false }, click: { enable: false } };

describe('open pixel', () => {
  it('goes just before </body>, with a token of the message', () => {
    const html = rendered('<html><body><p>Hi</p>\n</body></html>');
    expect(html).toMatch(new RegExp(`^<html><body><p>Hi</p>\n(${PIXEL.source})</body></html>$`));
    expect(verifyTrackingToken(secret, 'o', pixelToken(html))).toEqual({ kind: 'o', message: ref });
  });

  it('is an <img> beside images of the content, else a background image (a lone image beside little text is counted against a message)', () => {
    expect(rendered('<body><img src="https://shop.example/logo.png" alt="Shop"><p>Hi</p></body>')).toMatch(new RegExp(`<p>Hi</p>${PIXEL_IMG.source}</body>$`));
    const without = rendered('<body><p>Hi</p></body>');
    expect(without).toMatch(new RegExp(`<p>Hi</p>${PIXEL_DIV.source}</body>$`));
    expect(without).not.toContain('<img');
  });

  it('goes at the end when there is no </body>, whatever the case of the tag', () => {
    expect(rendered('<p>Hi</p>')).toMatch(new RegExp(`^<p>Hi</p>(${PIXEL.source})$`));
    expect(rendered('<HTML><BODY>x</BODY></HTML>')).toMatch(new RegExp(`^<HTML><BODY>x(${PIXEL.source})</BODY></HTML>$`));
  });

  it('is absent when open tracking is off', () => {
    expect(rendered('<body>x</body>', { open: { enable: false } })).toBe('<body>x</body>');
  });

  it('is found by the HTML parser, not by text search: a </body> in a comment or script is not it', () => {
    const html = rendered('<body><!-- </body> --><script>"</body>"</script>x</body>');
    expect(html.search(PIXEL)).toBe(html.lastIndexOf('</body>') - html.match(PIXEL)![0].length);
  });
});

describe('click tracking', () => {
  it('replaces every http(s) href with a signed click link that reports the template href and redirects to the substituted URL', () => {
    const html = rendered('<body><a href="https://shop.example/orders/${order.id}">o</a> <area href="http://map.example/">', undefined, { order: { id: 'A 1' } });
    const [first, second] = hrefs(html);
    expect(clickOf(first)).toEqual({ linkId: 0, target: 'https://shop.example/orders/A%201', url: 'https://shop.example/orders/${order.id}', interests: [] });
    expect(clickOf(second)).toEqual({ linkId: 1, target: 'http://map.example/', url: 'http://map.example/', interests: [] });
  });

  it('reports the substituted URL with data-track-final-url, and removes the attribute', () => {
    const html = rendered('<a data-track-final-url href="https://shop.example/${id}">x</a>', { open: { enable: false } }, { id: 'A1' });
    expect(html).toMatch(/^<a href="[^"]+">x<\/a>$/);
    expect(clickOf(hrefs(html)[0])).toMatchObject({ target: 'https://shop.example/A1', url: 'https://shop.example/A1' });
  });

  it('carries data-interests (comma-separated, trimmed) and removes the attribute', () => {
    const html = rendered('<a href="https://a.example/" data-interests=" shoes,hats , ,">x</a>', { open: { enable: false } });
    expect(html).toMatch(/^<a href="[^"]+">x<\/a>$/);
    expect(clickOf(hrefs(html)[0]).interests).toEqual(['shoes', 'hats']);
  });

  it('leaves a link with data-track-disabled unwrapped (but utm parameters still apply), and removes the attribute', () => {
    const html = rendered('<a href="https://a.example/x" data-track-disabled>x</a>', { open: { enable: false }, analytics: { utm_source: 'news' } });
    expect(html).toBe('<a href="https://a.example/x?utm_source=news">x</a>');
    expect(rendered('<a data-track-disabled="true" href="https://a.example/x">x</a>', noTracking)).toBe('<a href="https://a.example/x">x</a>');
  });

  it('wraps nothing when click tracking is off', () => {
    expect(rendered('<a href="https://a.example/">x</a>', { click: { enable: false }, open: { enable: false } })).toBe('<a href="https://a.example/">x</a>');
  });

  it.each([
    ['mailto:ada@example.net'], ['tel:+441234'], ['#top'], ['/relative/path'], ['//cdn.example/x'], ['javascript:alert(1)'], ['JaVaScRiPt:alert(1)'], ['data:text/html,x'], [''], ['https://'],
  ])('leaves %j exactly as written, without utm parameters', (href) => {
    const html = `<a href="${href}">x</a>`;
    expect(rendered(html, { open: { enable: false }, analytics: { utm_source: 'news' } })).toBe(html);
  });

  it('never wraps Herald\'s own links: ${urls.unsubscribe} and ${urls.online_version}', () => {
    const html = rendered('<a href="${urls.unsubscribe}">u</a><a href="${urls.online_version}">v</a>', { open: { enable: false }, analytics: { utm_source: 'news' } });
    const [unsubscribe, online] = hrefs(html);
    expect(unsubscribe).toMatch(/^https:\/\/herald\.example\/t\/u\/[\w-]+\.[\w-]+$/);
    expect(online).toMatch(/^https:\/\/herald\.example\/t\/v\/[\w-]+\.[\w-]+$/);
  });

  it('numbers links in source order, skipped ones included', () => {
    const source = '<a href="mailto:x@y.z">m</a>[#if a]<a href="https://a.example/?[/#if]">a</a><a href="https://b.example/">b</a><map><area href="https://c.example/"></map>';
    const ids = hrefs(rendered(source, { open: { enable: false } }, { a: true })).filter((h) => CLICK.test(h)).map((h) => clickOf(h).linkId);
    expect(ids).toEqual([2, 3]);
  });

  it('tracks a misnested link once: one tag in the source, though the parser reopens it as two elements', () => {
    // `</p>` closes the <a> inside it, and the text after it gets a reopened copy of that <a>.
    const source = '<p><a href="https://a.example/">one</p>two</a> <b><a href="https://b.example/">x</b>y</a> <a href="https://c.example/">c</a>';
    const html = rendered(source, { open: { enable: false } });
    const tracked = hrefs(html).filter((h) => CLICK.test(h)).map((h) => clickOf(h));
    expect(tracked.map((link) => [link.linkId, link.target])).toEqual([[0, 'https://a.example/'], [1, 'https://b.example/'], [2, 'https://c.example/']]);
    expect(html.replace(/href="[^"]*"/g, 'href')).toBe('<p><a href>one</p>two</a> <b><a href>x</b>y</a> <a href>c</a>');
  });

  it('gives each item of a [#list] its own link, with the loop variable substituted', () => {
    const source = '<ul>[#list items as item]<li><a href="${item.url}?i=${item?index}">${item.name}</a></li>[/#list]</ul>';
    const html = rendered(source, { open: { enable: false } }, { items: [{ url: 'https://a.example/1', name: 'one' }, { url: 'https://b.example/2', name: 'two' }] });
    expect(hrefs(html).map((h) => clickOf(h))).toEqual([
      { linkId: 0, target: 'https://a.example/1?i=0', url: '${item.url}?i=${item?index}', interests: [] },
      { linkId: 0, target: 'https://b.example/2?i=1', url: '${item.url}?i=${item?index}', interests: [] },
    ]);
    expect(html).toContain('>one</a></li><li><a href="');
  });

  it('handles links whose href is built with directives', () => {
    const source = '<a href="https://a.example/[#if vip]vip[#else]all[/#if]">x</a>';
    expect(clickOf(hrefs(rendered(source, { open: { enable: false } }, { vip: true }))[0]).target).toBe('https://a.example/vip');
    expect(clickOf(hrefs(rendered(source, { open: { enable: false } }, {}))[0]).target).toBe('https://a.example/all');
  });

  it('reads quotes and > inside tags as the template language, not as HTML', () => {
    const source = '<a href="${site!"https://a.example/"}" title="${n > 1}">x</a>[#if n > 1]<a href=\'https://b.example/?q="\'>y</a>[/#if]';
    const html = rendered(source, { open: { enable: false } }, { n: 2 });
    expect(hrefs(html).map((h) => clickOf(h).target)).toEqual(['https://a.example/', 'https://b.example/?q=%22']);
  });

  it('reads attributes as the HTML tokenizer does: no space between them, spaces around =', () => {
    const html = rendered('<a href="https://a.example/"data-interests="x"data-track-final-url>a</a><a href = \'https://b.example/\'data-track-disabled>b</a>', { open: { enable: false } });
    expect(html).toMatch(/^<a href="[^"]+">a<\/a><a href = 'https:\/\/b.example\/'>b<\/a>$/);
    expect(clickOf(hrefs(html)[0])).toMatchObject({ target: 'https://a.example/', interests: ['x'] });
  });

  it('leaves a link untracked when a directive crosses its href (the output is the plain rendering)', () => {
    const source = '[#if a]<a href="https://a.example/?x=[/#if]1">x</a>';
    expect(rendered(source, { open: { enable: false } }, { a: true })).toBe('<a href="https://a.example/?x=1">x</a>');
  });

  it('signs each link part once per request: every message of the request carries the same one', () => {
    const request = body('<a href="https://a.example/">x</a>', { open: { enable: false } }, { recipients: [{ to: { email: 'a@x.example' } }, { to: { email: 'b@x.example' } }] });
    const render = contentRenderer(request, links);
    const [a, b] = request.recipients.map((r, index) => hrefs(render(r, { ...identity, index, email: r.to.email }).html!)[0]);
    const linkHalf = (href: string) => CLICK.exec(href)![1].split('.').slice(2).join('.');
    expect(linkHalf(a)).toBe(linkHalf(b));
    expect(a).not.toBe(b);
  });
});

describe('utm parameters', () => {
  const utm = (href: string, analytics: TrackingOptions['analytics']) => hrefs(rendered(`<a href="${href}">x</a>`, { ...noTracking, analytics }))[0];
  const all = { utm_source: 'news', utm_medium: 'email', utm_campaign: 'spring sale', utm_content: 'a&b', utm_term: 'é' };

  it('adds every parameter that has a value, encoded, in a fixed order', () => {
    expect(utm('https://a.example/p', all)).toBe('https://a.example/p?utm_source=news&amp;utm_medium=email&amp;utm_campaign=spring%20sale&amp;utm_content=a%26b&amp;utm_term=%C3%A9');
  });

  it('skips parameters without a value', () => {
    expect(utm('https://a.example/p', { utm_source: 'news', utm_medium: '', utm_campaign: undefined })).toBe('https://a.example/p?utm_source=news');
    expect(utm('https://a.example/p', {})).toBe('https://a.example/p');
  });

  it('goes after the existing query and before the fragment', () => {
    expect(utm('https://a.example/p?x=1&amp;y=2#part', { utm_source: 'news' })).toBe('https://a.example/p?x=1&amp;y=2&amp;utm_source=news#part');
    expect(utm('https://a.example/p#part?no', { utm_source: 'news' })).toBe('https://a.example/p?utm_source=news#part?no');
    expect(utm('https://a.example/p?', { utm_source: 'news' })).toBe('https://a.example/p?utm_source=news');
  });

  it('never overrides a parameter the link already has', () => {
    expect(utm('https://a.example/p?utm_source=site&amp;x=1', { utm_source: 'news', utm_medium: 'email' })).toBe('https://a.example/p?utm_source=site&amp;x=1&amp;utm_medium=email');
    expect(utm('https://a.example/p?utm_source=', { utm_source: 'news' })).toBe('https://a.example/p?utm_source=');
  });

  it('applies to tracked links too: the click redirects with them, and reports the URL without them', () => {
    const html = rendered('<a href="https://a.example/p?utm_term=kept#f">x</a>', { open: { enable: false }, analytics: { utm_source: 'news', utm_term: 'mine' } });
    expect(clickOf(hrefs(html)[0])).toMatchObject({ target: 'https://a.example/p?utm_term=kept&utm_source=news#f', url: 'https://a.example/p?utm_term=kept#f' });
  });

  it('applies only to the HTML content', () => {
    const request = { ...body('<a href="https://a.example/">x</a>', { analytics: { utm_source: 'news' } }), content: { html: '<p></p>', text: 'See https://a.example/' } };
    expect(contentRenderer(request, links)(request.recipients[0], identity).text).toBe('See https://a.example/');
  });
});

describe('${urls.*}', () => {
  it('are the message\'s signed links in every field', () => {
    const request: SendRequestBody = {
      ...body('<p>${urls.online_version}</p>', noTracking),
      subject: 'Hi ${urls.unsubscribe}',
      content: { html: '<p>${urls.online_version}</p>', text: 'Unsubscribe: ${urls.unsubscribe}' },
      headers: { 'X-View': '${urls.online_version}' },
      substitutions: { urls: { shop: 'https://shop.example/' } },
    };
    const copy = contentRenderer(request, links)(request.recipients[0], identity);
    const unsubscribe = /https:\/\/herald\.example\/t\/u\/(\S+)/.exec(copy.text!)![1];
    const online = /https:\/\/herald\.example\/t\/v\/([^<]+)/.exec(copy.html!)![1];
    expect(verifyTrackingToken(secret, 'u', unsubscribe)).toEqual({ kind: 'u', message: ref });
    expect(verifyTrackingToken(secret, 'v', online)).toEqual({ kind: 'v', message: ref });
    expect(copy.subject).toBe(`Hi https://herald.example/t/u/${unsubscribe}`);
    expect(copy.headers).toEqual({ 'X-View': `https://herald.example/t/v/${online}` });
  });

  it('keep the other keys of a client\'s own urls object', () => {
    const request = { ...body('${urls.shop} ${urls.unsubscribe}', noTracking), substitutions: { urls: { shop: 'S' } } };
    expect(contentRenderer(request, links)(request.recipients[0], identity).html).toMatch(/^S https:\/\/herald\.example\/t\/u\//);
  });
});

describe('attribute safety', () => {
  it('keeps a hostile value inside the href: escaped when left, inside the token when wrapped', () => {
    const evil = 'https://a.example/" onmouseover="alert(1)';
    const html = rendered('<a href="${u}">x</a><a href="${u?no_esc}">y</a>', { open: { enable: false } }, { u: evil });
    expect(html).toMatch(/^<a href="[^"<> ]+">x<\/a><a href="[^"<> ]+">y<\/a>$/);
    expect(hrefs(html).map((h) => clickOf(h).target)).toEqual(['https://a.example/%22%20onmouseover=%22alert(1)', 'https://a.example/%22%20onmouseover=%22alert(1)']);
    const left = rendered('<a href="${u}">x</a>', { ...noTracking, analytics: { utm_source: 'a"b' } }, { u: evil });
    expect(left).toBe('<a href="https://a.example/&quot; onmouseover=&quot;alert(1)?utm_source=a%22b">x</a>');
  });

  it('quotes an unquoted href it rewrites', () => {
    expect(rendered('<a href=https://a.example/x class=y>x</a>', { ...noTracking, analytics: { utm_source: 'n' } })).toBe('<a href="https://a.example/x?utm_source=n" class=y>x</a>');
    expect(rendered('<a href=${u}>x</a>', { open: { enable: false } }, { u: 'https://a.example/' })).toMatch(/^<a href="https:\/\/herald\.example\/t\/c\/[\w.-]+">x<\/a>$/);
  });

  it('decodes character references of the template and of values to get the URL', () => {
    const html = rendered('<a href="https://a.example/?a=1&amp;b=${v}&copy;&#47;">x</a>', { open: { enable: false } }, { v: '<&>' });
    expect(clickOf(hrefs(html)[0]).target).toBe('https://a.example/?a=1&b=%3C&%3E%C2%A9/');
  });

  it('changes nothing but its attributes when tracking is off', () => {
    const source = '<html><body><a href="https://a.example/?q=${q}" data-track-disabled class="b">${q}</a></body></html>';
    expect(rendered(source, noTracking, { q: '<x>' })).toBe('<html><body><a href="https://a.example/?q=&lt;x&gt;" class="b">&lt;x&gt;</a></body></html>');
  });
});

describe('with tracking off', () => {
  it('renders the content as written: no pixel, no wrapping', () => {
    const request = { ...body('<body><a href="https://a.example/">${x}</a></body>'), tracking: { open: { enable: false }, click: { enable: false } } };
    expect(contentRenderer(request, links)({ to: { email: 'a@x.example' }, substitutions: { x: 1 } }, identity).html).toBe('<body><a href="https://a.example/">1</a></body>');
  });
});

describe('verifyTrackingToken', () => {
  const html = rendered('<a href="https://a.example/">x</a>');
  const click = CLICK.exec(html)![1];
  const open = pixelToken(html);

  it('returns the payload of a genuine token', () => {
    expect(verifyTrackingToken(secret, 'o', open)).toEqual({ kind: 'o', message: ref });
    expect(verifyTrackingToken(secret, 'c', click)).toEqual({ kind: 'c', message: ref, link: { linkId: 0, target: 'https://a.example/', url: 'https://a.example/', interests: [] } });
  });

  it('refuses a token of another kind', () => {
    expect(verifyTrackingToken(secret, 'u', open)).toBeNull();
    expect(verifyTrackingToken(secret, 'v', open)).toBeNull();
    expect(verifyTrackingToken(secret, 'o', click)).toBeNull();
    expect(verifyTrackingToken(secret, 'c', `${open}.${click.split('.').slice(2).join('.')}`)).toBeNull();
    expect(verifyTrackingToken(secret, 'x' as 'o', open)).toBeNull();
  });

  it('refuses a token signed with another secret', () => {
    expect(verifyTrackingToken(Buffer.alloc(32, 8), 'o', open)).toBeNull();
    expect(verifyTrackingToken(Buffer.alloc(32, 8), 'c', click)).toBeNull();
  });

  it('refuses an altered message, link or signature', () => {
    const [message, messageSig, link, linkSig] = click.split('.');
    const otherMessage = Buffer.from(JSON.stringify(['demo', 'req1', 1, 'mail_2', 'demo_transactional_req1', 'bob@example.net'])).toString('base64url');
    const otherLink = linkPart({ linkId: 0, target: 'https://evil.example/', url: 'https://a.example/', interests: [] });
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const forged of [
      [otherMessage, messageSig, link, linkSig], [message, messageSig, otherLink, linkSig], [message, flip(messageSig), link, linkSig],
      [message, messageSig, link, flip(linkSig)], [message, messageSig.slice(0, -1), link, linkSig], [message, messageSig, link], [message, messageSig, link, linkSig, ''],
    ]) expect(verifyTrackingToken(secret, 'c', forged.join('.'))).toBeNull();
    expect(verifyTrackingToken(secret, 'o', `${message}.${messageSig}x`)).toBeNull();
    expect(verifyTrackingToken(secret, 'o', '')).toBeNull();
  });

  it('refuses a link part of another request, even with a genuine message', () => {
    const link = linkPart({ linkId: 0, target: 'https://evil.example/', url: 'x', interests: [] });
    const [message, messageSig] = click.split('.');
    expect(verifyTrackingToken(secret, 'c', `${message}.${messageSig}.${link}.${linkSignature(secret, 'another-request', link)}`)).toBeNull();
    expect(verifyTrackingToken(secret, 'c', `${message}.${messageSig}.${link}.${linkSignature(secret, 'req1', link)}`)).toMatchObject({ link: { target: 'https://evil.example/' } });
  });

  it('refuses a signed part that is not a payload', () => {
    const junk = Buffer.from('{"not":"an array"}').toString('base64url');
    expect(verifyTrackingToken(secret, 'o', `${junk}.${sign(secret, 'o', junk)}`)).toBeNull();
    expect(verifyTrackingToken(secret, 'o', `%%%.${sign(secret, 'o', '%%%')}`)).toBeNull();
  });
});
