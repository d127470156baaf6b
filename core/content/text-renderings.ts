// The other renderings of a template's HTML: plain text (`GET …/{id}.txt`) and a complete
// document for previews (`GET …/{id}/preview`). No HTML library is a dependency of Herald, so the
// text is made by a simple scan: tags dropped, blocks and line breaks kept as line breaks, links
// followed by their address, the common entities decoded. One pass with indexOf, never a
// backtracking pattern over the whole input: a template is up to 300 KB written by a client.
import { escapeHtml } from './html-escape';

/** Elements whose content is not text for a reader. */
const SKIPPED = new Set(['head', 'style', 'script', 'title', 'noscript', 'template', 'svg']);
/** Elements that start or end a line. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'center', 'dd', 'div', 'dl', 'dt', 'footer', 'form', 'h1', 'h2', 'h3', 'h4',
  'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);
/** Elements that separate paragraphs (a blank line). */
const PARAGRAPHS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'ul', 'ol', 'blockquote', 'hr']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—', ndash: '–',
  laquo: '«', raquo: '»', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', bull: '•', middot: '·', euro: '€', iexcl: '¡', iquest: '¿',
  aacute: 'á', eacute: 'é', iacute: 'í', oacute: 'ó', uacute: 'ú', ntilde: 'ñ', uuml: 'ü', ccedil: 'ç',
  Aacute: 'Á', Eacute: 'É', Iacute: 'Í', Oacute: 'Ó', Uacute: 'Ú', Ntilde: 'Ñ', Uuml: 'Ü', Ccedil: 'Ç', zwnj: '', shy: '',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : '';
    }
    return NAMED_ENTITIES[body] ?? entity;
  });
}

/** The tag's lower-case name and whether it closes (`</p>`), from the text between < and >. */
function tagOf(inside: string): { name: string; closing: boolean } {
  const closing = inside.startsWith('/');
  const match = /^\/?\s*([a-zA-Z][a-zA-Z0-9:-]{0,30})/.exec(inside);
  return { name: match ? match[1].toLowerCase() : '', closing };
}

/** The href of an <a …> tag's text, if any: a web or mail address, or with `templateLinks` one a template's `${…}` makes. */
function hrefOf(inside: string, templateLinks: boolean): string | undefined {
  const match = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(inside);
  const href = match ? decodeEntities(match[1] ?? match[2] ?? match[3]).trim() : undefined;
  return href && (/^(https?:|mailto:)/i.test(href) || (templateLinks && href.startsWith('${'))) ? href : undefined;
}

/**
 * A plain-text rendering of an HTML body. `templateLinks`: the HTML is a template, whose links may
 * be expressions (`href="${urls.unsubscribe}"`): they are kept too, to be rendered with the text.
 */
export function htmlToText(html: string, options: { templateLinks?: boolean } = {}): string {
  const templateLinks = options.templateLinks ?? false;
  const lower = html.toLowerCase();
  const out: string[] = [];
  const links: Array<string | undefined> = [];
  let pos = 0;
  while (pos < html.length) {
    const open = html.indexOf('<', pos);
    if (open === -1) { out.push(textOf(html.slice(pos))); break; }
    out.push(textOf(html.slice(pos, open)));
    if (html.startsWith('<!--', open)) {
      const end = html.indexOf('-->', open + 4);
      pos = end === -1 ? html.length : end + 3;
      continue;
    }
    if (!/[a-zA-Z!?/]/.test(html[open + 1] ?? '')) {
      out.push('<'); // a "<" of the text, as in "a < b"
      pos = open + 1;
      continue;
    }
    const close = html.indexOf('>', open + 1);
    if (close === -1) { out.push(textOf(html.slice(open))); break; }
    const inside = html.slice(open + 1, close);
    const { name, closing } = tagOf(inside);
    pos = close + 1;
    if (!name) continue; // <!doctype>, <?xml?>, </ >
    if (!closing && SKIPPED.has(name) && !inside.endsWith('/')) {
      const end = lower.indexOf(`</${name}`, pos);
      if (end === -1) { pos = html.length; continue; }
      const endClose = html.indexOf('>', end);
      pos = endClose === -1 ? html.length : endClose + 1;
      continue;
    }
    if (name === 'a') {
      if (!closing) links.push(hrefOf(inside, templateLinks));
      else {
        const href = links.pop();
        if (href) out.push(textOf(` (${href.replace(/^mailto:/i, '')})`));
      }
    } else if (name === 'img' && !closing) {
      const alt = /\salt\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(inside);
      if (alt && (alt[1] ?? alt[2]).trim()) out.push(textOf(` ${alt[1] ?? alt[2]} `));
    } else if (name === 'li') {
      if (!closing) out.push(`${LINE}* `);
    } else if (name === 'td' || name === 'th') {
      out.push(closing ? ' ' : '');
    } else if (BLOCKS.has(name)) {
      out.push(PARAGRAPHS.has(name) ? PARAGRAPH : LINE);
    }
  }
  return tidy(out.join(''));
}

/**
 * Breaks are marked while scanning and made at the end: the source's own line breaks are spaces
 * (as a browser shows them), and a run of breaks is one line break, or one blank line when any of
 * them ends a paragraph.
 */
const LINE = '\u0001';
const PARAGRAPH = '\u0002';

/** Text of the document, entities decoded, without control characters (the markers among them). */
function textOf(chunk: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return decodeEntities(chunk).replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/g, '');
}

function tidy(text: string): string {
  return text
    .replace(/[ \t\r\n\f\v\u00a0]+/g, ' ')
    // eslint-disable-next-line no-control-regex -- the break markers
    .replace(/[ \u0001\u0002]+/g, (run) => (run.includes(PARAGRAPH) ? '\n\n' : run.includes(LINE) ? '\n' : ' '))
    .trim();
}

const PREVIEW_STYLE = [
  'body{margin:0;padding:0;-webkit-text-size-adjust:100%;-ms-text-size-adjust:100%}',
  'img{border:0;max-width:100%;height:auto}',
  'table{border-collapse:collapse}',
  '@media only screen and (max-width:620px){table,td{max-width:100%!important}}',
].join('');

/**
 * A complete HTML document of the template for a browser: its HTML as it is when it already is
 * one (MJML's output always is), else wrapped in a document with a viewport and responsive
 * styles, titled with the template's name.
 */
export function previewDocument(html: string, title: string): string {
  if (/<html[\s>]/i.test(html.slice(0, 2000))) return html;
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="X-UA-Compatible" content="IE=edge">
<title>${escapeHtml(title)}</title>
<style>${PREVIEW_STYLE}</style>
</head>
<body>
${html}
</body>
</html>
`;
}
