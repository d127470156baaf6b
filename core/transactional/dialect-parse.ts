// The template level: literal text, ${…} interpolations and the [#…] directives, as a tree.
// `[#` followed by a letter is always a directive (an unknown name is an error, so a typo is
// reported rather than sent); any other `[`, `$` or `#` is literal text.
import { errorAt } from './dialect-error';
import { ExprParser, type Expr } from './dialect-expr';

export type Node =
  | { k: 'text'; text: string }
  | { k: 'out'; e: Expr }
  | { k: 'if'; branches: Array<{ cond: Expr; body: Node[] }>; otherwise: Node[] | null }
  | { k: 'list'; e: Expr; name: string; body: Node[]; otherwise: Node[] | null };

type IfNode = Extract<Node, { k: 'if' }>;
type ListNode = Extract<Node, { k: 'list' }>;

type Frame = { pos: number; target: Node[]; hasElse: boolean } & ({ kind: 'if'; node: IfNode } | { kind: 'list'; node: ListNode });

const START = /\$\{|\[\/?#/g;
const NAME = /[A-Za-z]\w*/y;
const DIRECTIVES = new Set(['if', 'elseif', 'else', 'list', 'noparse']);
const KNOWN = '[#if], [#elseif], [#else], [#list], [#noparse], [#-- comment --]';
// Bounds the recursion of the Handlebars compiler and of rendering.
const MAX_NESTING = 100;
// Bounds compile time: Handlebars needs about 50 µs per tag, so 2,000 tags stay near 100 ms.
export const MAX_TAGS = 2000;

export function parseTemplate(source: string): Node[] {
  return new TemplateParser(source).parse();
}

class TemplateParser {
  private readonly root: Node[] = [];
  private readonly stack: Frame[] = [];
  private pos = 0;
  private tags = 0;

  constructor(private readonly src: string) {}

  parse(): Node[] {
    const { src } = this;
    const start = new RegExp(START);
    while (this.pos < src.length) {
      start.lastIndex = this.pos;
      const m = start.exec(src);
      if (!m) break;
      this.text(src.slice(this.pos, m.index));
      this.pos = m.index;
      if (m[0] === '${') this.interpolation();
      else if (!this.directive(m[0] === '[/#')) {
        // Not a directive after all ("[#1]", "[/#"): keep the characters as text.
        this.text(m[0]);
        this.pos += m[0].length;
      }
    }
    this.text(src.slice(this.pos));
    this.pos = src.length;
    const open = this.stack.at(-1);
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

  private text(text: string): void {
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
    } else if (name === 'if' || name === 'list') {
      this.openBlock(name, p, at);
    } else if (name === 'elseif') {
      const frame = this.frameFor(tag, at, 'if');
      const cond = p.expression(tag);
      p.close(']', tag, at);
      const body: Node[] = [];
      (frame.node as IfNode).branches.push({ cond, body });
      frame.target = body;
    } else if (name === 'else') {
      const frame = this.frameFor(tag, at);
      p.close(']', tag, at);
      frame.node.otherwise = frame.target = [];
      frame.hasElse = true;
    } else {
      // [#noparse]: the text up to [/#noparse] as it is.
      p.close(']', tag, at);
      const end = src.indexOf('[/#noparse]', p.end);
      if (end < 0) throw errorAt(src, at, 'Unclosed [#noparse]: add [/#noparse]');
      this.text(src.slice(p.end, end));
      this.pos = end + '[/#noparse]'.length;
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
    if (frame.kind !== name) {
      throw errorAt(this.src, at, `${tag} found while [#${frame.kind}] (${this.place(frame.pos)}) is still open: close it with [/#${frame.kind}] first`);
    }
    this.stack.pop();
  }

  /** The innermost open block, if it may take `tag` ([#elseif]: an if; [#else]: an if or a list, once). */
  private frameFor(tag: string, at: number, kind?: 'if'): Frame {
    const frame = this.stack.at(-1);
    const expected = kind ? '[#if]' : '[#if] or [#list]';
    if (!frame || (kind && frame.kind !== kind)) throw errorAt(this.src, at, `${tag} outside ${expected}`);
    if (frame.hasElse) throw errorAt(this.src, at, `${tag} after the [#else] of the [#${frame.kind}] at ${this.place(frame.pos)}`);
    return frame;
  }

  private comment(at: number): boolean {
    const end = this.src.indexOf('--]', at + 4);
    if (end < 0) throw errorAt(this.src, at, 'Unclosed comment [#--: add --]');
    this.pos = end + 3;
    return true;
  }

  private place(offset: number): string {
    const { line, column } = errorAt(this.src, offset, '');
    return `line ${line}, column ${column}`;
  }
}
