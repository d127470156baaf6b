// The hosted double opt-in of a list, public (no credentials): the form, its submit, and the
// confirmation the mailed link leads to. Mounted before the account routers, whose
// `/v2/:account` would take "optin" for an account name (the name is reserved for that reason).
import Router from '@koa/router';
import type { Context, Next } from 'koa';
import { ACCOUNT_NAME } from '../../core/accounts/names';
import { errors } from '../../core/shared/errors';
import { toAppError } from '../../core/shared/faults';
import { findList } from '../../core/contacts/lists';
import { requestOptin, type OptinDeps } from '../../core/optin/subscribe';
import { confirmOptin, tokenState } from '../../core/optin/confirm';
import { optinPath } from '../../core/optin/mail';
import type { ListDoc, Store } from '../../adapters/store/store';
import type { OperationSpec } from '../openapi/operation';
import { readBody } from '../middleware/body';
import { validator } from '../validation';
import { reply } from '../account/envelope';
import { integerParam } from '../account/params';
import { CHECK_INBOX, checkInboxPage, confirmedPage, confirmPage, errorPage, formPage, invalidLinkPage, sendPage } from './pages';
import { httpHeadersOf, httpStatusOf } from '../http-errors';
import { readSubmit, replyAsked, submitSchema } from './submit-body';

const FORM = '/v2/optin/:account/:listId';
const CONFIRM = `${FORM}/confirm`;
/** A public form posts a few short fields: far less than the account API's 1 MB. */
const OPTIN_BODY_LIMIT_BYTES = 16 * 1024;

const confirmSchema = {
  type: 'object', additionalProperties: false, required: ['token'],
  properties: { token: { type: 'string', maxLength: 100, description: 'The token of the mailed link.' } },
} as const;
const validateConfirm = validator<{ token: string }>(confirmSchema);

export function optinRouter(deps: OptinDeps): Router {
  const { store } = deps;
  const router = new Router();
  // Index-keyed form fields stay keyed: the original's script posts `fields[3]=<email>`.
  const body = readBody({ types: ['json', 'form'], limitBytes: OPTIN_BODY_LIMIT_BYTES, indexedFormKeys: true });
  const page = errorsAsPage(() => true);

  router.get(FORM, page, async (ctx) => {
    const list = await loadList(store, ctx);
    sendPage(ctx, 200, formPage(list, optinPath(list.account, list.id)));
  });

  // Browsers get pages; the original's script and API callers its JSON shapes:
  // `{success: true, data: {userMessage}}`, errors `{success: false, error: {userMessage, …}}`.
  router.post(FORM, errorsAsPage(prefersHtml), body, async (ctx) => {
    const list = await loadList(store, ctx);
    // 'sent' and 'repeat' answer alike, whatever the address is to the account.
    await requestOptin(deps, list, readSubmit(ctx.request.body));
    if (prefersHtml(ctx)) sendPage(ctx, 200, checkInboxPage(list));
    else reply(ctx, { data: { userMessage: CHECK_INBOX } });
  });

  router.get(CONFIRM, page, async (ctx) => {
    const list = await loadList(store, ctx);
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : '';
    const state = await tokenState(store, list.account, list.id, token);
    if (state === 'valid') sendPage(ctx, 200, confirmPage(list, `${optinPath(list.account, list.id)}/confirm`, token));
    else sendPage(ctx, state === 'expired' ? 410 : 404, invalidLinkPage());
  });

  router.post(CONFIRM, page, body, async (ctx) => {
    const list = await loadList(store, ctx);
    const result = await confirmOptin(store, list.account, list.id, validateConfirm(ctx.request.body ?? {}).token);
    if (result.outcome !== 'confirmed') {
      sendPage(ctx, result.outcome === 'expired' ? 410 : 404, invalidLinkPage());
    } else if (result.redirect) {
      // Not an open redirect: it is followed only here, answering the POST of a single-use
      // token that the address's owner received by mail (a redirector would need its own
      // mailbox and a fresh submit per use), never on a GET link that could be passed around;
      // and it is an http(s) URL (submit-body.ts), never javascript: or data:.
      ctx.status = 303;
      ctx.redirect(result.redirect);
    } else {
      sendPage(ctx, 200, confirmedPage(list));
    }
  });

  return router;
}

