import fc from 'fast-check';
import { compileTemplate, compiledTemplate, mergeModels, TemplateError, type Model, type TemplateOptions } from '../../core/content/dialect/dialect';
import { tagsBalanced, templateTags } from '../../core/content/dialect/parse';

const render = (source: string, model: Model = {}, options: TemplateOptions = { escape: 'none' }) => compileTemplate(source, options).render(model);
const html = (source: string, model: Model = {}) => render(source, model, { escape: 'html' });

function errorOf(source: string): TemplateError {
  try {
    compileTemplate(source, { escape: 'html' });
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw err;
  }
  throw new Error(`compiled without error: ${source}`);
}

const user = { name: 'Ada', email: 'ada@example.com', address: { city: 'London' }, tags: ['a', 'b'], empty: '', none: null };

describe('interpolation', () => {
  it.each([
    ['Hello ${name}!', { name: 'Ada' }, 'Hello Ada!'],
    ['${user.address.city}', { user }, 'London'],
    ['${ user.name }', { user }, 'Ada'],
    ['${user.address.zip}', { user }, ''],
    ['${nothing.here.at.all}', {}, ''],
    ['${user.name.first}', { user }, ''],
    ['${user.none}', { user }, ''],
    ['${n} ${f} ${t} ${z}', { n: 1234567, f: 2.5, t: true, z: 0 }, '1234567 2.5 true 0'],
    ['[${user.tags}][${user.address}]', { user }, '[][]'],
    ['${user.tags[1]} ${user.tags[5]} ${m["first-name"]} ${m["x"]}', { user, m: { 'first-name': 'Bo' } }, 'b  Bo '],
    ['${"lit"} ${42} ${-1.5} ${true}', {}, 'lit 42 -1.5 true'],
    ['${\'it\\\'s\'} ${"a\\"b\\\\c\\n"}', {}, "it's a\"b\\c\n"],
  ])('%s', (source, model, expected) => {
    expect(render(source, model)).toBe(expected);
  });

  it('renders once per model with the same compiled template', () => {
    const t = compileTemplate('Hi ${name!"there"}', { escape: 'none' });
    expect([{ name: 'Ada' }, {}, { name: 'Bo' }].map((m) => t.render(m))).toEqual(['Hi Ada', 'Hi there', 'Hi Bo']);
  });
});

describe('defaults (!) and ??', () => {
  it.each([
    ['${user.name!"x"}', 'Ada'],
    ['${user.missing!"fallback"}', 'fallback'],
    ["${user.missing!'single'}", 'single'],
    ['${nothing.here!"x"}', 'x'],
    ['${user.none!"null"}', 'null'],
    ['${user.empty!"empty"}', 'empty'],
    ['[${user.missing!}]', '[]'],
    ['${user.missing!user.name}', 'Ada'],
    ['${user.missing!other.missing!"second"}', 'second'],
    ['${user.missing!0}', '0'],
    ['${user.missing!("a")}', 'a'],
    ['${user.name??} ${user.missing??} ${user.none??} ${user.empty??} ${nothing.here??}', 'true false false true false'],
  ])('%s', (source, expected) => {
    expect(render(source, { user })).toBe(expected);
  });

  it('applies ! to the whole expression before it, built-ins included', () => {
    expect(render('${x?upper_case!"none"}|${y?upper_case!"none"}', { y: 'yes' })).toBe('none|YES');
    expect(render('${x!"none"?upper_case}|${y!"none"?upper_case}', { y: 'yes' })).toBe('NONE|YES');
    expect(render('${d?string("0.00")!"n/a"}', { d: 'not a number' })).toBe('n/a');
  });

  it('works in conditions', () => {
    expect(render('[#if user.name??]has[#else]no[/#if] [#if !(nope??)]absent[/#if]', { user })).toBe('has absent');
    expect(render('[#if (x!"a") == "a"]default[/#if] [#if x! && true]no[#else]blank[/#if]', {})).toBe('default blank');
  });
});

