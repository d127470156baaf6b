import type Router from '@koa/router';
import type { Context } from 'koa';
import { errors } from '../../core/shared/errors';
import { htmlToText, previewDocument } from '../../core/content/text-renderings';
import {
  createTemplate, deleteTemplate, findTemplate, findTemplates, FOLDER_PATH, MAX_BODY_BYTES, MAX_SUBJECT_LENGTH, normaliseTemplateId,
  templateRecord, TYPE_FILTERS, updateTemplate, type TemplateInput, type TemplateUpdate,
} from '../../core/content/templates';
import type { Store, TemplateDoc } from '../../adapters/store/store';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { reply, replyPage } from './envelope';
import { parseListOptions, type ListSpec } from './list-options';
import { name } from './schemas';

// Ids are paths (`/3/12`), so the routes take the rest of the URL: `*templatePath` is path-to-regexp v8's
// wildcard (one or more segments), `/v2/acme/templates/3/12` being the template `/3/12`. The
// suffixed routes (`.html`, `.json`, `.txt`, `/preview`) come before the bare one, which would
// match them too: koa-router runs the first matching route, and none of these calls next().

const body = { type: 'string', minLength: 1, maxLength: MAX_BODY_BYTES } as const;
const address = {
  type: 'object', additionalProperties: false, required: ['email'],
  properties: { email: { type: 'string', format: 'email', maxLength: 320 }, name: { type: 'string', maxLength: 100 } },
} as const;
const type = {
  type: 'string', pattern: '^([Hh][Tt][Mm][Ll]|[Mm][Jj][Mm][Ll]|[Ff][Oo][Ll][Dd][Ee][Rr])$',
  description: 'HTML, MJML (Herald\'s addition) or FOLDER, in any letter case.',
} as const;
const location = { type: 'string', pattern: FOLDER_PATH.source, description: 'A folder\'s id, or `/` (the top).' } as const;
const notSupported = (what: string) => ({ description: `The original's ${what}: refused with VALIDATION_ERROR (Herald fetches nothing); send htmlRaw.` });
const htmlUrl = notSupported('URL to fetch the HTML from');
const htmlFile = notSupported('uploaded HTML file');
const htmlRaw = { ...body, description: 'HTML templates: the HTML, at most 300 KB.' } as const;
const mjmlRaw = { ...body, description: 'MJML templates: the MJML source, at most 300 KB, compiled when saved (strict validation).' } as const;

const createSchema = {
  type: 'object', additionalProperties: false, required: ['name', 'type'],
  properties: {
    name, type, location, htmlRaw, mjmlRaw, htmlUrl, htmlFile,
    subject: { type: 'string', maxLength: MAX_SUBJECT_LENGTH }, from: address, reply_to: address,
  },
} as const;
const updateSchema = {
  type: 'object', additionalProperties: false,
  properties: {
    name, type, location, htmlRaw, mjmlRaw, htmlUrl, htmlFile,
    subject: { type: ['string', 'null'], maxLength: MAX_SUBJECT_LENGTH, description: 'null or "" clears it.' },
    from: { ...address, type: ['object', 'null'], description: 'null clears it.' },
    reply_to: { ...address, type: ['object', 'null'], description: 'null clears it.' },
  },
} as const;
const validateCreate = validator<TemplateInput>(createSchema);
const validateUpdate = validator<TemplateUpdate>(updateSchema);

const LIST: ListSpec = {
  sortFields: ['name', 'created'], defaultDir: 'asc', defaultLimit: 100,
  filters: {
    type: (value) => {
      const key = value.toLowerCase();
      if (!Object.hasOwn(TYPE_FILTERS, key)) throw new Error('Must be one of: all, templates, html, mjml, folders');
      return TYPE_FILTERS[key];
    },
    location: (value) => {
      if (!FOLDER_PATH.test(value)) throw new Error('Must be a folder\'s id (/3) or /');
      return value;
    },
  },
  filterDescriptions: {
    type: '`all` (the default), `templates` (HTML and MJML), `html`, `mjml` or `folders`, in any letter case. The original\'s `eddie` matches none.',
    location: 'Only what is in this folder (`/3`), or at the top (`/`).',
  },
};