/** The path's list; an unknown account and an unknown list are the same 404. */
async function loadList(store: Store, ctx: Context): Promise<ListDoc> {
  const account = String(ctx.params.account);
  const id = integerParam(ctx, 'listId');
  const list = ACCOUNT_NAME.test(account) && !Number.isNaN(id) ? await findList(store, account, id) : null;
  if (!list) throw errors.notFound('This subscription form does not exist');
  return list;
}

/** A browser: the hosted page says so in the body (`reply=html`), a browser in its Accept header. */
function prefersHtml(ctx: Context): boolean {
  const asked = replyAsked(ctx.request.body);
  return asked ? asked === 'html' : ctx.accepts('json', 'html') === 'html';
}

/**
 * Errors as an HTML page when `asPage`; otherwise they go on to the error boundary, which
 * answers in the account API's envelope (it holds the original's `{success: false, error: {userMessage}}`).
 */
function errorsAsPage(asPage: (ctx: Context) => boolean) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (caught) {
      if (!asPage(ctx)) throw caught;
      const error = toAppError(caught);
      const status = httpStatusOf(error);
      if (status >= 500) ctx.state.log?.error({ err: caught, status }, 'request failed');
      ctx.set(httpHeadersOf(error));
      sendPage(ctx, status, errorPage(error, ctx.state.requestId));
    }
  };
}

const htmlPage = { type: 'string', contentMediaType: 'text/html', description: 'An HTML page (`text/html`), not JSON.' } as const;
const gone = { description: 'An HTML page: the link expired (it is deleted when seen).' };

export const optinOperations: OperationSpec[] = [
  {
    method: 'get', path: '/v2/optin/{account}/{listId}', id: 'getOptinForm', tag: 'Opt-in', auth: 'none',
    summary: 'A list\'s hosted subscription form',
    description: 'A self-contained HTML page with the list\'s name and a form (email, first name, last name). An unknown account or list is a 404 HTML page.',
    status: 200, response: 'The form, as an HTML page', responseSchema: htmlPage,
  },
  {
    method: 'post', path: '/v2/optin/{account}/{listId}', id: 'submitOptin', tag: 'Opt-in', auth: 'none',
    summary: 'Ask to subscribe to a list (double opt-in)',
    description: 'Mails a confirmation link (valid 48 hours, once) and changes no contact. At most one mail per address and list '
      + 'in 10 minutes: a repeat answers the same and sends nothing; the answer never tells whether the address is a contact. '
      + 'Browsers (`Accept: text/html`, or `reply=html`) get HTML pages, errors included; other callers the original\'s JSON shapes.',
    body: submitSchema, status: 200, response: '`data.userMessage` asks the visitor to check their inbox',
    responseSchema: {
      type: 'object', required: ['success', 'data'],
      properties: { href: { type: 'string' }, success: { const: true }, data: { type: 'object', required: ['userMessage'], properties: { userMessage: { type: 'string' } } } },
    },
    errors: [503],
  },
  {
    method: 'get', path: '/v2/optin/{account}/{listId}/confirm', id: 'getOptinConfirmation', tag: 'Opt-in', auth: 'none',
    summary: 'The page of a confirmation link (`?token=`)',
    description: 'An HTML page with one "Confirm subscription" button (a POST): it changes nothing, since mail scanners fetch links. '
      + 'An unknown token is a 404 page, an expired one a 410 page.',
    status: 200, response: 'The confirmation page', responseSchema: htmlPage, responses: { 410: gone },
  },
  {
    method: 'post', path: '/v2/optin/{account}/{listId}/confirm', id: 'confirmOptin', tag: 'Opt-in', auth: 'none',
    summary: 'Confirm a subscription',
    description: 'Uses the token (once) and makes the address an ACTIVE contact of the list, with the chosen interests: a new contact '
      + '(source `OPTIN_FORM`), or the existing one, from any state (the only way back from `UNSUBSCRIBED`). Answers HTML pages.',
    body: confirmSchema, status: 200, response: 'The "subscribed" page', responseSchema: htmlPage,
    responses: { 303: { description: 'To the `redirect` given at submit.' }, 410: gone },
  },
];
