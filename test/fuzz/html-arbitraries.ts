// HTML-ish templates for the differential fuzz of htmlSites: documents on which Herald's tag scan
// and a browser's tree (parse5) must agree on links, their attributes and the closing </body>.
// Links with attributes in every quoting style and spacing, Herald's own attributes, comments
// and bogus comments, raw-text elements with markup-like text inside, tables, templates,
// <object>, an implied or written body, template tags and directives (inside values too), CR LF.
// Left out, as the scan documents it differs there: inline SVG and MathML, <select>, framesets,
// `>` quoted in an end tag's attribute, `<!--<script>` in a script, table parts in a <template>
// (templates are always closed here, and hold links and text).
import fc from 'fast-check';

const pick = <T>(...values: T[]) => fc.constantFrom(...values);
const join = (parts: fc.Arbitrary<string[]>) => parts.map((p) => p.join(''));
const seq = (...parts: Array<fc.Arbitrary<string>>) => fc.tuple(...parts).map((p) => p.join(''));
const opt = (part: fc.Arbitrary<string>) => fc.oneof(fc.constant(''), part);

const space = pick(' ', ' ', '  ', '\n', '\r\n', '\t', '\f');
const spaces = join(fc.array(space, { minLength: 1, maxLength: 2 }));

/** Substitution tags and directives that compile: quotes and `>` inside them are not HTML. */
const templateTag = pick('${x}', '${user.name}', '${x!"a>b"}', '${n > 1}', '${site!"https://t.example/"}', '${x!"\'"}');
const directive = (inner: fc.Arbitrary<string>) => fc.oneof(
  inner.map((body) => `[#if x]${body}[/#if]`),
  fc.tuple(inner, inner).map(([a, b]) => `[#if n > 1]${a}[#else]${b}[/#if]`),
);

