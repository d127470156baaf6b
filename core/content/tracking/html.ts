// Where the tracking rewrite acts in an HTML content, found once per content by a real HTML
// parser (parse5, the WHATWG algorithm mail clients' engines follow) on the template source: the
// href values of <a> and <area>, the data-track-* / data-interests attributes, and </body>.
// The parser sees the substitution language's tags as letters of the same length (so a `"` or
// `>` inside `${x!"a"}` cannot end an attribute), and every offset it reports is the source's.
import { defaultTreeAdapter, parse, type DefaultTreeAdapterMap } from 'parse5';
import { tagsBalanced, templateTags, type Range, type TagSpan } from '../dialect/parse';
import { decodeAttribute } from './url';

type Element = DefaultTreeAdapterMap['element'];
type ParentNode = DefaultTreeAdapterMap['parentNode'];

/** An href to rewrite: its value's range in the source, and what its attributes say. */
export interface LinkSite extends Range {
  /** Its index among the content's <a>/<area> hrefs, in source order (the click's link_id). */
  linkId: number;
  /** The value is written without quotes (a rewritten value then gets double quotes). */
  unquoted: boolean;
  /** The href as the template writes it, character references decoded: the URL a click reports by default. */
  literal: string;
  /** The href holds no tag: every message renders it alike (its click link may be a link table's entry). */
  fixed: boolean;
  /** data-track-disabled: no click tracking (utm parameters are still added). */
  disabled: boolean;
  /** data-track-final-url: a click reports the substituted URL. */
  finalUrl: boolean;
  /** data-interests, comma-separated names. */
  interests: string[];
}

export interface HtmlSites {
  links: LinkSite[];
  /** Where the open pixel goes: before </body>, or at the end without one. */
  pixelAt: number;
  /** Herald's attributes (data-track-*, data-interests), taken out of the sent HTML. */
  drops: Range[];
}

const OWN_ATTRIBUTES = ['data-track-disabled', 'data-track-final-url', 'data-interests'];

/**
 * parse5's own tree, with end locations merged into an element's location in place and none kept
 * for text: its default adapter copies the whole location object each time a text node grows or
 * an element ends, a quarter of the parse's time. Only start offsets and </body>'s are read here.
 */
const treeAdapter: typeof defaultTreeAdapter = {
  ...defaultTreeAdapter,
  updateNodeSourceCodeLocation(node, endLocation) {
    if (node.nodeName === '#text') return;
    if (node.sourceCodeLocation) Object.assign(node.sourceCodeLocation, endLocation);
    else defaultTreeAdapter.updateNodeSourceCodeLocation(node, endLocation);
  },
};

/**
 * The sites of `source`: a template that compiles (templateTags throws TemplateError otherwise),
 * or `literal` text, where nothing is a tag.
 */
