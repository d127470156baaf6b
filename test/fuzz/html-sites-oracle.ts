// The sites of an HTML content as parse5's tree gives them: the judge of htmlSites
// (core/content/tracking/html.ts) in the differential fuzz. This was Herald's own reading before
// the tokenizer scan: every <a>/<area> element with its attributes' locations, and </body> as the
// end location parse5 records for the body.
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { tagsBalanced, templateTags, type Range, type TagSpan } from '../../core/content/dialect/parse';
import type { HtmlSites, LinkSite } from '../../core/content/tracking/html';
import { decodeAttribute } from '../../core/content/tracking/url';

type Element = DefaultTreeAdapterMap['element'];
type ParentNode = DefaultTreeAdapterMap['parentNode'];

const OWN_ATTRIBUTES = ['data-track-disabled', 'data-track-final-url', 'data-interests'];

export function parse5Sites(source: string): HtmlSites {
  const tags = templateTags(source);
  let masked = '';
  let from = 0;
  for (const tag of tags) {
    masked += source.slice(from, tag.start) + 'x'.repeat(tag.end - tag.start);
    from = tag.end;
  }
  masked += source.slice(from);
  const document = parse(masked, { sourceCodeLocationInfo: true, scriptingEnabled: false });
  const links: Array<LinkSite & { balanced: boolean }> = [];
  const drops: Range[] = [];
  let pixelAt = source.length;
  // A misnested <a> is one tag but two elements (the parser reopens it): taken once.
  const seenTags = new Set<number>();
  for (const element of elementsOf(document)) {
    const location = element.sourceCodeLocation;
    if (!location) continue;
    if (element.tagName === 'body' && location.endTag) pixelAt = location.endTag.startOffset;
    if (element.tagName !== 'a' && element.tagName !== 'area') continue;
    if (seenTags.has(location.startOffset)) continue;
    seenTags.add(location.startOffset);
    // parse5 gives where each attribute starts (its ends stop short after a quoted value with no space after it).
    const attrs: Record<string, ReturnType<typeof attribute>> = {};
    for (const [name, at] of Object.entries(location.attrs ?? {})) attrs[name] = attribute(masked, at.startOffset);
    let interests: string[] = [];
    for (const name of OWN_ATTRIBUTES) {
      const at = attrs[name];
      if (!at || !noTagIn(tags, at.start, at.end)) continue;
      let start = at.start;
      while (start > 0 && /\s/.test(masked[start - 1])) start--;
      drops.push({ start, end: at.end });
      if (name === 'data-interests' && at.value) interests = decodeAttribute(source.slice(at.value.start, at.value.end)).split(',').map((n) => n.trim()).filter((n) => n !== '');
    }
    const value = attrs.href?.value;
    if (!value) continue;
    links.push({
      start: value.start, end: value.end, unquoted: value.unquoted, balanced: tagsBalanced(tags, value), linkId: 0,
      literal: decodeAttribute(source.slice(value.start, value.end)).trim(), fixed: noTagIn(tags, value.start, value.end),
      disabled: 'data-track-disabled' in attrs, finalUrl: 'data-track-final-url' in attrs, interests,
    });
  }
  links.sort((a, b) => a.start - b.start).forEach((link, i) => (link.linkId = i));
  return { links: links.filter((link) => link.balanced).map(({ balanced: _, ...link }) => link), pixelAt, drops };
}

function* elementsOf(node: ParentNode): Generator<Element> {
  for (const child of node.childNodes) {
    if (!('tagName' in child)) continue;
    yield child;
    yield* elementsOf(child);
    if (child.tagName === 'template' && 'content' in child) yield* elementsOf(child.content as ParentNode);
  }
}

const SPACE = /[\t\n\f\r ]/;

/** The attribute whose name starts at `start`, read as the HTML tokenizer reads it. */
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

function noTagIn(tags: readonly TagSpan[], start: number, end: number): boolean {
  return !tags.some((tag) => tag.start < end && tag.end > start);
}
