import { checkJsonDepth, checkStructure, DEFAULT_LIMITS, LimitError } from '../../core/shared/limits';

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

describe('checkJsonDepth', () => {
  it('passes text up to the limit and refuses one level more', () => {
    expect(() => checkJsonDepth(nested(32), 32)).not.toThrow();
    expect(() => checkJsonDepth(nested(33), 32)).toThrow(LimitError);
  });

  it('refuses a 5,000,000-level body in one pass without parsing it', () => {
    expect(() => checkJsonDepth(nested(5_000_000), 32)).toThrow('Nesting deeper than 32 levels');
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '[[[[{{{{"\\"[[[[', b: ['x'] });
    expect(() => checkJsonDepth(text, 2)).not.toThrow();
  });

  it('counts brackets after a string ending in escaped backslashes, and leaves an unterminated string to the parser', () => {
    // "a\\\\" ends after two escaped backslashes: the brackets after it count.
    expect(() => checkJsonDepth(`[${JSON.stringify('a\\\\')},[[[]]]]`, 3)).toThrow(LimitError);
    expect(() => checkJsonDepth(`[${JSON.stringify('a\\\\')},[[]]]`, 3)).not.toThrow();
    expect(() => checkJsonDepth('["never closed [[[[', 2)).not.toThrow();
  });
});

describe('checkStructure', () => {
  const deep = (levels: number) => {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = { a: value };
    return value;
  };

  it('accepts an ordinary send body', () => {
    expect(() => checkStructure({ from: { email: 'a@b.c' }, recipients: [{ to: { email: 'x@y.z' }, substitutions: { order: { items: [{ n: 1 }] } } }] }))
      .not.toThrow();
  });

  it('refuses nesting beyond the limit, naming where', () => {
    expect(() => checkStructure(deep(32))).not.toThrow();
    expect(() => checkStructure(deep(33))).toThrow(/Nesting deeper than 32 levels at a(\.a)+/);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    expect(() => checkStructure(deep(100_000))).toThrow(LimitError);
  });

  it('refuses too many keys, too many items and too long keys', () => {
    const keys = Object.fromEntries(Array.from({ length: DEFAULT_LIMITS.maxKeys + 1 }, (_, i) => [`k${i}`, i]));
    expect(() => checkStructure({ substitutions: keys })).toThrow('More than 1000 keys at substitutions');
    expect(() => checkStructure({ list: new Array(DEFAULT_LIMITS.maxItems + 1).fill(0) })).toThrow('More than 10000 items at list');
    expect(() => checkStructure({ ['k'.repeat(1001)]: 1 })).toThrow('Key longer than 1000 characters');
  });

  it.each(['__proto__', '$where', '$ne', '$'])('refuses the key %s at any depth', (key) => {
    const body = JSON.parse(`{"recipients":[{"substitutions":{"${key}":{"x":1}}}]}`);
    expect(() => checkStructure(body)).toThrow(`Key "${key}" is not allowed at recipients[0].substitutions`);
  });

  it('refuses lone surrogates in strings and keys, accepts real astral characters', () => {
    expect(() => checkStructure(JSON.parse('{"subject":"a\\ud800b"}'))).toThrow('Invalid Unicode');
    expect(() => checkStructure(JSON.parse('{"a\\udc00":1}'))).toThrow('Invalid Unicode');
    expect(() => checkStructure({ subject: 'ok \u{1F600}' })).not.toThrow();
  });
});

describe('string length', () => {
  it('refuses a string longer than the limit, naming where', () => {
    expect(() => checkStructure({ a: 'x'.repeat(DEFAULT_LIMITS.maxStringLength) })).not.toThrow();
    expect(() => checkStructure({ a: ['x'.repeat(DEFAULT_LIMITS.maxStringLength + 1)] })).toThrow('String longer than 1048576 characters at a[0]');
  });
});
