// Errors of the substitution language. A template is user input checked when a request is
// accepted, so every message says what is wrong and where (1-based line and column).

/** A template that does not compile. `line`/`column` are 1-based; absent for errors about the whole template. */
export class TemplateError extends Error {
  constructor(
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(line === undefined ? reason : `Line ${line}, column ${column}: ${reason}`);
    this.name = 'TemplateError';
  }
}

/** A problem found where the offset is unknown (a built-in's arguments): the caller places it. */
export class Problem extends Error {}

/** A TemplateError at `offset` of `source` (CRLF, LF and a lone CR each end a line). */
export function errorAt(source: string, offset: number, reason: string): TemplateError {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < source.length; i++) {
    const ch = source.charCodeAt(i);
    if (ch === 10 || (ch === 13 && source.charCodeAt(i + 1) !== 10)) {
      line++;
      lineStart = i + 1;
    }
  }
  return new TemplateError(reason, line, offset - lineStart + 1);
}
