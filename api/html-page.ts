// The frame of the HTML pages people see in a browser (the hosted opt-in's, the tracking links'):
// one self-contained document (inline style, no script, no external asset) whose title is
// escaped here and whose content each page escapes itself, sent with that page's headers.
import type { Context } from 'koa';
import { escapeHtml } from '../core/content/html-escape';

/** A whole document around `content` (already HTML), styled by `style`. */
export function pageLayout(title: string, content: string, style: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${style}</style></head>
<body><main>
${content}
</main></body></html>`;
}

/** Answers with a page and its headers (each interface's own security headers). */
export function sendHtmlPage(ctx: Context, status: number, html: string, headers: Record<string, string>): void {
  ctx.status = status;
  ctx.set(headers);
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = html;
}
