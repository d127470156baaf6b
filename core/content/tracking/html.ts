// Where the tracking rewrite acts in an HTML content, found once per content on the template
// source by reading its tags as a browser's HTML tokenizer does (./html-tags.ts): the href values
// of <a> and <area>, the data-track-* / data-interests attributes, and the </body> that closes
// the body. The tokenizer sees the substitution language's tags as letters of the same length (so
// a `"` or `>` inside `${x!"a"}` cannot end an attribute), and every offset it reports is the
// source's. Each <a> or <area> start tag is one link, however often a browser's tree reopens a
// misnested one (unlike a browser, Herald also tracks one inside a <select> or a frameset
// document, where a browser drops the tag); which </body> closes the body is ./html-body.ts's to say.
import { tagsBalanced, templateTags, type Range, type TagSpan } from '../dialect/parse';
import { BodyEnd } from './html-body';
import { scanTags, type TagAttribute, type TagVisitor } from './html-tags';
import { decodeAttribute } from './url';

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

const OWN_ATTRIBUTES = ['data-track-disabled', 'data-track-final-url', 'data-interests'] as const;

/**
 * The sites of `source`: a template that compiles (templateTags throws TemplateError otherwise),
 * or `literal` text, where nothing is a tag.
 */
export function htmlSites(source: string, literal = false): HtmlSites {
  const tags = templateTags(source, literal);
  const masked = maskTags(source, tags);
  const sites = new SiteFinder(source, masked, tags);
  scanTags(masked, sites);
  const bodyEnd = sites.bodyEnd.at;
  return { links: sites.links, pixelAt: bodyEnd < 0 ? source.length : bodyEnd, drops: sites.drops };
}

/** The sites, told the tags in source order. */
class SiteFinder implements TagVisitor {
  readonly links: LinkSite[] = [];
  readonly drops: Range[] = [];
  readonly bodyEnd = new BodyEnd();
  /** The hrefs numbered so far, links that cannot be rewritten included. */
  private numbered = 0;
  private tagName = '';
  /** The open tag's first attribute of each name Herald reads (an <a> or <area>'s only). */
  private readonly attributes = new Map<string, TagAttribute>();

  constructor(
    private readonly source: string,
    private readonly masked: string,
    private readonly tags: readonly TagSpan[],
  ) {}

  startTag(name: string): void {
    this.tagName = name;
    if (this.attributes.size > 0) this.attributes.clear();
    this.bodyEnd.startTag(name);
  }

  attribute(attribute: TagAttribute): void {
    if (this.tagName !== 'a' && this.tagName !== 'area') return;
    const length = attribute.nameEnd - attribute.nameStart;
    // Only names as long as href or Herald's own are read (most attributes are style, class…).
    if (length !== 4 && length !== 14 && length !== 19 && length !== 20) return;
    const name = this.masked.slice(attribute.nameStart, attribute.nameEnd).toLowerCase();
    if (!this.attributes.has(name)) this.attributes.set(name, attribute); // a repeated attribute is ignored, as browsers do
  }

  startTagEnd(): void {
    if (this.tagName === 'a' || this.tagName === 'area') this.link();
  }

  endTag(name: string, start: number): void {
    this.bodyEnd.endTag(name, start);
  }

  text(start: number, end: number): void {
    this.bodyEnd.text(this.masked, start, end);
  }

  private link(): void {
    const { source, masked, tags, attributes } = this;
    let interests: string[] = [];
    for (const name of OWN_ATTRIBUTES) {
      const at = attributes.get(name);
      // Taken out only when it holds no tag (a dynamic one is left as written, and not used).
      if (!at || !noTagIn(tags, at.nameStart, at.end)) continue;
      this.drops.push({ start: leadingSpace(masked, at.nameStart), end: at.end });
      if (name === 'data-interests' && at.valueStart >= 0) {
        interests = decodeAttribute(source.slice(at.valueStart, at.valueEnd)).split(',').map((n) => n.trim()).filter((n) => n !== '');
      }
    }
    const href = attributes.get('href');
    if (!href || href.valueStart < 0) return;
    const value = { start: href.valueStart, end: href.valueEnd };
    const linkId = this.numbered++;
    // A range that cuts a directive cannot be rewritten: the link stays as written (still numbered).
    if (!tagsBalanced(tags, value)) return;
    this.links.push({
      start: value.start,
      end: value.end,
      unquoted: href.unquoted,
      linkId,
      literal: decodeAttribute(source.slice(value.start, value.end)).trim(),
      fixed: noTagIn(tags, value.start, value.end),
      disabled: attributes.has('data-track-disabled'),
      finalUrl: attributes.has('data-track-final-url'),
      interests,
    });
  }
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

/** The whitespace before an attribute belongs to it when it is taken out. */
function leadingSpace(masked: string, start: number): number {
  let at = start;
  while (at > 0 && /\s/.test(masked[at - 1])) at--;
  return at;
}

function noTagIn(tags: readonly TagSpan[], start: number, end: number): boolean {
  return !tags.some((tag) => tag.start < end && tag.end > start);
}
