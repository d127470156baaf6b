// The template level: literal text, ${…} interpolations and the [#…] directives, as a tree.
// `[#` followed by a letter is always a directive (an unknown name is an error, so a typo is
// reported rather than sent); any other `[`, `$` or `#` is literal text.
// A host may instrument a template (see Instrumentation): source ranges whose rendered text it
// rewrites, points where it writes its own text, ranges it leaves out. These are offsets given
// with the source, never syntax, so no template text can reach them.
import { errorAt } from './error';
import { ExprParser, type Expr } from './expr';

export type Node =
  | { k: 'text'; text: string }
  | { k: 'out'; e: Expr }
  | { k: 'if'; branches: Array<{ cond: Expr; body: Node[] }>; otherwise: Node[] | null }
  | { k: 'list'; e: Expr; name: string; body: Node[]; otherwise: Node[] | null }
  /** An instrumented range: its rendered text goes through RenderHooks.wrap(id, text). */
  | { k: 'wrap'; id: number; body: Node[] }
  /** An instrumented point: RenderHooks.insert(id) is written there. */
  | { k: 'insert'; id: number };

export interface Range { start: number; end: number }

/**
 * Offsets into the source (none inside a tag). Each wrap must hold whole blocks only (what
 * tagsBalanced checks); drops must hold no tag. Wraps and drops do not overlap.
 */
export interface Instrumentation {
  /** Rendered through RenderHooks.wrap(index, text). */
  wraps?: Range[];
  /** RenderHooks.insert(index) written at each offset. */
  inserts?: number[];
  /** Left out of the output. */
  drops?: Range[];
}

/** Where the tags of a template are: `${…}`, block openers, [#elseif]/[#else], closers, and comments. */
export interface TagSpan extends Range {
  kind: 'out' | 'open' | 'mid' | 'close' | 'inert';
}

/** An instrumentation event, in source order (see eventsOf). */
interface Event { at: number; rank: number; kind: 'open' | 'close' | 'empty' | 'insert'; id: number }

type IfNode = Extract<Node, { k: 'if' }>;
type ListNode = Extract<Node, { k: 'list' }>;

type WrapNode = Extract<Node, { k: 'wrap' }>;

type Frame = { pos: number; target: Node[]; hasElse: boolean } & ({ kind: 'if'; node: IfNode } | { kind: 'list'; node: ListNode } | { kind: 'wrap'; node: WrapNode });

