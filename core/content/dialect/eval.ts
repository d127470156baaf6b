// Expressions compiled to closures once per template, so rendering walks no syntax tree.
import { builtin, LOOP_BUILTINS, type Apply } from './builtins';
import { errorAt, Problem } from './error';
import type { Expr } from './expr';
import { child, COMPARE, isBlank, isMissing, truthy, walk } from './values';

/** One running [#list]: the helper updates it in place for each item. */
export interface LoopState {
  item: unknown;
  index: number;
  length: number;
}

/** What an expression sees: the model and the running loops, outermost first. */
export interface Scope {
  readonly root: unknown;
  readonly loops: readonly LoopState[];
}

export type Evaluator = (scope: Scope) => unknown;

export function compileExpr(expr: Expr, source: string): Evaluator {
  switch (expr.k) {
    case 'lit': {
      const { v } = expr;
      return () => v;
    }
    case 'path': {
      const { root, steps, loop } = expr;
      const base: Evaluator = loop >= 0 ? (s) => s.loops[loop].item : (s) => child(s.root, root);
      return steps.length === 0 ? base : (s) => walk(base(s), steps);
    }
    case 'not': {
      const e = compileExpr(expr.e, source);
      return (s) => !truthy(e(s));
    }
    case 'and':
    case 'or': {
      const a = compileExpr(expr.a, source);
      const b = compileExpr(expr.b, source);
      return expr.k === 'and' ? (s) => truthy(a(s)) && truthy(b(s)) : (s) => truthy(a(s)) || truthy(b(s));
    }
    case 'cmp': {
      const test = COMPARE[expr.op];
      const a = compileExpr(expr.a, source);
      const b = compileExpr(expr.b, source);
      return (s) => test(a(s), b(s));
    }
    case 'default': {
      const e = compileExpr(expr.e, source);
      const d = expr.d ? compileExpr(expr.d, source) : () => '';
      return (s) => {
        const v = e(s);
        return isBlank(v) ? d(s) : v;
      };
    }
    case 'exists': {
      const e = compileExpr(expr.e, source);
      return (s) => !isMissing(e(s));
    }
    case 'builtin':
      return compileBuiltin(expr, source);
  }
}

function compileBuiltin(expr: Extract<Expr, { k: 'builtin' }>, source: string): Evaluator {
  const loopBuiltin = LOOP_BUILTINS.get(expr.name);
  if (loopBuiltin) {
    const target = expr.e;
    if (target.k !== 'path' || target.steps.length > 0 || target.loop < 0 || expr.args.length > 0) {
      throw errorAt(source, expr.pos, `?${expr.name} applies only to the variable of an enclosing [#list] and takes no arguments`);
    }
    const depth = target.loop;
    return (s) => loopBuiltin(s.loops[depth]);
  }
  let apply: Apply;
  try {
    apply = builtin(expr.name, expr.args);
  } catch (err) {
    throw err instanceof Problem ? errorAt(source, expr.pos, err.message) : err;
  }
  const e = compileExpr(expr.e, source);
  return (s) => apply(e(s));
}