describe('conditionals', () => {
  it.each([
    ['[#if a]yes[/#if]', { a: true }, 'yes'],
    ['[#if a]yes[/#if]', { a: false }, ''],
    ['[#if a]yes[#else]no[/#if]', {}, 'no'],
    ['[#if a == 1]one[#elseif a == 2]two[#elseif a == 3]three[#else]other[/#if]', { a: 2 }, 'two'],
    ['[#if a == 1]one[#elseif a == 2]two[#elseif a == 3]three[#else]other[/#if]', { a: 3 }, 'three'],
    ['[#if a == 1]one[#elseif a == 2]two[#elseif a == 3]three[#else]other[/#if]', { a: 9 }, 'other'],
    ['[#if a == 1]one[#elseif a == 2]two[/#if]', { a: 9 }, ''],
    ['[#if a][#if b]ab[#else]a[/#if][#else][#if b]b[#else]none[/#if][/#if]', { a: true, b: false }, 'a'],
    ['[#if a][#if b]ab[#else]a[/#if][#else][#if b]b[#else]none[/#if][/#if]', { a: false, b: true }, 'b'],
    ['[#if user.address.city == "London"]uk[/#if]', { user }, 'uk'],
    ['[#if nothing.here.deep]x[#else]safe[/#if]', {}, 'safe'],
  ])('%s with %j', (source, model, expected) => {
    expect(render(source, model)).toBe(expected);
  });

  it.each([
    [true, true], [false, false], ['x', true], ['', false], [1, true], [-1, true], [0, false],
    [[1], true], [[], false], [{ a: 1 }, true], [{}, false], [null, false], [undefined, false], ['false', true],
  ])('truthiness of %j is %s', (value, expected) => {
    expect(render('[#if v]T[#else]F[/#if]', { v: value })).toBe(expected ? 'T' : 'F');
  });

  it.each([
    ['1 == 1', true], ['1 = 1', true], ['1 != 2', true], ['2 < 3', true], ['3 <= 3', true], ['4 > 3', true], ['3 >= 4', false],
    ['4 gt 3', true], ['3 gte 3', true], ['3 lt 2', false], ['2 lte 2', true],
    ['"abc" == "abc"', true], ['"abc" < "abd"', true], ['"b" > "a"', true], ['n == 10', true], ['n > 9.5', true],
    ['s == 10', true], ['s > 9', true], ['s == "10"', true], ['n == "ten"', false], ['n < "ten"', false],
    ['flag == true', true], ['flag != false', true], ['flag == "true"', false], ['missing == missing2', true],
    ['missing == ""', false], ['missing != 0', true], ['missing < 1', false], ['missing >= 0', false],
    ['d1 < d2', true], ['d1?date < d2?date', true], ['d1?datetime == d1', true],
  ])('%s is %s', (cond, expected) => {
    const model = { n: 10, s: '10', flag: true, d1: '2024-01-01T00:00:00Z', d2: '2024-06-01' };
    expect(render(`[#if ${cond}]T[#else]F[/#if]`, model)).toBe(expected ? 'T' : 'F');
  });

  it.each([
    // && binds tighter than ||: true || (false && false)
    ['true || false && false', true],
    ['false && false || true', true],
    ['(true || false) && false', false],
    // ! binds tighter than &&: (!false) && false
    ['!false && false', false],
    ['!(false && false)', true],
    // ! binds tighter than comparisons: (!one) == true, with one = 1
    ['!one == true', false],
    ['!(one == true)', true],
    // comparisons bind tighter than && and ||
    ['one == 1 && two == 2', true],
    ['one == 2 || two == 2', true],
    ['one == 2 || two == 3 && one == 1', false],
    ['!!one', true],
  ])('precedence: %s is %s', (cond, expected) => {
    expect(render(`[#if ${cond}]T[#else]F[/#if]`, { one: 1, two: 2 })).toBe(expected ? 'T' : 'F');
  });

  it('keeps the text around directives exactly (no standalone-line stripping)', () => {
    expect(render('<ul>\n  [#if a]\n  <li>a</li>\n  [/#if]\n</ul>\n', { a: true })).toBe('<ul>\n  \n  <li>a</li>\n  \n</ul>\n');
    expect(render('[#if a]\n[#else]\nno\n[/#if]\n', {})).toBe('\nno\n\n');
  });

  it('renders a boolean expression as text', () => {
    expect(render('${a > 1} ${!a??}', { a: 2 })).toBe('true false');
  });
});

