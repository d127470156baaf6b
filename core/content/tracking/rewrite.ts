// The tracking rewrite of an HTML content, per message: the open pixel before </body>, each
// http(s) href through a signed click link, utm parameters on every http(s) href. The content is
// parsed once (cached with its compiled template); per message only the hrefs' rendered text is
// looked at, and a link's signed part is made once per request and rendered URL. In a request
// with a link table (LinkContext.linkTable: a campaign send's), a click link whose href holds no
// tag (no substitution, no directive) names its entry of the table instead of carrying its link.
//
// An href is left exactly as the template renders it when its URL is not absolute http(s)
// (mailto:, tel:, #anchor, relative, javascript:, data:…: Herald's redirect never serves them) or
// is Herald's own (`${urls.unsubscribe}`, `${urls.online_version}`, any {publicUrl}/t/… link).
import type { ShareNetwork } from '../../tracking/share-networks';
import { cachedCompile, compileTemplate, type CompiledTemplate, type Model, type RenderHooks } from '../dialect/dialect';
import { escapeHtml } from '../dialect/values';
import type { TrackingOptions } from '../../transactional/request';
import { htmlSites, type LinkSite } from './html';
import { linkPart, linkSignature, messagePart, messageToken, tableLinkSignature, type MessageIdentity, type TrackedLink, type TrackingKind } from './token';
import { decodeAttribute, httpUrl, utmPairs, withUtm } from './url';

/**
 * Where tracking links point and what signs them. `linkTable`: the request's click links whose
 * href holds no tag refer to its link table, which the caller stores (linkTable()) before sending.
 */
export interface LinkContext { publicUrl: string; secret: Buffer; linkTable?: boolean }

/**
 * A content compiled with its links and pixel instrumented (wrap id = link index; insert 0 = pixel);
 * `hasImage`: the content shows an image of its own.
 */
interface TrackedHtml { template: CompiledTemplate; links: LinkSite[]; hasImage: boolean }

function trackedHtml(source: string, literal: boolean): TrackedHtml {
  return cachedCompile(source, literal ? 'html/tracked/literal' : 'html/tracked', () => {
    const { links, pixelAt, drops } = htmlSites(source, literal);
    const template = compileTemplate(source, { escape: 'html', literal }, { wraps: links, inserts: [pixelAt], drops });
    return { template, links, hasImage: /<img[\s/>]/i.test(source) };
  });
}

/** The tokens of one message, each signed when first asked for. */
export class MessageTokens {
  readonly message: string;
  private readonly tokens: Partial<Record<TrackingKind, string>> = {};

  constructor(
    private readonly links: LinkContext,
    readonly identity: MessageIdentity,
  ) {
    this.message = messagePart(identity);
  }

  /** The token of kind `kind` (for c, the message half: a link's part follows). */
  token(kind: TrackingKind): string {
    return (this.tokens[kind] ??= messageToken(this.links.secret, kind, this.message));
  }

  /** `{publicUrl}/t/{kind}/{token}` (o, v, u). */
  url(kind: 'o' | 'v' | 'u'): string {
    return `${this.links.publicUrl}/t/${kind}/${this.token(kind)}`;
  }

  /** `{publicUrl}/t/s/{network}/{token}`: a share of this message's online version on `network`. */
  shareUrl(network: ShareNetwork): string {
    return `${this.links.publicUrl}/t/s/${network}/${this.token('s')}`;
  }
}

/** What an href's rendered text becomes: kept, replaced, or a tracked link. */
type Href = { kind: 'keep' } | { kind: 'text'; text: string } | { kind: 'click'; link: TrackedLink };

const KEEP = { kind: 'keep' } as const;

/** The rewrite of an href's rendered text under a request's tracking options. */
function hrefRewrite(tracking: TrackingOptions | undefined, publicUrl: string): (site: LinkSite, rendered: string) => Href {
  const click = tracking?.click?.enable !== false;
  const utm = utmPairs(tracking?.analytics);
  const own = `${publicUrl}/t/`;
  return (site, rendered) => {
    const http = httpUrl(decodeAttribute(rendered));
    if (http === undefined || http.url.startsWith(own)) return KEEP;
    const { url } = http;
    const target = withUtm(url, utm);
    if (!click || site.disabled) return target === url ? KEEP : { kind: 'text', text: attribute(site, escapeHtml(target)) };
    // The target as the URL parser serialises it (what the browser would have followed): ASCII, fit for a Location header.
    const href = target === url ? http.href : new URL(target).href;
    return { kind: 'click', link: { linkId: site.linkId, target: href, url: site.finalUrl ? url : site.literal, interests: site.interests } };
  };
}

