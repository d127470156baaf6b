// The pages of the tracking links a person sees: the unsubscribe page (confirm, with a reason),
// its answer, and the page of an invalid link. Self-contained (inline style, no script, no
// external asset), every value escaped; the headers forbid loading anything, framing the page
// (the confirm button must not be clickable through someone else's page) and caching it, and
// keep the token-bearing URL out of Referer headers.
import type { Context } from 'koa';
import type { AppError } from '../../core/shared/errors';
import { escapeHtml } from '../../core/content/html-escape';
import { pageLayout, sendHtmlPage } from '../html-page';
import { httpStatusOf } from '../http-errors';
import { PAGE_REASONS, DEFAULT_REASON, type PageReason } from '../../core/tracking/unsubscribe';

const STYLE = [
  'body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#222;margin:0;padding:2rem 1rem;line-height:1.5}',
  'main{max-width:30rem;margin:0 auto;background:#fff;border-radius:8px;padding:1.5rem 2rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}',
  'h1{font-size:1.4rem;margin:0 0 1rem}fieldset{border:0;padding:0;margin:1rem 0}legend{font-weight:600;margin-bottom:.4rem}',
  'label{display:block;margin:.3rem 0}',
  'button{margin-top:.8rem;padding:.6rem 1.2rem;font-size:1rem;background:#b42318;color:#fff;border:0;border-radius:4px;cursor:pointer}',
].join('');

const HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex',
};

const REASON_LABELS: Record<PageReason, string> = {
  not_interested: 'I am no longer interested',
  too_frequent: 'I get these mails too often',
  spam_never_subscribed: 'I never asked to get these mails',
  spam_offensive: 'The content is inappropriate or offensive',
};

/** Answers with a page. */
export function sendPage(ctx: Context, status: number, html: string): void {
  sendHtmlPage(ctx, status, html, HEADERS);
}

const layout = (title: string, content: string) => pageLayout(title, content, STYLE);

/**
 * The page of an unsubscribe link: it changes nothing (mail scanners fetch links), its button
 * POSTs to the page's own address (no action attribute: right behind any proxy path).
 */
export function unsubscribePage(email: string): string {
  const reasons = PAGE_REASONS.map((reason) => `<label><input type="radio" name="reason" value="${reason}"${reason === DEFAULT_REASON ? ' checked' : ''}> ${escapeHtml(REASON_LABELS[reason])}</label>`);
  return layout('Unsubscribe', `<h1>Unsubscribe</h1>
<p>Stop mail from this sender to <strong>${escapeHtml(email)}</strong>?</p>
<form method="post">
<fieldset><legend>Why? (optional)</legend>
${reasons.join('\n')}
</fieldset>
<button type="submit">Unsubscribe</button>
</form>`);
}

export function unsubscribedPage(email: string): string {
  return layout('Unsubscribed', `<h1>You are unsubscribed</h1>
<p><strong>${escapeHtml(email)}</strong> will get no more mail from this sender.</p>`);
}

const TITLES: Record<number, string> = { 400: 'Please check the form', 404: 'This link is not valid', 413: 'Too much data', 415: 'Unsupported form' };

/** An error as a page: the error model's message (client-safe by design, naming nothing of the link) and its field messages. */
export function errorPage(error: AppError, requestId?: string): string {
  const status = httpStatusOf(error);
  const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'Request refused');
  const fields = Object.entries(error.extra.fields ?? {}).map(([field, f]) => `<li>${escapeHtml(field)}: ${escapeHtml(f.message)}</li>`);
  return layout(title, `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(error.message)}</p>
${fields.length > 0 ? `<ul>${fields.join('')}</ul>` : ''}
${status >= 500 && requestId ? `<p>Request id ${escapeHtml(requestId)}</p>` : ''}`);
}