describe('lists', () => {
  const model = {
    shop: 'Herald',
    orders: [
      { id: 'A', items: [{ name: 'pen' }, { name: 'ink' }] },
      { id: 'B', items: [] },
      { id: 'C', items: [{ name: 'pad' }] },
    ],
  };

  it('iterates with ?index, ?counter, ?has_next, ?is_first and ?is_last', () => {
    const source = '[#list xs as x]${x?index}/${x?counter}:${x}[#if x?has_next],[/#if][#if x?is_first]<first>[/#if][#if x?is_last]<last>[/#if] [/#list]';
    expect(render(source, { xs: ['a', 'b', 'c'] })).toBe('0/1:a,<first> 1/2:b, 2/3:c<last> ');
  });

  it('nests lists; the inner scope sees the outer variable and the model', () => {
    const source = '[#list orders as o]${o.id}${o?index}(' +
      '[#list o.items as i]${shop}:${o.id}.${i.name}@${o?index}.${i?index}[#if i?has_next];[/#if][#else]none[/#list]' +
      ')[#if o?has_next] [/#if][/#list]';
    expect(render(source, model)).toBe('A0(Herald:A.pen@0.0;Herald:A.ink@0.1) B1(none) C2(Herald:C.pad@2.0)');
  });

  it('lets an inner variable shadow an outer one and the model', () => {
    expect(render('[#list xs as x][#list x as x]${x}[/#list]|[/#list] ${x!"model-x"}', { xs: [[1, 2], [3]] })).toBe('12|3| model-x');
    expect(render('[#list xs as shop]${shop}[/#list] ${shop}', { xs: ['a'], shop: 'S' })).toBe('a S');
  });

  it.each([
    ['missing', {}, '[]'],
    ['null', { xs: null }, '[]'],
    ['an object', { xs: { a: 1 } }, '[]'],
    ['a string', { xs: 'abc' }, '[]'],
    ['empty', { xs: [] }, '[]'],
  ])('renders nothing over %s', (_, m, expected) => {
    expect(render('[[#list xs as x]${x}[/#list]]', m)).toBe(expected);
  });

  it('renders [#else] for an empty, missing or non-array list, never with items', () => {
    const source = '[#list xs as x]${x}[#else]no items[/#list]';
    expect([{ xs: [] }, {}, { xs: 'abc' }, { xs: [1, 2] }].map((m) => render(source, m))).toEqual(['no items', 'no items', 'no items', '12']);
  });

  it('takes the list from any expression, a default included', () => {
    expect(render('[#list a.b! as x]${x}[#else]none[/#list] [#list (c!d) as x]${x}[/#list]', { d: [1, 2] })).toBe('none 12');
  });

  it('keeps the loop variable out of the [#else] branch', () => {
    expect(render('[#list xs as x]${x}[#else]${x!"outer"}[/#list]', { xs: [] })).toBe('outer');
  });
});

describe('string built-ins', () => {
  it.each([
    ['${s?upper_case}', 'HELLO WORLD'],
    ['${s?lower_case}', 'hello world'],
    ['${s?lower_case?cap_first}', 'Hello world'],
    ['${padded?cap_first}', '  Élan '],
    ['${s?uncap_first}', 'hello World'],
    ['[${padded?trim}]', '[élan]'],
    ['${s?length} ${e?length}', '11 0'],
    ['${padded?trim?upper_case?length}', '4'],
    ['${markup?html}', '&lt;a href=&quot;x&quot;&gt;R&amp;D&#39;s&lt;/a&gt;'],
    ['${query?url}', 'a%20b%26c%3Dd%2F%C3%A9'],
    ['${n?upper_case}', '12'],
    ['[${missing?upper_case}][${missing?trim?length}]', '[][]'],
    ['${list?size} ${missing?size!"none"} ${s?size!"n/a"}', '3 none n/a'],
    ['${s?has_content} ${e?has_content} ${missing?has_content} ${list?has_content} ${zero?has_content}', 'true false false true true'],
    ['${yes?string("on", "off")} ${no?string("on", "off")} ${s?string("on", "off")!"?"}', 'on off ?'],
    ['${s?string} ${n?string}', 'Hello World 12'],
  ])('%s', (source, expected) => {
    const model = { s: 'Hello World', e: '', padded: '  élan ', markup: '<a href="x">R&D\'s</a>', query: 'a b&c=d/é', n: 12, list: [1, 2, 3], yes: true, no: false, zero: 0 };
    expect(render(source, model)).toBe(expected);
  });
});

