// Tokens of the expressions inside ${…} and [#…]. The parser pulls one token at a time, so the
// lexer never reads past the `}` or `]` that ends an expression (the template text after it is
// not expression syntax).
import { errorAt } from './error';

export type TokenKind = 'id' | 'num' | 'str' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The source text (for messages); for 'op' and 'id' also the value. */
  text: string;
  /** The number of a 'num', the decoded text of a 'str'. */
  value: string | number;
  pos: number;
  end: number;
}

// Longest first, so `??` wins over `?` and `<=` over `<`.
const OPS = ['??', '!=', '==', '<=', '>=', '&&', '||', '?', '!', '=', '<', '>', '(', ')', '[', ']', '}', '.', ',', '-'];
const SPACE = /\s*/y;
const IDENT = /[\p{L}_$][\p{L}\p{N}_$]*/uy;
const NUMBER = /\d+(?:\.\d+)?/y;
const ESCAPES = new Map([['"', '"'], ["'", "'"], ['\\', '\\'], ['n', '\n'], ['r', '\r'], ['t', '\t'], ['$', '$'], ['{', '{'], ['}', '}']]);

export class Lexer {
  constructor(
    private readonly src: string,
    private pos: number,
  ) {}

  next(): Token {
    const { src } = this;
    SPACE.lastIndex = this.pos;
    SPACE.exec(src);
    const start = SPACE.lastIndex;
    if (start >= src.length) return this.token('eof', '', '', start, start);
    const ch = src[start];
    if (ch === '"' || ch === "'") return this.string(ch, start);
    for (const [re, kind] of [[IDENT, 'id'], [NUMBER, 'num']] as const) {
      re.lastIndex = start;
      const m = re.exec(src);
      if (m) return this.token(kind, m[0], kind === 'num' ? Number(m[0]) : m[0], start, re.lastIndex);
    }
    const op = OPS.find((o) => src.startsWith(o, start));
    if (op) return this.token('op', op, op, start, start + op.length);
    throw errorAt(src, start, `Unexpected character '${String.fromCodePoint(src.codePointAt(start) ?? 0)}' in an expression`);
  }

  private string(quote: string, start: number): Token {
    const { src } = this;
    let value = '';
    for (let i = start + 1; i < src.length; i++) {
      const ch = src[i];
      if (ch === quote) return this.token('str', src.slice(start, i + 1), value, start, i + 1);
      if (ch === '\\') {
        if (i + 1 >= src.length) break;
        const decoded = ESCAPES.get(src[i + 1]);
        if (decoded === undefined) throw errorAt(src, i, `Unknown escape '\\${src[i + 1]}' in a string literal (write '\\\\' for a backslash)`);
        value += decoded;
        i++;
      } else {
        value += ch;
      }
    }
    throw errorAt(src, start, `Unterminated string literal: add the closing ${quote}`);
  }

  private token(kind: TokenKind, text: string, value: string | number, pos: number, end: number): Token {
    this.pos = end;
    return { kind, text, value, pos, end };
  }
}
