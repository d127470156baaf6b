// The URLs of hrefs: the URL an attribute's text stands for (HTML character references decoded,
// as a mail client reads it), whether it is one Herald tracks, and the utm parameters.
import { parseFragment } from 'parse5';
import type { TrackingOptions } from '../../transactional/request';

type Utm = NonNullable<TrackingOptions['analytics']>;
const UTM_NAMES = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term'] as const;

// What the dialect's HTML escaping writes; any other `&` followed by a letter or `#` may be a
// character reference and is left to the real parser.
const OWN_ENTITY = /&(amp|lt|gt|quot|#39);/g;
const OWN_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
const OTHER_REFERENCE = /&(?!(?:amp|lt|gt|quot|#39);)[A-Za-z#]/;

/** The value of an attribute whose source text (between its quotes) is `text`. */
export function decodeAttribute(text: string): string {
  if (!text.includes('&')) return text;
  if (!OTHER_REFERENCE.test(text)) return text.replace(OWN_ENTITY, (_m, name: string) => OWN_ENTITIES[name]);
  // Rare (a template's own `&nbsp;`, `&#47;`, a bare `&b=2`): parse5 decodes as a browser does.
  const fragment = parseFragment(`<a href="${text.replace(/"/g, '&quot;')}">`);
  const [element] = fragment.childNodes;
  return element && 'attrs' in element ? (element.attrs.find((a) => a.name === 'href')?.value ?? '') : '';
}

// Leading and trailing C0 controls and spaces, as the URL parser strips them.
const EDGES = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g; // eslint-disable-line no-control-regex -- the URL standard's set

const HTTP = /^https?:/i;

/**
 * The URL as written, trimmed as a browser trims it (`url`), and as the URL parser serialises it
 * (`href`); undefined unless it is absolute http(s). Most hrefs need no trimming and start with
 * their scheme: then no string is made to test them (this runs for each href of each message).
 */
export function httpUrl(value: string): { url: string; href: string } | undefined {
  const trimmed = value.charCodeAt(0) > 0x20 && value.charCodeAt(value.length - 1) > 0x20 ? value : value.replace(EDGES, '');
  // The URL parser drops tabs and line ends anywhere, so `ht\ntps:` is a scheme too.
  if (!HTTP.test(trimmed) && !HTTP.test(trimmed.replace(/[\t\n\r]/g, ''))) return undefined;
  try {
    const url = new URL(trimmed);
    return url.protocol === 'http:' || url.protocol === 'https:' ? { url: trimmed, href: url.href } : undefined;
  } catch {
    return undefined;
  }
}

/** The parameters of `analytics` that have a value, as `name=value` query pairs, in a fixed order. */
export function utmPairs(analytics: Utm | undefined): Array<[string, string]> {
  if (!analytics) return [];
  return UTM_NAMES.flatMap((name) => {
    const value = analytics[name];
    return typeof value === 'string' && value !== '' ? [[name, `${name}=${encodeURIComponent(value)}`] as [string, string]] : [];
  });
}

/**
 * `url` with each pair it does not already have a parameter of: after its query, before its
 * #fragment. A parameter the link carries keeps its value.
 */
export function withUtm(url: string, pairs: ReadonlyArray<[string, string]>): string {
  if (pairs.length === 0) return url;
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const question = beforeHash.indexOf('?');
  const query = question < 0 ? '' : beforeHash.slice(question + 1);
  const present = query === '' ? new Set<string>() : new Set(new URLSearchParams(query).keys());
  const added = pairs.filter(([name]) => !present.has(name)).map(([, pair]) => pair);
  if (added.length === 0) return url;
  const joiner = question < 0 ? '?' : query === '' || query.endsWith('&') ? '' : '&';
  return `${beforeHash}${joiner}${added.join('&')}${hash < 0 ? '' : url.slice(hash)}`;
}