describe('number built-ins', () => {
  it.each([
    [1234.5, '0.00', '1234.50'],
    [1234.5, '#,##0.00', '1,234.50'],
    [1234567.891, '#,##0.##', '1,234,567.89'],
    [1234567, '#,##0', '1,234,567'],
    [3, '0.##', '3'],
    [3.14159, '0.##', '3.14'],
    [0.5, '#.##', '.5'],
    [7, '000', '007'],
    [1.005, '0.00', '1.01'],
    [2.5, '0', '3'],
    [-2.5, '0', '-3'],
    [-0.001, '0.00', '0.00'],
    [-1234.5, '#,##0.0', '-1,234.5'],
    [0.25, '0%', '25%'],
    [9.99, '$#,##0.00', '$9.99'],
    ['12.5', '0.00', '12.50'],
  ])('%j?string(%j) is %j', (n, pattern, expected) => {
    expect(render(`\${n?string("${pattern}")}`, { n })).toBe(expected);
  });

  it.each([
    ['${big?c} ${f?c} ${t?c} ${big}', '1234567.5 0.1 true 1234567.5'],
    ['${f2?round} ${neg?round} ${f2?floor} ${up?ceiling} ${text?round}', '3 -2 2 3 13'],
    ['[${word?round}][${word?string("0.00")}][${missing?c}]', '[][][]'],
  ])('%s', (source, expected) => {
    expect(render(source, { big: 1234567.5, f: 0.1, t: true, f2: 2.5, neg: -2.5, up: 2.1, text: '12.6', word: 'abc' })).toBe(expected);
  });
});

describe('date built-ins (UTC)', () => {
  const model = { at: '2024-03-01T10:05:09Z', day: '2024-03-01', local: '2024-03-01T10:00', zoned: '2024-03-01T01:30:00+02:00', ms: 0, bad: '2024-02-30', word: 'soon' };
  it.each([
    ['${at?date}', '2024-03-01'],
    ['${at?datetime}', '2024-03-01 10:05:09'],
    ['${at?time}', '10:05:09'],
    ['${at?string("yyyy-MM-dd")}', '2024-03-01'],
    ['${at?string("dd/MM/yyyy HH:mm")}', '01/03/2024 10:05'],
    ['${at?string("d/M/yy H:m:s")}', '1/3/24 10:5:9'],
    ["${at?string(\"yyyy-MM-dd'T'HH:mm'Z' 'o''clock'\")}", "2024-03-01T10:05Z o'clock"],
    ['${at?date?string("dd.MM.yyyy")}', '01.03.2024'],
    ['${day?datetime}', '2024-03-01 00:00:00'],
    ['${local?datetime}', '2024-03-01 10:00:00'],
    ['${zoned?string("yyyy-MM-dd HH:mm")}', '2024-02-29 23:30'],
    ['${ms?datetime} ${ms?string("yyyy")}', '1970-01-01 00:00:00 1970'],
    ['${at?datetime?c}', '2024-03-01T10:05:09.000Z'],
    ['[${bad?date}][${word?datetime}][${missing?date}]', '[][][]'],
    ['${bad?date!"no date"}', 'no date'],
  ])('%s', (source, expected) => {
    expect(render(source, model)).toBe(expected);
  });
});

describe('escaping', () => {
  const model = { name: '<b>"Tom" & \'Jerry\'</b>', link: '<a href="/x">x</a>' };

  it('HTML-escapes every interpolated value with escape: html', () => {
    expect(html('<p>${name}</p>', model)).toBe('<p>&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;</p>');
    expect(html('${missing!"<none>"}', model)).toBe('&lt;none&gt;');
  });

  it('leaves a value ending with ?no_esc as it is', () => {
    expect(html('${link?no_esc}', model)).toBe('<a href="/x">x</a>');
    expect(html('${link?no_esc?upper_case}', model)).toBe('&lt;A HREF=&quot;/X&quot;&gt;X&lt;/A&gt;');
    expect(html('${missing?no_esc!"<i>d</i>"}', model)).toBe('&lt;i&gt;d&lt;/i&gt;');
    expect(html('[${missing?no_esc}]', model)).toBe('[]');
  });

  it('does not escape ?html output twice', () => {
    expect(html('${name?html}', model)).toBe('&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;');
    expect(render('${name?html}', model)).toBe('&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;/b&gt;');
  });

  it('escapes nothing with escape: none', () => {
    expect(render('<p>${name}</p>${link?no_esc}', model)).toBe('<p><b>"Tom" & \'Jerry\'</b></p><a href="/x">x</a>');
  });

  it('never changes literal template text', () => {
    expect(html('<a href="x?a=1&b=2">it\'s</a> ${"ok"}', {})).toBe('<a href="x?a=1&b=2">it\'s</a> ok');
  });
});