/** The template or folder the path names (the `*templatePath` wildcard: `3/12`), else 404. */
async function loadTemplate(store: Store, ctx: Context): Promise<TemplateDoc> {
  const raw: unknown = ctx.params.templatePath;
  const id = typeof raw === 'string' ? normaliseTemplateId(raw) : null;
  const template = id ? await findTemplate(store, ctx.params.account, id) : null;
  if (!template) throw errors.notFound('No such template');
  return template;
}

/** A template's HTML: a folder has none. */
async function loadBody(store: Store, ctx: Context): Promise<TemplateDoc & { html: string }> {
  const template = await loadTemplate(store, ctx);
  if (template.html === undefined) throw errors.notFound(`${template.id} is a folder: it has no body`);
  return template as TemplateDoc & { html: string };
}

/**
 * A template's HTML served from the API's origin: kept from running there. `sandbox` gives the
 * document an origin of its own with scripts off; images, styles and fonts still load.
 */
export function sendDocument(ctx: Context, type: 'text/html' | 'text/plain', text: string) {
  ctx.status = 200;
  ctx.type = `${type}; charset=utf-8`;
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "sandbox; default-src 'none'; img-src * data:; style-src * 'unsafe-inline'; font-src * data:");
  ctx.body = text;
}

const templateUrl = (account: string, id: string) => `/v2/${account}/templates${id}`;

/** Templates and folders (`/v2/{account}/templates…`). */
export function templateRoutes(router: Router, store: Store): void {
  router.get('/templates', requirePermission('templates:list'), async (ctx) => {
    const options = parseListOptions(ctx, LIST);
    const filters = { types: options.filters.type as TemplateDoc['type'][] | null | undefined, location: options.filters.location as string | undefined };
    const { items, total } = await findTemplates(store, ctx.params.account, options, filters);
    replyPage(ctx, options, items.map(templateRecord), total);
  });

  router.post('/templates', requirePermission('templates:create'), async (ctx) => {
    const template = await createTemplate(store, ctx.params.account, validateCreate(ctx.request.body ?? {}));
    reply(ctx, { status: 201, data: templateRecord(template), location: templateUrl(template.account, template.id) });
  });

  router.get('/templates/*templatePath/preview', requirePermission('templates:list'), async (ctx) => {
    const template = await loadBody(store, ctx);
    sendDocument(ctx, 'text/html', previewDocument(template.html, template.name));
  });

  router.get('/templates/*templatePath.html', requirePermission('templates:list'), async (ctx) => {
    sendDocument(ctx, 'text/html', (await loadBody(store, ctx)).html);
  });

  router.get('/templates/*templatePath.json', requirePermission('templates:list'), async (ctx) => {
    const template = await loadBody(store, ctx);
    reply(ctx, {
      data: {
        html: template.html, ...(template.mjml !== undefined ? { mjml: template.mjml } : {}),
        subject: template.subject, from: template.from, reply_to: template.reply_to,
      },
    });
  });

  router.get('/templates/*templatePath.txt', requirePermission('templates:list'), async (ctx) => {
    sendDocument(ctx, 'text/plain', htmlToText((await loadBody(store, ctx)).html));
  });

  router.get('/templates/*templatePath', requirePermission('templates:list'), async (ctx) => {
    reply(ctx, { data: templateRecord(await loadTemplate(store, ctx)) });
  });

  router.put('/templates/*templatePath', requirePermission('templates:update'), async (ctx) => {
    const template = await loadTemplate(store, ctx);
    const { doc, changes, moved } = await updateTemplate(store, template, validateUpdate(ctx.request.body ?? {}));
    if (moved) {
      // The id changed: the whole record, and where it now is.
      reply(ctx, { data: templateRecord(doc), location: templateUrl(doc.account, doc.id) });
    } else {
      reply(ctx, { data: { id: doc.id, ...changes } });
    }
  });

  router.delete('/templates/*templatePath', requirePermission('templates:delete'), async (ctx) => {
    const template = await loadTemplate(store, ctx);
    if (!(await deleteTemplate(store, ctx.params.account, template.id))) throw errors.notFound('No such template');
    reply(ctx, {});
  });
}