const attribute = (site: LinkSite, text: string) => (site.unquoted ? `"${text}"` : text);

/** The click links of `sites` whose href holds no tag: the same in every message, a link table's entries. */
function fixedLinks(source: string, sites: readonly LinkSite[], rewrite: ReturnType<typeof hrefRewrite>): TrackedLink[] {
  return sites.flatMap((site) => {
    if (!site.fixed) return [];
    const href = rewrite(site, source.slice(site.start, site.end));
    return href.kind === 'click' ? [href.link] : [];
  });
}

/** The link table of a request with this HTML content and tracking options (what its renderer with `linkTable` refers to). */
export function linkTable(source: string, tracking: TrackingOptions | undefined, publicUrl: string): TrackedLink[] {
  return fixedLinks(source, trackedHtml(source, false).links, hrefRewrite(tracking, publicUrl));
}

/** A click link's part (a carried link, or a table's link_id), its signature made once per request (`sigFor`: whose it is). */
interface ClickPart { kind: 'click'; part: string; table: boolean; sig: string; sigFor: string | undefined }

/** What an href's rendered text becomes in a message. */
type Rewrite = Exclude<Href, { kind: 'click' }> | ClickPart;

// Distinct rendered hrefs remembered per link (hrefs with per-recipient values differ each time).
const MAX_CACHED = 1000;

/**
 * The HTML content's renderer for one request: the tracking options and links are the request's.
 * `literal`: the HTML is text as written, not a template (an SMTP submission's).
 */
export function trackedHtmlRenderer(
  source: string, tracking: TrackingOptions | undefined, links: LinkContext, literal = false,
): (model: Model, message: MessageTokens) => string {
  const { template, links: sites, hasImage } = trackedHtml(source, literal);
  const open = tracking?.open?.enable !== false;
  const rewrite = hrefRewrite(tracking, links.publicUrl);
  const base = escapeHtml(links.publicUrl);
  const tabled = new Set(links.linkTable ? fixedLinks(source, sites, rewrite).map((link) => link.linkId) : []);
  const caches = sites.map(() => new Map<string, Rewrite>());

  function partOf(site: LinkSite, rendered: string): Rewrite {
    // A table's link is its entry whatever the text (which is the source's: the href holds no tag).
    if (tabled.has(site.linkId)) return { kind: 'click', part: String(site.linkId), table: true, sig: '', sigFor: undefined };
    const href = rewrite(site, rendered);
    return href.kind === 'click' ? { kind: 'click', part: linkPart(href.link), table: false, sig: '', sigFor: undefined } : href;
  }

  return (model, message) => {
    const { account, requestId } = message.identity;
    const request = `${account}\n${requestId}`;
    let clickPrefix: string | undefined;
    const hooks: RenderHooks = {
      insert: () => (open ? pixel(`${base}/t/o/${message.token('o')}`, hasImage) : ''),
      wrap(id, rendered) {
        const site = sites[id];
        const cache = caches[id];
        let done = cache.get(rendered);
        if (!done) {
          done = partOf(site, rendered);
          if (cache.size >= MAX_CACHED) cache.clear();
          cache.set(rendered, done);
        }
        if (done.kind === 'keep') return rendered;
        if (done.kind === 'text') return done.text;
        if (done.sigFor !== request) {
          done.sig = done.table ? tableLinkSignature(links.secret, account, requestId, done.part) : linkSignature(links.secret, requestId, done.part);
          done.sigFor = request;
        }
        clickPrefix ??= `${base}/t/c/${message.token('c')}.`;
        return attribute(site, `${clickPrefix}${done.part}.${done.sig}`);
      },
    };
    return template.render(model, hooks);
  };
}

/**
 * The open pixel, 1×1 on its own line so it takes no room beside text. In a content with images of
 * its own, an <img>, which every client that shows images loads. In one without, Herald's pixel
 * would be its only <img>: spam filters count an image beside little text against a message
 * (SpamAssassin's HTML_IMAGE_ONLY_* rules, up to 2.8 points, for any text under 3,200 characters),
 * so the pixel is the background image of a 1×1 block instead, which Apple Mail, Gmail, Yahoo and
 * Outlook on the web load as they load images (classic Outlook for Windows does not, and it blocks
 * images by default anyway).
 */
function pixel(src: string, asImage: boolean): string {
  return asImage
    ? `<img src="${src}" width="1" height="1" alt="" border="0" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`
    : `<div style="width:1px;height:1px;line-height:1px;font-size:1px;background-image:url('${src}')">&nbsp;</div>`;
}