/** Text of an attribute value that cannot end it: `quote` never appears. */
function valueText(quote: '"' | "'" | ''): fc.Arbitrary<string> {
  const pieces = ['https://a.example/', 'http://b.example/p?q=1', 'mailto:x@y.z', '#top', '/rel', 'x', '&amp;', '&nbsp;', '&#47;', '&b=2', ' ', '?', '=', '<', '>', '`', '"', "'", '</body>', '-->'];
  const allowed = pieces.filter((p) => (quote === '' ? !/[\s>"'`=<]/.test(p) || p === '?' : !p.includes(quote)));
  const piece = fc.oneof({ weight: 6, arbitrary: pick(...allowed) }, { weight: 1, arbitrary: templateTag });
  const text = join(fc.array(piece, { maxLength: 4 }));
  return fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: directive(text) });
}

/** ` name`, ` name=value` in any quoting, with spaces around `=` or none between attributes. */
const attributeName = pick('href', 'href', 'HREF', 'Href', 'data-track-disabled', 'data-track-final-url', 'data-interests', 'DATA-Interests', 'style', 'class', 'title', 'hreff', 'data-x', 'x');
const eq = fc.oneof({ weight: 4, arbitrary: fc.constant('=') }, { weight: 1, arbitrary: seq(opt(spaces), fc.constant('='), opt(spaces)) });
const attribute = fc.oneof(
  attributeName.map((name) => ({ text: name, quoted: false })),
  fc.tuple(attributeName, eq, valueText('"')).map(([name, e, v]) => ({ text: `${name}${e}"${v}"`, quoted: true })),
  fc.tuple(attributeName, eq, valueText("'")).map(([name, e, v]) => ({ text: `${name}${e}'${v}'`, quoted: true })),
  fc.tuple(attributeName, eq, valueText('').filter((v) => v !== '' && !v.startsWith('[#'))).map(([name, e, v]) => ({ text: `${name}${e}${v}`, quoted: false })),
  fc.tuple(attributeName, pick('=', ' = ')).map(([name, e]) => ({ text: `${name}${e}`, quoted: false })), // `href=>`: an empty value
);
const attributes = fc.array(fc.tuple(attribute, spaces, pick('', '/')), { maxLength: 4 }).map((list) => {
  let out = '';
  let afterQuote = false;
  for (const [{ text, quoted }, gap, slash] of list) {
    // A quoted value may be followed by the next attribute directly; otherwise a space or `/` separates.
    out += (afterQuote && gap === ' ' ? '' : slash === '/' ? '/' : gap) + text;
    afterQuote = quoted;
  }
  return out;
});
/** `>` or `/>`, after an optional space (`name=value/>` puts the `/` into an unquoted value, as both readers do). */
const tagEnd = seq(opt(spaces), pick('>', '>', '/>'));

const word = pick('Hello', 'a', 'x > y', 'a < b', '&amp;', '&nbsp;', '&lt;a href=x&gt;', '</>', 'é', ' ', '\n', '\r\n', '-->', ']]>');
const text = fc.oneof({ weight: 5, arbitrary: join(fc.array(word, { minLength: 1, maxLength: 3 })) }, { weight: 1, arbitrary: templateTag });
/** Text that looks like markup: inside comments and raw text it is only text. */
const markupLike = pick('<a href="https://fake.example/">', '<area href=x>', '</body>', '<body>', '<table>', '<b>', '"', "'", '>', '<', '-', '--', '<!--', '</a>', '</p>');
const innerText = join(fc.array(fc.oneof(word, markupLike), { maxLength: 4 }));

const comment = fc.oneof(
  fc.tuple(innerText.filter((t) => !t.includes('--')), pick('-->', '--!>', '--->')).map(([t, end]) => `<!--${t}${end}`),
  pick('<!-->', '<!--->', '<!---->', '<!>', '<!->', '<!x>', '<?x y>', '<!DOCTYPE x>'),
  innerText.map((t) => `<![CDATA[${t.replace(/]]>/g, '')}]]>`),
  pick('</ body>', '</ a href=x>', '</1>', '</#x>'),
);

const RAW = ['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes'];
const rawText = fc.tuple(pick(...RAW), pick('lower', 'upper'), attributes, pick('>', '/>', ' />'), innerText, fc.boolean(), pick('>', ' >', '/>', '\n>', ' x=y>'))
  .map(([name, letterCase, attrs, open, content, decoys, close]) => {
    const written = letterCase === 'upper' ? name.toUpperCase() : name;
    // Script data has escapes that `<!--` starts (not read by the scan): none in a script here.
    const body = name === 'script' ? content.replace(/<!--/g, '') : content;
    const decoy = decoys ? `</${name}x></${name}2 <${name}>` : '';
    return `<${written}${attrs ? ` ${attrs}` : ''}${open}${decoy}${body}</${written}${close}`;
  });

const link = fc.tuple(pick('a', 'A', 'area'), attributes, tagEnd).map(([name, attrs, end]) => `<${name}${attrs ? ` ${attrs}` : ''}${end}`);
/** A directive whose block ends inside the href: the link cannot be rewritten (still numbered). */
const crossedLink = pick('[#if x]<a href="https://a.example/?[/#if]">a</a>', '<a href="https://a.example/[#if x]v[/#if]">v</a>');

/** What a <template> holds here: no table parts (parse5 reads tables across a template as the standard does not), nothing that hides its end tag. */
const templateContent = join(fc.array(fc.oneof(text, link, rawText, pick('</a>', '<p>', '</p>', '</body>', '<!-- x -->')), { maxLength: 4 }));

interface Html { block: string; blocks: string }
const html = fc.letrec<Html>((tie) => {
  const blocks = join(fc.array(tie('block') as fc.Arbitrary<string>, { maxLength: 4 }));
  const wrap = (name: string, close: boolean, inner: string) => `<${name}>${inner}${close ? `</${name}>` : ''}`;
  return {
    block: fc.oneof(
      { weight: 4, arbitrary: text },
      { weight: 4, arbitrary: fc.tuple(link, blocks, fc.boolean()).map(([open, inner, close]) => `${open}${inner}${close ? '</a>' : ''}`) },
      { weight: 1, arbitrary: crossedLink },
      { weight: 2, arbitrary: comment },
      { weight: 2, arbitrary: rawText },
      { weight: 2, arbitrary: fc.tuple(pick('p', 'div', 'span', 'b', 'font', 'center', 'li', 'noscript'), fc.boolean(), blocks).map(([name, close, inner]) => wrap(name, close, inner)) },
      { weight: 1, arbitrary: fc.tuple(pick('object', 'marquee', 'applet'), fc.boolean(), blocks).map(([name, close, inner]) => wrap(name, close, inner)) },
      { weight: 1, arbitrary: templateContent.map((inner) => wrap('template', true, inner)) },
      // Cells, rows, captions in any order, end tags left out, blocks directly in the table (a browser moves them before it).
      { weight: 2, arbitrary: fc.tuple(join(fc.array(fc.oneof(
        { weight: 4, arbitrary: seq(pick('<td>', '<th style="x">', '<TD>'), blocks, pick('', '</td>', '</th>')) },
        { weight: 3, arbitrary: pick('<tr>', '</tr>', '<tbody>', '</tbody>', '<thead>', '</thead>', '<caption>', '</caption>', '<colgroup>', '<col>') },
        { weight: 1, arbitrary: blocks },
      ), { maxLength: 5 })), pick('</table>', '</table>', '')).map(([inner, end]) => `<table width="600">${inner}${end}`) },
      { weight: 1, arbitrary: directive(blocks) },
      { weight: 1, arbitrary: pick('</body>', '</BODY >', '</body/>', '<body>', '</html>', '</p>', '<br>', '</br>', '</table>', '</object>', '</template>') },
    ),
    blocks,
  };
});

const headItem = fc.oneof(
  pick('<meta charset="utf-8">', '<link rel="stylesheet" href="https://s.example/a.css">', '<base href="https://b.example/">', '\n', '  ', '<!-- head -->'),
  rawText.filter((t) => /^<(style|title|script|noframes)/i.test(t)),
  templateContent.map((inner) => `<template>${inner}</template>`),
  pick('<noscript><meta name="x"></noscript>', '<noscript><style>a{}</style></noscript>', '<noscript>text</noscript>'),
);
const head = fc.tuple(fc.boolean(), fc.array(headItem, { maxLength: 3 }), fc.boolean())
  .map(([open, items, close]) => `${open ? '<head>' : ''}${items.join('')}${close ? '</head>' : ''}`);
/** What comes before <body>: mostly nothing that starts a body, now and then something that does. */
const beforeBody = fc.oneof(
  { weight: 6, arbitrary: pick('', '\n', ' \r\n', '<!-- c -->', '<meta name="y">') },
  { weight: 1, arbitrary: pick('text', '<p>x</p>', '<noscript></noscript>', '</br>', '</p>', '${x}', '</>') },
);

/** A whole document (doctype, html, head, body, each optional), now and then ended by <plaintext>. */
export const htmlDocument = fc.tuple(
  pick('', '<!doctype html>', '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "x">\n'),
  fc.boolean(), head, beforeBody, pick('<body>', '<BODY class="b">', '<body style="margin:0">', ''), html.blocks,
  pick('</body>', '</body>\n', '</body></html>', '</BODY></HTML>\n', '', '</body>x</body>'), fc.oneof({ weight: 9, arbitrary: fc.constant('') }, { weight: 1, arbitrary: pick('<plaintext><a href=x></body>', '<PLAINTEXT>') }),
).map(([doctype, htmlTag, headPart, gap, bodyTag, body, end, tail]) => `${doctype}${htmlTag ? '<html lang="en">' : ''}${headPart}${gap}${bodyTag}${body}${tail}${end}`);