const byPath = 'In the path, `{templatePath}` is the id without its leading slash: `/v2/{account}/templates/3/12` for the template `/3/12` '
  + '(the id URL-encoded as one segment, `%2F3%2F12`, works too).';
// As the opt-in pages are documented: the answer is not JSON, whatever the document's media type says.
const htmlAnswer = { type: 'string', contentMediaType: 'text/html', description: 'HTML (`text/html`), not JSON.' } as const;
const textAnswer = { type: 'string', contentMediaType: 'text/plain', description: 'Plain text (`text/plain`), not JSON.' } as const;
const withBody = (what: string) => `${byPath} ${what} A folder has no body (404).`;

export const templateOperations = accountResource('Templates', [
  {
    method: 'get', path: '/v2/{account}/templates', id: 'listTemplates', summary: 'Templates and folders of the account', permissions: ['templates:list'],
    description: 'Records without their bodies. Ids are paths: `/12` at the top, `/3/12` in the folder `/3`.',
    listing: { spec: LIST, q: 'the name' }, status: 200, response: 'A page of templates and folders',
  },
  {
    method: 'post', path: '/v2/{account}/templates', id: 'createTemplate', summary: 'Create a template or a folder', permissions: ['templates:create'],
    description: 'HTML templates take `htmlRaw`, MJML ones `mjmlRaw` (compiled now: an MJML error is a VALIDATION_ERROR naming its line). '
      + '`location` puts the template in a folder; folders are created at the top only. subject, from and reply_to are defaults '
      + 'of a transactional send that names the template (the send\'s own win).',
    body: createSchema, status: 201, location: true, response: 'The template or folder',
  },
  {
    method: 'get', path: '/v2/{account}/templates/{templatePath}/preview', id: 'previewTemplate', summary: 'A template as a complete HTML document',
    description: withBody('The template\'s HTML in a document with a viewport and responsive styles (MJML\'s output as it is).'),
    permissions: ['templates:list'], status: 200, response: 'The document (text/html)',
    responseSchema: htmlAnswer, errors: [404],
  },
  {
    method: 'get', path: '/v2/{account}/templates/{templatePath}.html', id: 'getTemplateHtml', summary: 'A template\'s HTML',
    description: withBody('The HTML as given, or compiled from the MJML.'), permissions: ['templates:list'], status: 200,
    response: 'The HTML (text/html)', responseSchema: htmlAnswer, errors: [404],
  },
  {
    method: 'get', path: '/v2/{account}/templates/{templatePath}.json', id: 'getTemplateJson', summary: 'A template\'s content and send defaults',
    description: withBody('`data` is `{html, mjml?, subject, from, reply_to}` (mjml for MJML templates).'), permissions: ['templates:list'],
    status: 200, response: 'The content', errors: [404],
  },
  {
    method: 'get', path: '/v2/{account}/templates/{templatePath}.txt', id: 'getTemplateText', summary: 'A template as plain text',
    description: withBody('The HTML without its tags: blocks as lines, links followed by their address.'), permissions: ['templates:list'],
    status: 200, response: 'The text (text/plain)', responseSchema: textAnswer, errors: [404],
  },
  {
    method: 'get', path: '/v2/{account}/templates/{templatePath}', id: 'getTemplate', summary: 'A template or folder', description: byPath,
    permissions: ['templates:list'], status: 200, response: 'The template or folder, without its body', errors: [404],
  },
  {
    method: 'put', path: '/v2/{account}/templates/{templatePath}', id: 'updateTemplate', summary: 'Rename, move or change a template',
    description: `${byPath} \`location\` moves a template into a folder (or to the top, \`/\`): its id changes, and the answer is the `
      + 'whole record with a Location. Otherwise the answer is the id and only what changed; a new body shows as its new `version` '
      + '(MJML compiled again). The type never changes; folders do not move.',
    permissions: ['templates:update'], body: updateSchema, status: 200, response: 'The id and what changed, or the moved record', errors: [404],
  },
  {
    method: 'delete', path: '/v2/{account}/templates/{templatePath}', id: 'deleteTemplate', summary: 'Delete a template or an empty folder',
    description: `${byPath} A folder that holds templates is not deleted (400): move or delete them first.`,
    permissions: ['templates:delete'], status: 200, response: 'Deleted', errors: [400, 404],
  },
]);
