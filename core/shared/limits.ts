// Limits on the structure of anything a client sends (JSON and form bodies, later query
// filters), checked at the door before a value is parsed further, validated or stored.
// Nothing here recurses: a hostile body cannot overflow the stack.

export interface StructureLimits {
  /** Nesting levels of objects and arrays (MongoDB refuses documents over 100; Herald's shapes need < 10). */
  maxDepth: number;
  /** Keys of one object. */
  maxKeys: number;
  /** Items of one array. */
  maxItems: number;
  /** Characters of one key. */
  maxKeyLength: number;
  /** Characters of one string value (an interface with bigger fields, such as attachments, raises it). */
  maxStringLength: number;
}

export const DEFAULT_LIMITS: StructureLimits = {
  maxDepth: 32, maxKeys: 1000, maxItems: 10_000, maxKeyLength: 1000, maxStringLength: 1024 * 1024,
};

/** Why a value was refused; `path` points at the offending place (recipients[3].substitutions). */
export class LimitError extends Error {
  constructor(message: string, readonly path: string) {
    super(path ? `${message} at ${path}` : message);
    this.name = 'LimitError';
  }
}

/**
 * Depth of JSON text, counted without parsing it, so a body of a million brackets is
 * refused in one linear pass instead of being parsed first. Throws beyond maxDepth. A string is
 * skipped to its closing quote with native searches: a send's HTML is most of its text.
 */
export function checkJsonDepth(text: string, maxDepth: number): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) return; // unterminated: the parser refuses it
    } else if (c === 0x7b || c === 0x5b) { // { [
      if (++depth > maxDepth) throw new LimitError(`Nesting deeper than ${maxDepth} levels`, '');
    } else if (c === 0x7d || c === 0x5d) { // } ]
      depth--;
    }
  }
}

/** The index of the quote closing the string opened at `open` (one not escaped by an odd run of backslashes), or -1. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/**
 * Walks a parsed value breadth-first with an explicit queue and enforces every limit. Keys
 * that could reach a prototype or a MongoDB operator (`__proto__`, `$…`) are refused too,
 * and strings must be well-formed Unicode (no lone surrogates from `\ud800` escapes).
 */
export function checkStructure(value: unknown, limits: StructureLimits = DEFAULT_LIMITS): void {
  const queue: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  for (let head = 0; head < queue.length; head++) {
    const { value: node, path, depth } = queue[head];
    if (typeof node === 'string') {
      if (node.length > limits.maxStringLength) throw new LimitError(`String longer than ${limits.maxStringLength} characters`, path);
      if (!node.isWellFormed()) throw new LimitError('Invalid Unicode (lone surrogate) in a string', path);
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > limits.maxDepth) throw new LimitError(`Nesting deeper than ${limits.maxDepth} levels`, path);
    if (Array.isArray(node)) {
      if (node.length > limits.maxItems) throw new LimitError(`More than ${limits.maxItems} items`, path);
      node.forEach((item, index) => queue.push({ value: item, path: `${path}[${index}]`, depth: depth + 1 }));
      continue;
    }
    const keys = Object.keys(node);
    if (keys.length > limits.maxKeys) throw new LimitError(`More than ${limits.maxKeys} keys`, path);
    for (const key of keys) {
      const childPath = path ? `${path}.${key.slice(0, 100)}` : key.slice(0, 100);
      if (key.length > limits.maxKeyLength) throw new LimitError(`Key longer than ${limits.maxKeyLength} characters`, childPath);
      if (key === '__proto__' || key.startsWith('$')) throw new LimitError(`Key "${key.slice(0, 100)}" is not allowed`, path);
      if (!key.isWellFormed()) throw new LimitError('Invalid Unicode (lone surrogate) in a key', path);
      queue.push({ value: (node as Record<string, unknown>)[key], path: childPath, depth: depth + 1 });
    }
  }
}
