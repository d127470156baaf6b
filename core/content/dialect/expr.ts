// Expressions of the substitution language: recursive descent over the lexer's tokens.
// Precedence, loosest first: || ; && ; comparisons (not chainable) ; prefix ! ; postfix
// (.name, [0], ?builtin, ??, !default) applied left to right.
import { errorAt, type TemplateError } from './error';
import { Lexer, type Token } from './lexer';

export type CmpOp = '==' | '!=' | '<' | '<=' | '>' | '>=';
export type Literal = string | number | boolean;

export type Expr =
  | { k: 'lit'; v: Literal; pos: number }
  /** `loop` is the depth of the enclosing [#list] whose variable `root` names, or -1 for the model. */
  | { k: 'path'; root: string; steps: Array<string | number>; loop: number; pos: number }
  | { k: 'not'; e: Expr; pos: number }
  | { k: 'and' | 'or'; a: Expr; b: Expr; pos: number }
  | { k: 'cmp'; op: CmpOp; a: Expr; b: Expr; pos: number }
  /** `e!d`; `d` null for a bare `e!` (empty text). */
  | { k: 'default'; e: Expr; d: Expr | null; pos: number }
  | { k: 'exists'; e: Expr; pos: number }
  | { k: 'builtin'; name: string; args: Literal[]; e: Expr; pos: number };

