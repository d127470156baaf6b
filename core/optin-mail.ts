// The confirmation mail of the hosted double opt-in, as a transactional send request: it goes
// through Herald's one send path (stored, then sent by the TransactionalBatch workflow), so it
// shows in the account's ledger and events like any other mail, tagged `optin-confirmation`.
import type { Config } from './config';
import { escapeHtml, oneLine } from './html';
import type { ListDoc } from './store';
import type { SendRequestBody } from './transactional/request';

export const CONFIRMATION_TAG = 'optin-confirmation';

/** Where the mail and the pages link to: the public base URL, and the From address (HERALD_OPTIN_FROM). */
export interface OptinSettings { publicUrl: string; fromAddress: string }

export function optinSettings(config: Pick<Config, 'publicUrl' | 'optinFrom'>): OptinSettings {
  return { publicUrl: config.publicUrl, fromAddress: config.optinFrom };
}

/** The hosted form of a list, relative to the public base URL. */
export function optinPath(account: string, listId: number): string {
  return `/v2/optin/${encodeURIComponent(account)}/${listId}`;
}

/** The link of the mail. It opens a page with a button (a POST): mail scanners that fetch links confirm nothing. */
export function confirmationLink(settings: OptinSettings, account: string, listId: number, token: string): string {
  return `${settings.publicUrl}${optinPath(account, listId)}/confirm?token=${encodeURIComponent(token)}`;
}

/**
 * The mail to `email`. Only the address goes in a header (To); the visitor's names appear
 * nowhere, and the list's name (the account's, it may hold any character) is put on one line
 * for the Subject and escaped in the HTML.
 */
export function confirmationMail(settings: OptinSettings, list: ListDoc, email: string, token: string, validHours: number): SendRequestBody {
  const link = confirmationLink(settings, list.account, list.id, token);
  const listName = oneLine(list.name) || `list ${list.id}`;
  const html = `<!doctype html>
<html><body style="font-family:sans-serif;line-height:1.5;color:#222">
<p>Someone, hopefully you, asked to subscribe ${escapeHtml(email)} to <strong>${escapeHtml(listName)}</strong>.</p>
<p><a href="${escapeHtml(link)}" style="display:inline-block;padding:10px 18px;background:#1a5fb4;color:#fff;text-decoration:none;border-radius:4px">Confirm your subscription</a></p>
<p style="color:#555;font-size:14px">The link works once, for ${validHours} hours. If you did not ask for this, ignore this mail: nothing happens without your confirmation.</p>
</body></html>`;
  const text = [
    `Someone, hopefully you, asked to subscribe ${email} to ${listName}.`,
    '',
    'Confirm your subscription here:',
    link,
    '',
    `The link works once, for ${validHours} hours. If you did not ask for this, ignore this mail: nothing happens without your confirmation.`,
  ].join('\n');
  return {
    from: { email: settings.fromAddress },
    subject: `Confirm your subscription to ${listName}`.slice(0, 200),
    content: { html, text },
    recipients: [{ to: { email } }],
    tags: [CONFIRMATION_TAG],
    // The link carries a one-time secret: it goes straight to Herald, never through a redirect,
    // and the mail is Herald's own, not the account's to measure.
    tracking: { open: { enable: false }, click: { enable: false } },
  };
}
