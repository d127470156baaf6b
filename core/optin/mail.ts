// The confirmation mail of the hosted double opt-in, as a transactional send request: it goes
// through Herald's one send path (stored, then sent by the account's AccountSender), so it
// shows in the account's ledger and events like any other mail, tagged `optin-confirmation`.
import { oneLine } from '../content/html-escape';
import type { ListDoc } from '../../adapters/store/store';
import type { SendRequestBody } from '../transactional/request';

export const CONFIRMATION_TAG = 'optin-confirmation';

/** Where the mail and the pages link to: the public base URL, and the From address (HERALD_OPTIN_FROM). */
export interface OptinSettings { publicUrl: string; fromAddress: string }

export function optinSettings(config: { publicUrl: string; optinFrom: string }): OptinSettings {
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
 * nowhere. The list's name (the account's, it may hold any character, the substitution
 * language's included), the address and the link are substitution values, never part of the
 * templates: the send path escapes them in the HTML and keeps them on one line in the Subject.
 */
export function confirmationMail(settings: OptinSettings, list: ListDoc, email: string, token: string, validHours: number): SendRequestBody {
  const html = `<!doctype html>
<html><body style="font-family:sans-serif;line-height:1.5;color:#222">
<p>Someone, hopefully you, asked to subscribe \${email} to <strong>\${list}</strong>.</p>
<p><a href="\${link}" style="display:inline-block;padding:10px 18px;background:#1a5fb4;color:#fff;text-decoration:none;border-radius:4px">Confirm your subscription</a></p>
<p style="color:#555;font-size:14px">The link works once, for ${validHours} hours. If you did not ask for this, ignore this mail: nothing happens without your confirmation.</p>
</body></html>`;
  const text = [
    'Someone, hopefully you, asked to subscribe ${email} to ${list}.',
    '',
    'Confirm your subscription here:',
    '${link}',
    '',
    `The link works once, for ${validHours} hours. If you did not ask for this, ignore this mail: nothing happens without your confirmation.`,
  ].join('\n');
  return {
    from: { email: settings.fromAddress },
    subject: 'Confirm your subscription to ${list}',
    content: { html, text },
    substitutions: { email, list: oneLine(list.name).slice(0, 150) || `list ${list.id}`, link: confirmationLink(settings, list.account, list.id, token) },
    recipients: [{ to: { email } }],
    tags: [CONFIRMATION_TAG],
    // The link carries a one-time secret: it goes straight to Herald, never through a redirect,
    // and the mail is Herald's own, not the account's to measure.
    tracking: { open: { enable: false }, click: { enable: false } },
  };
}