const CMP_OPS = new Map<string, CmpOp>([['==', '=='], ['=', '=='], ['!=', '!='], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>=']]);
// FreeMarker's word operators, handy where an HTML editor would turn < into &lt;.
const CMP_WORDS = new Map<string, CmpOp>([['gt', '>'], ['gte', '>='], ['lt', '<'], ['lte', '<=']]);
// After a postfix `!`, these words continue the directive rather than start a default value.
const NOT_A_DEFAULT = new Set(['as', 'gt', 'gte', 'lt', 'lte']);
// Bounds the recursion, so a hostile template is an error and not a stack overflow.
const MAX_DEPTH = 100;

export class ExprParser {
  private readonly lexer: Lexer;
  private tok: Token;
  private depth = 0;
  /** Offset just after the last closer consumed: where template text resumes. */
  end = 0;

  constructor(
    private readonly src: string,
    start: number,
    private readonly loops: readonly string[],
  ) {
    this.lexer = new Lexer(src, start);
    this.tok = this.lexer.next();
  }

  /** One whole expression; `what` names the construct for messages ("[#if]", "${…}"). */
  expression(what: string): Expr {
    if (this.tok.kind === 'eof' || this.isOp(']') || this.isOp('}')) throw this.fail(this.tok, `Missing expression in ${what}`);
    return this.or();
  }

  /** Consumes the `}` or `]` that ends `what`, opened at `openPos`. */
  close(closer: '}' | ']', what: string, openPos: number): void {
    if (this.isOp(closer)) {
      this.end = this.tok.end;
      return;
    }
    if (this.tok.kind === 'eof') throw errorAt(this.src, openPos, `Unclosed ${what}: no '${closer}' before the end of the template`);
    throw this.fail(this.tok, `Expected '${closer}' to end ${what} but found ${describe(this.tok)}`);
  }

  word(word: string, what: string): void {
    if (this.tok.kind !== 'id' || this.tok.text !== word) throw this.fail(this.tok, `Expected '${word}' in ${what} but found ${describe(this.tok)}`);
    this.advance();
  }

  name(what: string): string {
    const { tok } = this;
    if (tok.kind !== 'id' || tok.text === 'true' || tok.text === 'false') throw this.fail(tok, `Expected a variable name in ${what} but found ${describe(tok)}`);
    this.advance();
    return tok.text;
  }

  private or(): Expr {
    let a = this.and();
    while (this.isOp('||')) {
      const pos = this.advance().pos;
      a = { k: 'or', a, b: this.and(), pos };
    }
    return a;
  }

  private and(): Expr {
    let a = this.comparison();
    while (this.isOp('&&')) {
      const pos = this.advance().pos;
      a = { k: 'and', a, b: this.comparison(), pos };
    }
    return a;
  }

  private comparison(): Expr {
    const a = this.unary();
    const op = this.cmpOp();
    if (!op) return a;
    const pos = this.advance().pos;
    const b = this.unary();
    if (this.cmpOp()) throw this.fail(this.tok, 'Comparisons cannot be chained: combine them with && or ||');
    return { k: 'cmp', op, a, b, pos };
  }

  private cmpOp(): CmpOp | undefined {
    const { tok } = this;
    if (tok.kind === 'op') return CMP_OPS.get(tok.text);
    return tok.kind === 'id' ? CMP_WORDS.get(tok.text) : undefined;
  }

  private unary(): Expr {
    if (!this.isOp('!')) return this.postfix(this.primary());
    const pos = this.advance().pos;
    return { k: 'not', e: this.nested(() => this.unary()), pos };
  }

  private postfix(start: Expr): Expr {
    let e = start;
    for (;;) {
      const { tok } = this;
      if (this.isOp('?')) {
        this.advance();
        const nameTok = this.tok;
        if (nameTok.kind !== 'id') throw this.fail(nameTok, `Expected a built-in name after '?' but found ${describe(nameTok)}`);
        this.advance();
        e = { k: 'builtin', name: nameTok.text, args: this.isOp('(') ? this.args() : [], e, pos: nameTok.pos };
      } else if (this.isOp('??')) {
        this.advance();
        e = { k: 'exists', e, pos: tok.pos };
      } else if (this.isOp('!')) {
        this.advance();
        e = { k: 'default', e, d: this.startsOperand() ? this.primary() : null, pos: tok.pos };
      } else if (this.isOp('.') || this.isOp('[')) {
        throw this.fail(tok, `'${tok.text}' must follow a variable name`);
      } else {
        return e;
      }
    }
  }

  private startsOperand(): boolean {
    const { tok } = this;
    if (tok.kind === 'id') return !NOT_A_DEFAULT.has(tok.text);
    return tok.kind === 'num' || tok.kind === 'str' || this.isOp('(') || this.isOp('-');
  }

  private primary(): Expr {
    const tok = this.advanceIfNotEnd();
    switch (tok.kind) {
      case 'num':
      case 'str':
        return { k: 'lit', v: tok.value, pos: tok.pos };
      case 'id':
        if (tok.text === 'true' || tok.text === 'false') return { k: 'lit', v: tok.text === 'true', pos: tok.pos };
        return this.path({ k: 'path', root: tok.text, steps: [], loop: this.loops.lastIndexOf(tok.text), pos: tok.pos });
      default:
        if (tok.text === '-' && this.tok.kind === 'num') return { k: 'lit', v: -Number(this.advance().value), pos: tok.pos };
        if (tok.text === '(') {
          const inner = this.nested(() => this.or());
          if (!this.isOp(')')) throw this.fail(this.tok, `Expected ')' but found ${describe(this.tok)}`);
          this.advance();
          return inner;
        }
        throw this.fail(tok, `Expected a value but found ${describe(tok)}`);
    }
  }

  /** `.name` and `[0]` / `["key"]` steps after a variable (other values have no fields). */
  private path(e: Extract<Expr, { k: 'path' }>): Expr {
    for (;;) {
      if (this.isOp('.')) {
        this.advance();
        const step = this.tok;
        if (step.kind !== 'id') throw this.fail(step, `Expected a field name after '.' but found ${describe(step)}`);
        e.steps.push(this.advance().text);
      } else if (this.isOp('[')) {
        this.advance();
        const key = this.tok;
        if (key.kind !== 'num' && key.kind !== 'str') throw this.fail(key, `Expected a number or a quoted key inside [ ] but found ${describe(key)}`);
        e.steps.push(this.advance().value);
        if (!this.isOp(']')) throw this.fail(this.tok, `Expected ']' but found ${describe(this.tok)}`);
        this.advance();
      } else {
        return e;
      }
    }
  }

  /** `(lit, lit…)` of a built-in: literals only, so they are checked when the template compiles. */
  private args(): Literal[] {
    this.advance();
    const args: Literal[] = [];
    while (!this.isOp(')')) {
      if (args.length > 0) {
        if (!this.isOp(',')) throw this.fail(this.tok, `Expected ',' or ')' but found ${describe(this.tok)}`);
        this.advance();
      }
      const tok = this.advanceIfNotEnd();
      if (tok.kind === 'str' || tok.kind === 'num') args.push(tok.value);
      else if (tok.kind === 'id' && (tok.text === 'true' || tok.text === 'false')) args.push(tok.text === 'true');
      else if (tok.text === '-' && this.tok.kind === 'num') args.push(-Number(this.advance().value));
      else throw this.fail(tok, `Built-in arguments must be literal values (quoted text, numbers, true or false); found ${describe(tok)}`);
    }
    this.advance();
    return args;
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) throw this.fail(this.tok, 'Expression nested too deeply');
    const result = parse();
    this.depth--;
    return result;
  }

  private isOp(text: string): boolean {
    return this.tok.kind === 'op' && this.tok.text === text;
  }

  private advance(): Token {
    const tok = this.tok;
    this.tok = this.lexer.next();
    return tok;
  }

  /** Advances, unless the expression has run into its closer or the end (then: a clear error). */
  private advanceIfNotEnd(): Token {
    if (this.tok.kind === 'eof') throw this.fail(this.tok, 'Unexpected end of the template in an expression');
    if (this.isOp('}') || this.isOp(']') || this.isOp(')')) throw this.fail(this.tok, `Expected a value but found ${describe(this.tok)}`);
    return this.advance();
  }

  private fail(tok: Token, reason: string): TemplateError {
    return errorAt(this.src, tok.pos, reason);
  }
}

function describe(tok: Token): string {
  if (tok.kind === 'eof') return 'the end of the template';
  return `'${tok.text.length > 20 ? `${tok.text.slice(0, 20)}…` : tok.text}'`;
}
