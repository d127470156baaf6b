// The hosted opt-in's HTML pages: self-contained (inline style, no script, no external asset),
// every value escaped. The headers forbid loading anything and framing the page (the confirm
// button must not be clickable through someone else's page), and keep the token-bearing URL
// out of caches and Referer headers.
import type { Context } from 'koa';
import type { AppError } from '../../core/shared/errors';
import { escapeHtml } from '../../core/content/html-escape';
import { pageLayout, sendHtmlPage } from '../html-page';
import { httpStatusOf } from '../http-errors';
import type { ListDoc } from '../../adapters/store/store';

const STYLE = [
  'body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;background:#f4f5f7;color:#222;margin:0;padding:2rem 1rem;line-height:1.5}',
  'main{max-width:28rem;margin:0 auto;background:#fff;border-radius:8px;padding:1.5rem 2rem;box-shadow:0 1px 3px rgba(0,0,0,.15)}',
  'h1{font-size:1.4rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .2rem;font-weight:600}',
  'input{box-sizing:border-box;width:100%;padding:.5rem;font-size:1rem;border:1px solid #bbb;border-radius:4px}',
  'button{margin-top:1.2rem;padding:.6rem 1.2rem;font-size:1rem;background:#1a5fb4;color:#fff;border:0;border-radius:4px;cursor:pointer}',
  '.muted{color:#555;font-size:.9rem}',
].join('');

const HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** Answers with a page. */
export function sendPage(ctx: Context, status: number, html: string): void {
  sendHtmlPage(ctx, status, html, HEADERS);
}

const layout = (title: string, content: string) => pageLayout(title, content, STYLE);

/** The subscription form; it posts to `action` with the plain names, asking for an HTML answer. */
export function formPage(list: ListDoc, action: string): string {
  return layout(`Subscribe to ${list.name}`, `<h1>Subscribe to ${escapeHtml(list.name)}</h1>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="reply" value="html">
<label for="email">Email</label><input id="email" name="email" type="email" required maxlength="254" autocomplete="email">
<label for="firstName">First name</label><input id="firstName" name="firstName" maxlength="100" autocomplete="given-name">
<label for="lastName">Last name</label><input id="lastName" name="lastName" maxlength="100" autocomplete="family-name">
<button type="submit">Subscribe</button>
</form>
<p class="muted">We will send you an email to confirm the subscription.</p>`);
}

/** After a submit; the same whether the address is a contact or not, sent or a repeat. */
export const CHECK_INBOX = 'Please check your inbox: we sent you a link to confirm your subscription.';
export function checkInboxPage(list: ListDoc): string {
  return layout('Check your inbox', `<h1>Almost done</h1>
<p>${escapeHtml(CHECK_INBOX)}</p>
<p class="muted">The subscription to ${escapeHtml(list.name)} starts when you confirm it. If the mail does not arrive, look in the spam folder.</p>`);
}

/** The page a link opens: one button, a POST, so that mail scanners fetching the link confirm nothing. */
export function confirmPage(list: ListDoc, action: string, token: string): string {
  return layout(`Confirm your subscription to ${list.name}`, `<h1>Confirm your subscription to ${escapeHtml(list.name)}</h1>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">Confirm subscription</button>
</form>`);
}

export function confirmedPage(list: ListDoc): string {
  return layout('Subscribed', `<h1>You are subscribed</h1>
<p>Thank you: your subscription to ${escapeHtml(list.name)} is confirmed.</p>`);
}

export function invalidLinkPage(): string {
  return layout('Link no longer valid', `<h1>This link is no longer valid</h1>
<p>It was already used, it expired, or it is incomplete. To subscribe, fill in the form again: a new link will be sent.</p>`);
}

const TITLES: Record<number, string> = { 400: 'Please check the form', 404: 'Not found', 413: 'Too much data' };

/** An error as a page: the error model's message (client-safe by design) and its field messages. */
export function errorPage(error: AppError, requestId?: string): string {
  const status = httpStatusOf(error);
  const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'Request refused');
  const fields = [...new Set(Object.values(error.extra.fields ?? {}).map((f) => f.message))].map((m) => `<li>${escapeHtml(m)}</li>`);
  return layout(title, `<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(error.message)}</p>
${fields.length > 0 ? `<ul>${fields.join('')}</ul>` : ''}
${status >= 500 && requestId ? `<p class="muted">Request id ${escapeHtml(requestId)}</p>` : ''}`);
}