export function htmlSites(source: string, literal = false): HtmlSites {
  const tags = templateTags(source, literal);
  const masked = maskTags(source, tags);
  // Scripting off: a mail client runs none, so <noscript> holds markup (and links), as it shows it.
  const document = parse(masked, { sourceCodeLocationInfo: true, scriptingEnabled: false, treeAdapter });
  const links: Array<LinkSite & { balanced: boolean }> = [];
  const drops: Range[] = [];
  let pixelAt = source.length;
  // A misnested <a> (`<p><a href>one</p>two</a>`) is one tag in the source but two elements in the
  // tree (the parser reopens it): its sites are taken once, from the first.
  const seenTags = new Set<number>();
  for (const element of elementsOf(document)) {
    const location = element.sourceCodeLocation;
    if (!location) continue;
    if (element.tagName === 'body' && location.endTag) pixelAt = location.endTag.startOffset;
    if (element.tagName !== 'a' && element.tagName !== 'area') continue;
    if (seenTags.has(location.startOffset)) continue;
    seenTags.add(location.startOffset);
    // Only where each attribute starts is taken from parse5 (its end offsets stop at the name when
    // a quoted value is followed by the next attribute without a space): the rest is read here.
    // Plain loops and literals, no spreads: this runs for every link of every new content.
    const attrs: Record<string, ReturnType<typeof attribute>> = {};
    for (const [name, at] of Object.entries(location.attrs ?? {})) attrs[name] = attribute(masked, at.startOffset);
    let interests: string[] = [];
    for (const name of OWN_ATTRIBUTES) {
      const at = attrs[name];
      // Taken out only when it holds no tag (a dynamic one is left as written, and not used).
      if (!at || !noTagIn(tags, at.start, at.end)) continue;
      drops.push({ start: leadingSpace(masked, at.start), end: at.end });
      if (name === 'data-interests' && at.value) interests = decodeAttribute(source.slice(at.value.start, at.value.end)).split(',').map((n) => n.trim()).filter((n) => n !== '');
    }
    const value = attrs.href?.value;
    if (!value) continue;
    links.push({
      start: value.start,
      end: value.end,
      unquoted: value.unquoted,
      // A range that cuts a directive cannot be rewritten: the link stays as written (still numbered).
      balanced: tagsBalanced(tags, value),
      linkId: 0,
      literal: decodeAttribute(source.slice(value.start, value.end)).trim(),
      fixed: noTagIn(tags, value.start, value.end),
      disabled: 'data-track-disabled' in attrs,
      finalUrl: 'data-track-final-url' in attrs,
      interests,
    });
  }
  links.sort((a, b) => a.start - b.start).forEach((link, i) => (link.linkId = i));
  return { links: links.filter((link) => link.balanced).map(({ balanced: _, ...link }) => link), pixelAt, drops };
}

/** `source` with each tag replaced by as many letters: offsets stay, and HTML syntax inside tags is gone. */
function maskTags(source: string, tags: readonly TagSpan[]): string {
  let out = '';
  let at = 0;
  for (const tag of tags) {
    out += source.slice(at, tag.start) + 'x'.repeat(tag.end - tag.start);
    at = tag.end;
  }
  return out + source.slice(at);
}

/** Every element, template contents included, in tree order. */
function* elementsOf(node: ParentNode): Generator<Element> {
  for (const child of node.childNodes) {
    if (!('tagName' in child)) continue;
    yield child;
    yield* elementsOf(child);
    if (child.tagName === 'template' && 'content' in child) yield* elementsOf(child.content as ParentNode);
  }
}

const SPACE = /[\t\n\f\r ]/;

/**
 * The attribute whose name starts at `start`, read as the HTML tokenizer reads it: the name runs
 * to a space, `/`, `>` or `=`; a quoted value to the same quote, an unquoted one to a space or `>`.
 */
function attribute(masked: string, start: number): Range & { value?: Range & { unquoted: boolean } } {
  const length = masked.length;
  let at = start + 1;
  while (at < length && !SPACE.test(masked[at]) && !'/>='.includes(masked[at])) at++;
  const nameEnd = at;
  while (at < length && SPACE.test(masked[at])) at++;
  if (masked[at] !== '=') return { start, end: nameEnd };
  at++;
  while (at < length && SPACE.test(masked[at])) at++;
  const quote = masked[at];
  if (quote === '"' || quote === "'") {
    const close = masked.indexOf(quote, at + 1);
    const end = close < 0 ? length : close;
    return { start, end: close < 0 ? length : close + 1, value: { start: at + 1, end, unquoted: false } };
  }
  let end = at;
  while (end < length && !SPACE.test(masked[end]) && masked[end] !== '>') end++;
  return { start, end, value: { start: at, end, unquoted: true } };
}

/** The whitespace before an attribute belongs to it when it is taken out. */
function leadingSpace(masked: string, start: number): number {
  let at = start;
  while (at > 0 && /\s/.test(masked[at - 1])) at--;
  return at;
}

function noTagIn(tags: readonly TagSpan[], start: number, end: number): boolean {
  return !tags.some((tag) => tag.start < end && tag.end > start);
}
