// The template tree as a Handlebars program. Handlebars only sequences text and calls four
// helpers of a private environment; every value comes from the dialect's own evaluators, so
// Handlebars never looks anything up in the model and its escaping is off (ours is exact).
import Handlebars from 'handlebars';
import { compileExpr, type LoopState, type Scope } from './eval';
import type { Node } from './parse';
import { truthy } from './values';

/** The per-template tables the helpers index into (Handlebars source holds only their numbers). */
interface Program {
  readonly outs: Array<(scope: Scope) => string>;
  readonly conds: Array<(scope: Scope) => boolean>;
  readonly lists: Array<(scope: Scope) => unknown>;
  readonly texts: string[];
}

/** What an instrumented template (see Instrumentation) calls while it renders. */
export interface RenderHooks {
  /** The text written for instrumented range `id`, given the text the range rendered to. */
  wrap(id: number, text: string): string;
  /** The text written at instrumented point `id`. */
  insert(id: number): string;
}

/** The Handlebars context: the dialect's scope plus the program's tables and the host's hooks. */
interface RenderScope extends Scope {
  readonly prog: Program;
  readonly hooks: RenderHooks | undefined;
}

const env = Handlebars.create();
// Only our helpers exist: a built-in one (lookup, each…) in generated source would be a bug.
for (const name of ['each', 'if', 'unless', 'with', 'lookup', 'log']) env.unregisterHelper(name);
env.registerHelper({
  /** ${…}: the expression's text, escaped as the template's options say. */
  dv(this: RenderScope, id: number) {
    return this.prog.outs[id](this);
  },
  /** Literal text Handlebars would misread (see emitText). */
  dt(this: RenderScope, id: number) {
    return this.prog.texts[id];
  },
  /** [#if]/[#elseif]: Handlebars' `{{else dif n}}` chains the branches. */
  dif(this: RenderScope, id: number, options: Handlebars.HelperOptions) {
    return this.prog.conds[id](this) ? options.fn(this) : options.inverse(this);
  },
  /** [#list]: the body once per item, in a scope with one more loop; [#else] when there are none. */
  dlist(this: RenderScope, id: number, options: Handlebars.HelperOptions) {
    const items = this.prog.lists[id](this);
    if (!Array.isArray(items) || items.length === 0) return options.inverse(this);
    // One state per list, updated in place: rendering is synchronous, so each item's body is done before the next.
    const loop: LoopState = { item: undefined, index: 0, length: items.length };
    const inner: RenderScope = { prog: this.prog, root: this.root, loops: [...this.loops, loop], hooks: this.hooks };
    let out = '';
    for (let i = 0; i < items.length; i++) {
      loop.item = items[i];
      loop.index = i;
      out += options.fn(inner);
    }
    return out;
  },
  /** An instrumented range: the host rewrites what its body rendered to (without hooks, it stays). */
  dw(this: RenderScope, id: number, options: Handlebars.HelperOptions) {
    const text: string = options.fn(this);
    return this.hooks ? this.hooks.wrap(id, text) : text;
  },
  /** An instrumented point: the host's text (without hooks, nothing). */
  di(this: RenderScope, id: number) {
    return this.hooks ? this.hooks.insert(id) : '';
  },
});

const COMPILE_OPTIONS: CompileOptions = {
  noEscape: true,
  strict: false,
  data: false,
  // Keeps literal text exactly: no whitespace stripping around block tags on their own line.
  ignoreStandalone: true,
  knownHelpersOnly: true,
  knownHelpers: { dv: true, dt: true, dif: true, dlist: true, dw: true, di: true, each: false, if: false, unless: false, with: false, lookup: false, log: false },
};

/** Compiles `nodes` (parsed from `source`) to a render function; `present` writes a ${…} value. */
export function toRenderer(nodes: Node[], source: string, present: (value: unknown) => string): (model: unknown, hooks?: RenderHooks) => string {
  const prog: Program = { outs: [], conds: [], lists: [], texts: [] };
  const template = env.compile<RenderScope>(emit(nodes, prog, source, present), COMPILE_OPTIONS);
  const render = (model: unknown, hooks?: RenderHooks) => template({ prog, root: model, loops: [], hooks });
  // Handlebars compiles on first use: do it now, so a render never pays for it.
  render({});
  return render;
}

function emit(nodes: Node[], prog: Program, source: string, present: (value: unknown) => string): string {
  let out = '';
  for (const node of nodes) {
    switch (node.k) {
      case 'text':
        out += emitText(node.text, prog);
        break;
      case 'out': {
        const value = compileExpr(node.e, source);
        out += `{{dv ${prog.outs.push((s) => present(value(s))) - 1}}}`;
        break;
      }
      case 'if':
        node.branches.forEach(({ cond, body }, i) => {
          const test = compileExpr(cond, source);
          const id = prog.conds.push((s) => truthy(test(s))) - 1;
          out += `${i === 0 ? '{{#dif' : '{{else dif'} ${id}}}${emit(body, prog, source, present)}`;
        });
        out += `${emitOtherwise(node.otherwise, prog, source, present)}{{/dif}}`;
        break;
      case 'list':
        out += `{{#dlist ${prog.lists.push(compileExpr(node.e, source)) - 1}}}${emit(node.body, prog, source, present)}`;
        out += `${emitOtherwise(node.otherwise, prog, source, present)}{{/dlist}}`;
        break;
      case 'wrap':
        out += `{{#dw ${node.id}}}${emit(node.body, prog, source, present)}{{/dw}}`;
        break;
      case 'insert':
        out += `{{di ${node.id}}}`;
        break;
    }
  }
  return out;
}

function emitOtherwise(nodes: Node[] | null, prog: Program, source: string, present: (value: unknown) => string): string {
  return nodes ? `{{else}}${emit(nodes, prog, source, present)}` : '';
}

/**
 * Literal text goes into the Handlebars source as is, unless Handlebars would read it as syntax:
 * `{{` anywhere, a trailing `{` or `\` (it would join the next helper's `{{`), a leading `}` (it
 * would join the previous `}}`), or NUL (its lexer stops there). Such text is served by a helper.
 */
function emitText(text: string, prog: Program): string {
  const unsafe = text.includes('{{') || text.includes('\0') || text.endsWith('{') || text.endsWith('\\') || text.startsWith('}');
  return unsafe ? `{{dt ${prog.texts.push(text) - 1}}}` : text;
}