describe('singleLine', () => {
  const model = { s: 'a\r\nb\nc\rd', raw: 'x\ny' };

  it('turns CR, LF and CRLF of interpolated values into spaces', () => {
    expect(render('Subject: ${s}', model, { escape: 'none', singleLine: true })).toBe('Subject: a b c d');
    expect(render('${raw?no_esc}|${missing!"1\\n2"}', model, { escape: 'html', singleLine: true })).toBe('x y|1 2');
  });

  it('keeps line breaks without it, and in literal text', () => {
    expect(render('${s}', model)).toBe('a\r\nb\nc\rd');
    expect(render('l1\nl2 ${raw}', model, { escape: 'none', singleLine: true })).toBe('l1\nl2 x y');
  });
});

describe('literal text', () => {
  it.each([
    ['{{x}} {{{y}}} \\{{z}} {{! c }} {{> p}} ${a}', '{{x}} {{{y}}} \\{{z}} {{! c }} {{> p}} 1'],
    ['{${a}}', '{1}'],
    ['\\${a}\\', '\\1\\'],
    ['\\\\${a}{{', '\\\\1{{'],
    ['}}${a}{{', '}}1{{'],
    ['a\0b${a}\0', 'a\0b1\0'],
    ['Price: $5, $ ${a} $$ $', 'Price: $5, $ 1 $$ $'],
    ['[link] [#1] [# x] [/#] [#] # [/ ${a}]', '[link] [#1] [# x] [/#] [#] # [/ 1]'],
    ['${a}[#', '1[#'],
    ['${a}}', '1}'],
    ['[#if true]{{x}}[#else]{{y}}[/#if]', '{{x}}'],
    ['a[#-- a comment ${x} [#if --]b${a}', 'ab1'],
    ['[#noparse]${a} [#if][/#noparse]${a}', '${a} [#if]1'],
    ['${"${"}a}', '${a}'],
  ])('%j', (source, expected) => {
    expect(render(source, { a: 1 })).toBe(expected);
    expect(html(source, { a: 1 })).toBe(expected);
  });

  it('returns a source without directives as it is', () => {
    const source = 'Hi {{name}}, $5 [#1] \\{{x}} <b>&amp;</b>';
    expect(compileTemplate(source, { escape: 'html' }).render({ name: 'x' })).toBe(source);
    expect(render('a[#-- only a comment --]b')).toBe('ab');
  });

  it('passes any text around directives through unchanged (property)', () => {
    const chars = fc.constantFrom('a', ' ', '\n', '\r', '{', '}', '\\', '$', '[', ']', '#', '/', '!', '~', '>', '&', '<', '"', "'", '\0', 'é', '😀');
    const text = fc.array(chars, { maxLength: 12 }).map((cs) => cs.join('')).filter((t) => !/\$\{|\[\/?#/.test(t));
    fc.assert(fc.property(text, text, text, (a, b, c) => {
      const source = `${a}\${v}${b}[#if true]${c}[/#if]${a}`;
      // A directive may form across the joins ("[" + "#if"); only check sources that do not.
      fc.pre(!/\$\{(?!v\})|\[\/?#(?!if true\]|if\])/.test(source));
      expect(render(source, { v: 'V' })).toBe(`${a}V${b}${c}${a}`);
    }), { numRuns: 300 });
  });
});

describe('model safety', () => {
  it.each([
    '${__proto__}', '${constructor}', '${constructor.name}', '${a.constructor.name}', '${a.__proto__}', '${a.prototype}',
    '${toString}', '${a.hasOwnProperty}', '${a.valueOf}', '${s.length}', '${xs.length}', '${a["constructor"]}', '${fn}', '${fn.name}',
  ])('%s is missing', (source) => {
    expect(render(`[${source}][#if ${source.slice(2, -1)}??]defined[/#if]`, { a: {}, s: 'abc', xs: [1], fn: () => 'called' })).toBe('[]');
  });

  it('treats own keys named __proto__ or constructor as missing', () => {
    const model = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": "c", "o": {"constructor": {"name": "x"}}}') as Model;
    expect(render('[${__proto__.polluted}][${polluted}][${constructor}][${o.constructor.name}]', model)).toBe('[][][][]');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('sees nothing inherited', () => {
    const model = Object.create({ inherited: 'secret' }) as Model;
    model.own = 'mine';
    expect(render('${own}[${inherited}]', model)).toBe('mine[]');
  });
});

describe('mergeModels', () => {
  it('lets the recipient win per top-level key, shallowly', () => {
    const batch = { company: 'Herald', user: { name: 'Batch', plan: 'pro' }, promo: 'X' };
    const recipient = { user: { name: 'Ada' }, promo: null };
    expect(mergeModels(batch, recipient)).toEqual({ company: 'Herald', user: { name: 'Ada' }, promo: null });
    expect(batch.user).toEqual({ name: 'Batch', plan: 'pro' });
  });

  it('takes either side missing', () => {
    expect(mergeModels(undefined, { a: 1 })).toEqual({ a: 1 });
    expect(mergeModels({ a: 1 }, null)).toEqual({ a: 1 });
  });

  it('keeps a __proto__ key as data, not as a prototype', () => {
    const merged = mergeModels(JSON.parse('{"__proto__": {"x": 1}}') as Model, {});
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect((merged as { x?: unknown }).x).toBeUndefined();
    expect(render('[${x}]', merged)).toBe('[]');
  });
});

describe('errors', () => {
  it.each([
    ['Hi ${name', 1, 4, "Unclosed ${: no '}' before the end of the template"],
    ['line 1\nline 2 ${a b}', 2, 12, "Expected '}' to end ${ but found 'b'"],
    ['a\r\nb\r\n  ${}', 3, 5, 'Missing expression in ${…}'],
    ['x\r${a &&}', 2, 7, "Expected a value but found '}'"],
    ['[#if a]\nopen', 1, 1, 'Unclosed [#if]: add [/#if]'],
    ['[#list xs as x]\n[#if x]\n[/#if]', 1, 1, 'Unclosed [#list]: add [/#list]'],
    ['text\n  [/#list]', 2, 3, '[/#list] without an opening [#list]'],
    ['[#if a]\n[#list xs as x]\n[/#if]', 3, 1, '[/#if] found while [#list] (line 2, column 1) is still open'],
    ['${name?uper_case}', 1, 8, 'Unknown built-in ?uper_case'],
    ['${name!"fallback}', 1, 8, 'Unterminated string literal'],
    ["[#if a == 'x]y[/#if]", 1, 11, 'Unterminated string literal'],
    ['${"a\\qb"}', 1, 5, "Unknown escape '\\q'"],
    ['ok\n[#unknown x]', 2, 1, 'Unknown directive [#unknown]'],
    ['[#iff a][/#iff]', 1, 1, 'Unknown directive [#iff]'],
    ['[#if a][/#iff]', 1, 8, 'Unknown closing directive [/#iff]'],
    ['[#elseif a]', 1, 1, '[#elseif] outside [#if]'],
    ['[#else]', 1, 1, '[#else] outside [#if] or [#list]'],
    ['[#list xs as x][#elseif a][/#list]', 1, 16, '[#elseif] outside [#if]'],
    ['[#if a][#else][#else][/#if]', 1, 15, '[#else] after the [#else] of the [#if] at line 1, column 1'],
    ['[#if a][#else][#elseif b][/#if]', 1, 15, '[#elseif] after the [#else]'],
    ['[#if]x[/#if]', 1, 5, 'Missing expression in [#if]'],
    ['[#if a b]x[/#if]', 1, 8, "Expected ']' to end [#if] but found 'b'"],
    ['[#if a', 1, 1, "Unclosed [#if]: no ']' before the end of the template"],
    ['[#else x]', 1, 1, '[#else] outside'],
    ['[#if a][#else x][/#if]', 1, 15, "Expected ']' to end [#else] but found 'x'"],
    ['[#list xs]x[/#list]', 1, 10, "Expected 'as' in [#list] but found ']'"],
    ['[#list xs as]x[/#list]', 1, 13, "Expected a variable name in [#list] but found ']'"],
    ['[#if 1 < 2 < 3]x[/#if]', 1, 12, 'Comparisons cannot be chained'],
    ['[#if (a]x[/#if]', 1, 8, "Expected ')' but found ']'"],
    ['${a + b}', 1, 5, "Unexpected character '+' in an expression"],
    ['${a?}', 1, 5, "Expected a built-in name after '?'"],
    ['${a?upper_case("x")}', 1, 5, '?upper_case takes no arguments'],
    ['${a?string(b)}', 1, 12, 'Built-in arguments must be literal values'],
    ['${a?string(1)}', 1, 5, '?string takes quoted text arguments'],
    ['${a?string("a", "b", "c")}', 1, 5, '?string takes at most 2 arguments'],
    ['${a?string("0.0.0")}', 1, 5, 'Invalid number pattern "0.0.0"'],
    ['${a?string("MMM yyyy")}', 1, 5, "Unsupported 'MMM' in the date pattern"],
    ['${a?string("yyyy \'T")}', 1, 5, 'Unclosed quote in the date pattern'],
    ['${a?index}', 1, 5, '?index applies only to the variable of an enclosing [#list]'],
    ['[#list xs as x]${x.y?counter}[/#list]', 1, 22, '?counter applies only to the variable'],
    ['[#list xs as x][#else]${x?index}[/#list]', 1, 27, '?index applies only'],
    ['${(a!"x").b}', 1, 10, "'.' must follow a variable name"],
    ['[#-- never closed', 1, 1, 'Unclosed comment'],
    ['[#noparse]${a}', 1, 1, 'Unclosed [#noparse]'],
  ])('%j: line %i, column %i', (source, line, column, reason) => {
    const err = errorOf(source);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('TemplateError');
    expect({ line: err.line, column: err.column }).toEqual({ line, column });
    expect(err.reason).toContain(reason);
    expect(err.message).toBe(`Line ${line}, column ${column}: ${err.reason}`);
  });

  it('refuses nesting deeper than 100 and expressions nested too deeply', () => {
    expect(errorOf('[#if a]'.repeat(101)).reason).toContain('nested more than 100 deep');
    expect(errorOf(`\${${'('.repeat(150)}a${')'.repeat(150)}}`).reason).toContain('nested too deeply');
    expect(render(`\${${'('.repeat(50)}a${')'.repeat(50)}}`, { a: 'deep' })).toBe('deep');
  });

  it('refuses a template over 300 KB (UTF-8) or with more than 2000 tags', () => {
    expect(() => compileTemplate('x'.repeat(300 * 1024 + 1), { escape: 'none' })).toThrow('The template exceeds 300 KB');
    expect(() => compileTemplate('é'.repeat(160 * 1024), { escape: 'none' })).toThrow(TemplateError);
    expect(compileTemplate('x'.repeat(300 * 1024), { escape: 'none' }).render({})).toHaveLength(300 * 1024);
    const err = errorOf('${a}'.repeat(2001));
    expect([err.line, err.column, err.reason]).toEqual([1, 8001, 'More than 2000 substitutions and directives in one template']);
  });

  it('refuses an unknown escape mode', () => {
    expect(() => compileTemplate('x', { escape: 'xml' } as unknown as TemplateOptions)).toThrow('Unknown escape mode: xml');
  });
});

describe('compiledTemplate (cache)', () => {
  it('returns the same compiled template for the same source and options', () => {
    const source = 'cache ${a} test';
    const first = compiledTemplate(source, { escape: 'html' });
    expect(compiledTemplate(source, { escape: 'html' })).toBe(first);
    expect(compiledTemplate(source, { escape: 'html', singleLine: false })).toBe(first);
    const other = compiledTemplate(source, { escape: 'none', singleLine: true });
    expect(other).not.toBe(first);
    expect([first.render({ a: '<\n>' }), other.render({ a: '<\n>' })]).toEqual(['cache &lt;\n&gt; test', 'cache < > test']);
  });

  it('evicts the least recently used entries beyond its bound', () => {
    const kept = compiledTemplate('kept ${a}', { escape: 'none' });
    const dropped = compiledTemplate('dropped ${a}', { escape: 'none' });
    for (let i = 0; i < 600; i++) {
      compiledTemplate(`filler ${i} \${a}`, { escape: 'none' });
      if (i % 100 === 0) compiledTemplate('kept ${a}', { escape: 'none' });
    }
    expect(compiledTemplate('kept ${a}', { escape: 'none' })).toBe(kept);
    expect(compiledTemplate('dropped ${a}', { escape: 'none' })).not.toBe(dropped);
  });

  it('does not cache failures', () => {
    expect(() => compiledTemplate('${', { escape: 'none' })).toThrow(TemplateError);
    expect(() => compiledTemplate('${', { escape: 'none' })).toThrow(TemplateError);
  });
});

describe('instrumentation (offsets given by the host, not syntax)', () => {
  const hooks = { wrap: (id: number, text: string) => `<${id}:${text}>`, insert: (id: number) => `{${id}}` };
  const at = (source: string, part: string, from = 0) => ({ start: source.indexOf(part, from), end: source.indexOf(part, from) + part.length });

  it('passes a range\'s rendered text through wrap, writes inserts, and leaves drops out', () => {
    const source = 'a ${x} [#list xs as v]<${v}>[/#list] drop end';
    const template = compileTemplate(source, { escape: 'html' }, { wraps: [at(source, '${x}'), at(source, '<${v}>')], inserts: [source.length, 0], drops: [at(source, ' drop')] });
    expect(template.render({ x: '&', xs: [1, 2] }, hooks)).toBe('{1}a <0:&amp;> <1:<1>><1:<2>> end{0}');
    // Without hooks: the text as rendered, no inserts (drops stay out).
    expect(template.render({ x: '&', xs: [1] })).toBe('a &amp; <1> end');
  });

  it('takes wraps around whole blocks, empty ones, and inside [#noparse]', () => {
    const source = 'x[#if a]1[#else]2[/#if]y[#noparse]${n}[/#noparse]';
    const template = compileTemplate(source, { escape: 'none' }, { wraps: [{ start: 1, end: 1 }, at(source, '[#if a]1[#else]2[/#if]'), { start: 1, end: 1 }, at(source, '${n}')] });
    expect(template.render({ a: true }, hooks)).toBe('x<0:><2:><1:1>y<3:${n}>');
  });

  it('refuses a range that cuts a block or a tag (a host bug, not a TemplateError)', () => {
    const source = 'a [#if x]b[/#if] ${c}';
    expect(() => compileTemplate(source, { escape: 'none' }, { wraps: [{ start: 0, end: source.indexOf('b') }] })).toThrow(RangeError);
    expect(() => compileTemplate(source, { escape: 'none' }, { wraps: [{ start: source.indexOf('b'), end: source.length }] })).toThrow(RangeError);
    expect(() => compileTemplate(source, { escape: 'none' }, { inserts: [source.length - 2] })).toThrow(RangeError);
    expect(() => compileTemplate(source, { escape: 'none' }, { inserts: [source.length + 1] })).toThrow(RangeError);
  });

  it('tagsBalanced says which ranges hold whole blocks', () => {
    const source = '[#if a]x[#else]y[/#if] ${b} [#-- c --]';
    const tags = templateTags(source);
    expect(tags.map((t) => t.kind)).toEqual(['open', 'mid', 'close', 'out', 'inert']);
    expect(tagsBalanced(tags, { start: 0, end: source.indexOf('] ') + 1 })).toBe(true);
    expect(tagsBalanced(tags, { start: 0, end: source.indexOf('y') })).toBe(false);
    expect(tagsBalanced(tags, { start: source.indexOf('x'), end: source.indexOf('y') })).toBe(false);
    expect(tagsBalanced(tags, { start: source.indexOf('$') + 1, end: source.length })).toBe(false);
    expect(tagsBalanced(tags, { start: source.indexOf('$'), end: source.length })).toBe(true);
  });
});