const START = /\$\{|\[\/?#/g;
const NAME = /[A-Za-z]\w*/y;
const DIRECTIVES = new Set(['if', 'elseif', 'else', 'list', 'noparse']);
const KNOWN = '[#if], [#elseif], [#else], [#list], [#noparse], [#-- comment --]';
// Bounds the recursion of the Handlebars compiler and of rendering.
const MAX_NESTING = 100;
// Bounds compile time: Handlebars needs about 50 µs per tag, so 2,000 tags stay near 100 ms.
export const MAX_TAGS = 2000;

/** `literal`: the source is text, not a template (nothing in it is a tag); only the instrumentation applies. */
export function parseTemplate(source: string, instrumentation?: Instrumentation, literal = false): Node[] {
  return new TemplateParser(source, instrumentation, undefined, literal).parse();
}

/** The tags of `source`, in order (none when it is `literal` text); throws TemplateError when it is malformed. */
export function templateTags(source: string, literal = false): TagSpan[] {
  if (literal) return [];
  const spans: TagSpan[] = [];
  new TemplateParser(source, undefined, spans).parse();
  return spans;
}

/**
 * Whether `range` holds whole blocks only: no tag cut by its ends, every block opened in it
 * closed in it, no [#elseif]/[#else] of a block around it. `tags` as templateTags gives them.
 */
export function tagsBalanced(tags: readonly TagSpan[], range: Range): boolean {
  let depth = 0;
  for (const tag of tags) {
    if (tag.end <= range.start) continue;
    if (tag.start >= range.end) break;
    if (tag.start < range.start || tag.end > range.end) return false;
    if (tag.kind === 'open') depth++;
    else if (tag.kind === 'close' && --depth < 0) return false;
    else if (tag.kind === 'mid' && depth === 0) return false;
  }
  return depth === 0;
}

/** Opens and closes of wraps, empty wraps and inserts, in source order; at one offset closes come first, then points, then opens. */
function eventsOf(instrumentation: Instrumentation | undefined): Event[] {
  const events: Event[] = [];
  instrumentation?.wraps?.forEach(({ start, end }, id) => {
    if (!(start <= end)) throw new RangeError(`Instrumented range ${id} ends before it starts`);
    if (start === end) events.push({ at: start, rank: 1, kind: 'empty', id });
    else events.push({ at: start, rank: 2, kind: 'open', id }, { at: end, rank: 0, kind: 'close', id });
  });
  instrumentation?.inserts?.forEach((at, id) => events.push({ at, rank: 1, kind: 'insert', id }));
  return events.sort((a, b) => a.at - b.at || a.rank - b.rank);
}

class TemplateParser {
  private readonly root: Node[] = [];
  private readonly stack: Frame[] = [];
  private pos = 0;
  private tags = 0;
  private readonly events: Event[];
  private nextEvent = 0;
  private readonly drops: Range[];
  private nextDrop = 0;

  constructor(
    private readonly src: string,
    instrumentation?: Instrumentation,
    private readonly spans?: TagSpan[],
    private readonly literalSource = false,
  ) {
    this.events = eventsOf(instrumentation);
    this.drops = [...(instrumentation?.drops ?? [])].sort((a, b) => a.start - b.start);
  }

  parse(): Node[] {
    const { src } = this;
    const start = new RegExp(START);
    while (!this.literalSource && this.pos < src.length) {
      start.lastIndex = this.pos;
      const m = start.exec(src);
      if (!m) break;
      this.text(this.pos, m.index);
      this.pos = m.index;
      if (m[0] === '${') this.interpolation();
      else if (!this.directive(m[0] === '[/#')) {
        // Not a directive after all ("[#1]", "[/#"): keep the characters as text.
        this.text(m.index, m.index + m[0].length);
        this.pos += m[0].length;
      }
    }
    this.text(this.pos, src.length);
    this.pos = src.length;
    if (this.nextEvent < this.events.length) throw new RangeError('An instrumented offset is inside a tag or past the end of the template');
    const open = this.stack.at(-1);
    if (open?.kind === 'wrap') throw new RangeError(`Instrumented range ${open.node.id} does not end`);
    if (open) throw errorAt(src, open.pos, `Unclosed [#${open.kind}]: add [/#${open.kind}]`);
    return this.root;
  }

  private get target(): Node[] {
    return this.stack.at(-1)?.target ?? this.root;
  }

  /** The variables of the enclosing lists, outermost first (a list's [#else] does not see its own). */
  private get loops(): string[] {
    return this.stack.flatMap((f) => (f.kind === 'list' && !f.hasElse ? [f.node.name] : []));
  }

  /** The source text from `from` to `to`, with the instrumentation events and drops in it. */
  private text(from: number, to: number): void {
    const { events } = this;
    let at = from;
    while (this.nextEvent < events.length && events[this.nextEvent].at <= to) {
      const event = events[this.nextEvent++];
      if (event.at < at) throw new RangeError('An instrumented offset is inside a tag');
      this.keptText(at, event.at);
      at = event.at;
      this.instrument(event);
    }
    this.keptText(at, to);
  }

  /** The source text from `from` to `to` less the dropped ranges. */
  private keptText(from: number, to: number): void {
    const { drops } = this;
    while (from < to) {
      const drop = drops[this.nextDrop];
      if (!drop || drop.start >= to) break;
      if (drop.end <= from) {
        this.nextDrop++;
        continue;
      }
      if (drop.start > from) this.literal(this.src.slice(from, drop.start));
      from = Math.min(to, drop.end);
      if (drop.end <= to) this.nextDrop++;
    }
    if (from < to) this.literal(this.src.slice(from, to));
  }

  private instrument(event: Event): void {
    if (event.kind === 'insert') {
      this.target.push({ k: 'insert', id: event.id });
    } else if (event.kind === 'empty') {
      this.target.push({ k: 'wrap', id: event.id, body: [] });
    } else if (event.kind === 'open') {
      const node: WrapNode = { k: 'wrap', id: event.id, body: [] };
      this.target.push(node);
      this.stack.push({ kind: 'wrap', node, pos: event.at, target: node.body, hasElse: false });
    } else {
      const frame = this.stack.pop();
      if (frame?.kind !== 'wrap' || frame.node.id !== event.id) throw new RangeError(`Instrumented range ${event.id} does not hold whole blocks`);
    }
  }

  private span(start: number, end: number, kind: TagSpan['kind']): void {
    this.spans?.push({ start, end, kind });
  }

  private literal(text: string): void {
    if (!text) return;
    const { target } = this;
    const last = target.at(-1);
    if (last?.k === 'text') last.text += text;
    else target.push({ k: 'text', text });
  }

  private countTag(): void {
    if (++this.tags > MAX_TAGS) throw errorAt(this.src, this.pos, `More than ${MAX_TAGS} substitutions and directives in one template`);
  }

  private interpolation(): void {
    this.countTag();
    const open = this.pos;
    const p = new ExprParser(this.src, open + 2, this.loops);
    const e = p.expression('${…}');
    p.close('}', '${', open);
    this.target.push({ k: 'out', e });
    this.span(open, p.end, 'out');
    this.pos = p.end;
  }

  /** Handles the directive at `pos`; false when the characters there are not one. */
  private directive(closing: boolean): boolean {
    const { src } = this;
    const at = this.pos;
    const nameAt = at + (closing ? 3 : 2);
    if (!closing && src.startsWith('--', nameAt)) return this.comment(at);
    NAME.lastIndex = nameAt;
    const name = NAME.exec(src)?.[0];
    if (!name) return false;
    const tag = `[${closing ? '/' : ''}#${name}]`;
    if (!closing && !DIRECTIVES.has(name)) throw errorAt(src, at, `Unknown directive ${tag} (known: ${KNOWN})`);
    if (closing && name !== 'if' && name !== 'list') throw errorAt(src, at, `Unknown closing directive ${tag} (only [/#if] and [/#list] close a block)`);
    this.countTag();
    const p = new ExprParser(src, nameAt + name.length, this.loops);
    if (closing) {
      p.close(']', tag, at);
      this.closeBlock(name, tag, at);
      this.span(at, p.end, 'close');
    } else if (name === 'if' || name === 'list') {
      this.openBlock(name, p, at);
      this.span(at, p.end, 'open');
    } else if (name === 'elseif') {
      const frame = this.frameFor(tag, at, 'if');
      const cond = p.expression(tag);
      p.close(']', tag, at);
      const body: Node[] = [];
      (frame.node as IfNode).branches.push({ cond, body });
      frame.target = body;
      this.span(at, p.end, 'mid');
    } else if (name === 'else') {
      const frame = this.frameFor(tag, at);
      p.close(']', tag, at);
      frame.node.otherwise = frame.target = [];
      frame.hasElse = true;
      this.span(at, p.end, 'mid');
    } else {
      // [#noparse]: the text up to [/#noparse] as it is.
      p.close(']', tag, at);
      const end = src.indexOf('[/#noparse]', p.end);
      if (end < 0) throw errorAt(src, at, 'Unclosed [#noparse]: add [/#noparse]');
      this.span(at, p.end, 'open');
      this.text(p.end, end);
      this.pos = end + '[/#noparse]'.length;
      this.span(end, this.pos, 'close');
      return true;
    }
    this.pos = p.end;
    return true;
  }

  private openBlock(kind: 'if' | 'list', p: ExprParser, at: number): void {
    if (this.stack.length >= MAX_NESTING) throw errorAt(this.src, at, `Directives nested more than ${MAX_NESTING} deep`);
    const e = p.expression(`[#${kind}]`);
    let frame: Frame;
    if (kind === 'if') {
      const node: IfNode = { k: 'if', branches: [{ cond: e, body: [] }], otherwise: null };
      frame = { kind, node, pos: at, target: node.branches[0].body, hasElse: false };
    } else {
      p.word('as', '[#list]');
      const node: ListNode = { k: 'list', e, name: p.name('[#list]'), body: [], otherwise: null };
      frame = { kind, node, pos: at, target: node.body, hasElse: false };
    }
    p.close(']', `[#${kind}]`, at);
    this.target.push(frame.node);
    this.stack.push(frame);
  }

  private closeBlock(name: string, tag: string, at: number): void {
    const frame = this.stack.at(-1);
    if (!frame) throw errorAt(this.src, at, `${tag} without an opening [#${name}]`);
    if (frame.kind === 'wrap') throw new RangeError(`Instrumented range ${frame.node.id} does not hold whole blocks`);
    if (frame.kind !== name) {
      throw errorAt(this.src, at, `${tag} found while [#${frame.kind}] (${this.place(frame.pos)}) is still open: close it with [/#${frame.kind}] first`);
    }
    this.stack.pop();
  }

  /** The innermost open block, if it may take `tag` ([#elseif]: an if; [#else]: an if or a list, once). */
  private frameFor(tag: string, at: number, kind?: 'if'): Exclude<Frame, { kind: 'wrap' }> {
    const frame = this.stack.at(-1);
    if (frame?.kind === 'wrap') throw new RangeError(`Instrumented range ${frame.node.id} does not hold whole blocks`);
    const expected = kind ? '[#if]' : '[#if] or [#list]';
    if (!frame || (kind && frame.kind !== kind)) throw errorAt(this.src, at, `${tag} outside ${expected}`);
    if (frame.hasElse) throw errorAt(this.src, at, `${tag} after the [#else] of the [#${frame.kind}] at ${this.place(frame.pos)}`);
    return frame;
  }

  private comment(at: number): boolean {
    const end = this.src.indexOf('--]', at + 4);
    if (end < 0) throw errorAt(this.src, at, 'Unclosed comment [#--: add --]');
    this.pos = end + 3;
    this.span(at, this.pos, 'inert');
    return true;
  }

  private place(offset: number): string {
    const { line, column } = errorAt(this.src, offset, '');
    return `line ${line}, column ${column}`;
  }
}
