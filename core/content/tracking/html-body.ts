// Where the open pixel goes: before the </body> that closes the body as a browser's tree builder
// (parse5's, the WHATWG algorithm) decides it, told the tags of ./html-tags.ts in order. Only the
// rules that decide it are followed:
// - the body must start with a <body> tag: text, or a tag that has no place in the head, before
//   it starts the body without one, and a browser then records no </body> of it (nor does it
//   after a <frameset>);
// - a </body> while a table (or a part of one), a <template>, an <object>, an <applet> or a
//   <marquee> is open is ignored: the body is not in scope. These are followed as a browser opens
//   and closes them, end tags left out included: the row group and row it implies for a row or a
//   cell, a new row, cell or row group closing the open one, a <table> directly in a table
//   closing it, an end tag ignored outside its table (parse5's table scope, which a template does
//   not bound, unlike the standard's) or in a template's content. A <template> holding table tags
//   directly is read as a table's content (a browser decides by its first tag);
// - with several </body> that count, the last one.
// Without such a </body>, the pixel goes at the end.

import { OpenElements } from './open-elements';

/** A table and its parts: a browser's tree opens and closes them as the tags below say. */
const TABLE_PARTS = new Set(['table', 'tbody', 'thead', 'tfoot', 'tr', 'td', 'th', 'caption']);
/** Elements that sit in the body as they are opened and closed, and keep </body> out of scope too. */
const OTHER_SCOPES = new Set(['template', 'object', 'applet', 'marquee']);
/** What decides how a table tag is read: the innermost table part, or a template. */
const TABLE_CONTEXTS = new Set([...TABLE_PARTS, 'template']);

/** Start tags that go in the head before the body, where they start no body (<noscript> only before </head>). */
const HEAD_TAGS = new Set(['html', 'head', 'base', 'basefont', 'bgsound', 'link', 'meta', 'noframes', 'script', 'style', 'template', 'title']);

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;

export class BodyEnd {
  /** Before the body; started by a <body> tag; started without one; none (a frameset). */
  private body: 'before' | 'tagged' | 'implied' | 'none' = 'before';
  private headClosed = false;
  /** The open table parts and OTHER_SCOPES. */
  private readonly open = new OpenElements(TABLE_CONTEXTS);
  /** The `<` of the </body> that closes the body; -1 without one. */
  at = -1;

  /** Before the body, outside a <template> of the head (whose content starts nothing). */
  private get beforeBody(): boolean {
    return this.body === 'before' && this.open.size === 0;
  }

  startTag(name: string): void {
    if (this.beforeBody) {
      if (name === 'body') this.body = 'tagged';
      else if (name === 'frameset') this.body = 'none';
      else if (!HEAD_TAGS.has(name) && (name !== 'noscript' || this.headClosed)) this.body = 'implied';
    }
    const { open } = this;
    if (OTHER_SCOPES.has(name)) {
      open.push(name);
      return;
    }
    if (!TABLE_PARTS.has(name) && name !== 'col' && name !== 'colgroup') return;
    const context = open.topMarked;
    switch (name) {
      case 'table': {
        // Directly in a table (not in a cell or caption), a <table> closes it.
        const direct = context === 'table' || context === 'tr' || context === 'tbody' || context === 'thead' || context === 'tfoot';
        const table = open.lastIndexOf('table');
        if (direct && table > open.lastIndexOf('template')) open.closeTo(table);
        open.push(name);
        return;
      }
      // The rest are ignored outside a table (or a template).
      case 'td':
      case 'th':
        if (context === undefined) return;
        this.tableLevel('row');
        open.push(name);
        return;
      case 'tr':
        if (context === undefined) return;
        this.tableLevel('group');
        open.push(name);
        return;
      case 'col':
      case 'colgroup':
        // A column group closes at the next tag that is not a column's: it changes nothing here.
        if (context !== undefined) this.tableLevel('table');
        return;
      default: // tbody, thead, tfoot, caption
        if (context === undefined) return;
        this.tableLevel('table');
        open.push(name);
    }
  }

  endTag(name: string, start: number): void {
    if (this.beforeBody) {
      if (name === 'head') this.headClosed = true;
      else if (name === 'body' || name === 'html' || name === 'br') this.body = 'implied';
    }
    const { open } = this;
    if (name === 'body') {
      if (this.body === 'tagged' && open.size === 0) this.at = start;
    } else if (name === 'template') {
      const at = open.lastIndexOf('template');
      if (at >= 0) open.closeTo(at);
    } else if (!TABLE_PARTS.has(name) && !OTHER_SCOPES.has(name)) {
      // Nothing followed here.
    } else if (open.topMarked === 'template') {
      // The content of a template ignores every end tag but its own.
    } else if (TABLE_PARTS.has(name)) {
      // Closes the innermost one and what it holds, but not across a table (parse5's table scope).
      const at = open.lastIndexOf(name);
      if (at >= 0 && (name === 'table' || open.lastIndexOf('table') < at)) open.closeTo(at);
    } else if (open.top === name) {
      // Only when nothing that keeps </body> out of scope is open inside it.
      open.closeTo(open.size - 1);
    }
  }

  /** Text (none of it in comments or raw text): any but white space starts the body. */
  text(html: string, start: number, end: number): void {
    if (!this.beforeBody) return;
    for (let at = start; at < end; at++) {
      if (!isSpace(html.charCodeAt(at))) {
        this.body = 'implied';
        return;
      }
    }
  }

  /**
   * Closes what is open in the innermost table below `level` (its row group, its row), and opens
   * the row group and row a browser implies for a row or a cell. In a template, closes what its
   * content holds.
   */
  private tableLevel(level: 'table' | 'group' | 'row'): void {
    const { open } = this;
    const base = Math.max(open.lastIndexOf('table'), open.lastIndexOf('template'));
    const inTable = base >= 0 && base === open.lastIndexOf('table');
    const row = open.lastIndexOf('tr');
    const group = Math.max(open.lastIndexOf('tbody'), open.lastIndexOf('thead'), open.lastIndexOf('tfoot'));
    if (level === 'row' && row > base) {
      open.closeTo(row + 1);
    } else if (level !== 'table' && group > base) {
      open.closeTo(group + 1);
      if (level === 'row' && inTable) open.push('tr');
    } else {
      open.closeTo(base + 1);
      if (level === 'table' || !inTable) return;
      open.push('tbody');
      if (level === 'row') open.push('tr');
    }
  }
}
