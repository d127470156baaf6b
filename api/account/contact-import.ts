// Contacts import (`/v2/{account}/contacts/import…`): upload a file, preview what an import would
// do, start it as a CONTACT_IMPORT task. These routes read their own bodies (a multipart file; JSON
// or form bodies up to IMPORT_BODY_LIMIT_BYTES with inline CSV), so they live on a router of their
// own, mounted before the account router, whose bodies stop at 1 MB.
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Principal } from '../../core/accounts/credentials';
import {
  importName, MAX_SOURCE_RAW_CHARS, MAX_UPLOAD_BYTES, planImport, previewImport, saveRawSource, type ImportRequest,
} from '../../core/contacts/import/start';
import { errors } from '../../core/shared/errors';
import { formatBytes } from '../http-errors';
import { deleteFile } from '../../adapters/store/files';
import { DEFAULT_LIMITS } from '../../core/shared/limits';
import type { TaskDeps } from '../../core/tasks/tasks';
import { readBody } from '../middleware/body';
import { accountResource } from '../openapi/operation';
import { authenticate, requireOwnAccount, requirePermission } from './auth';
import { importSchema, toImportRequest } from './contact-import-schema';
import { UPLOAD_FIELD, uploadRoute } from './contact-import-upload';
import { reply } from './envelope';
import { replyWithNewTask } from './task-launch';

/** Bodies of import and preview: inline CSV of MAX_SOURCE_RAW_CHARS, with room for JSON escapes or form encoding. */
export const IMPORT_BODY_LIMIT_BYTES = 24 * 1024 * 1024;

/** OVERWRITE changes existing contacts: it also takes contacts:update. */
function checkOverwriteAllowed(ctx: Context, request: ImportRequest): void {
  if (request.mode === 'OVERWRITE' && !(ctx.state.principal as Principal).permissions.has('contacts:update')) {
    throw errors.forbidden('Missing permission contacts:update (mode OVERWRITE updates existing contacts)');
  }
}

export function contactImportRouter(deps: TaskDeps): Router {
  const { store } = deps;
  const router = new Router({ prefix: '/v2/:account' });
  router.use(authenticate(store), requireOwnAccount);
  uploadRoute(router, store);
  const body = readBody({ types: ['json', 'form'], limitBytes: IMPORT_BODY_LIMIT_BYTES, limits: { ...DEFAULT_LIMITS, maxStringLength: MAX_SOURCE_RAW_CHARS } });

  router.post('/contacts/import', requirePermission('contacts:create'), body, async (ctx) => {
    const account: string = ctx.params.account;
    const request = toImportRequest(ctx.request.body);
    checkOverwriteAllowed(ctx, request);
    const { parameters } = await planImport(store, account, request);
    const inline = request.sourceRaw !== undefined;
    if (inline) parameters.sourceFile = await saveRawSource(store, account, request.sourceRaw!); // claim check: the workflow gets the task id only
    try {
      await replyWithNewTask(ctx, deps, { type: 'CONTACT_IMPORT', name: importName(parameters, inline), parameters: { ...parameters } });
    } catch (error) {
      if (inline) await deleteFile(store, account, parameters.sourceFile).catch(() => undefined); // no task will read it
      throw error;
    }
  });

  router.post('/contacts/import/preview', requirePermission('contacts:create'), body, async (ctx) => {
    const account: string = ctx.params.account;
    const request = toImportRequest(ctx.request.body);
    checkOverwriteAllowed(ctx, request);
    const plan = await planImport(store, account, request);
    const { sourceFile, ...options } = plan.parameters;
    reply(ctx, {
      data: {
        options: request.sourceRaw !== undefined ? options : { sourceFile, ...options },
        columns: plan.columns,
        contacts: await previewImport(store, account, plan),
      },
    });
  });
  return router;
}

const options = 'Options missing from the body are inferred from the beginning of the source: the separator, whether the first row is a header '
  + '(when it holds no email address), the columns from the header names (email, first name, nombre, …, the names an export writes, custom fields '
  + 'by name or tag) or the email column from the data. Unknown lists, interests or fields, and a source without an email column, are 400 VALIDATION_ERROR.';

export const contactImportOperations = accountResource('Contacts', [
  {
    method: 'post', path: '/v2/{account}/contacts/import/upload', id: 'uploadContactImport', summary: 'Upload a CSV file to import',
    description: `The file goes in the multipart part \`${UPLOAD_FIELD}\`, at most ${formatBytes(MAX_UPLOAD_BYTES)} (413 beyond, and nothing is kept). `
      + 'Answers `data.id`: the name to give an import or a preview as `sourceFile`.',
    permissions: ['contacts:create'], upload: { field: UPLOAD_FIELD, mediaType: 'text/csv' }, status: 200, response: 'The stored file\'s name in `data.id`',
  },
  {
    method: 'post', path: '/v2/{account}/contacts/import', id: 'importContacts', summary: 'Import contacts from a CSV file or inline CSV',
    description: `${options} Rows whose email is not a contact yet become ACTIVE contacts with source \`IMPORTED_CSV\`; existing ones are left `
      + 'as they are (`mode` IGNORE) or take the row\'s non-empty values, the list and the interests (OVERWRITE, which also needs contacts:update); '
      + 'an unsubscribed or bounced contact never becomes active by an import. Rows with an invalid email or value, or an email seen earlier in the file, '
      + `are counted as errors (the first 100 with their row). Inline \`sourceRaw\` up to ${MAX_SOURCE_RAW_CHARS / (1024 * 1024)} M characters `
      + `(a body up to ${formatBytes(IMPORT_BODY_LIMIT_BYTES)}).`,
    permissions: ['contacts:create'], body: importSchema, status: 201, errors: [404],
    response: 'A `CONTACT_IMPORT` task (QUEUED) whose `parameters` are the options used, inferred ones included. When FINISHED its `result` is '
      + '`{rows, created, updated, ignored, errors, errorSamples: [{row, message}]}`. A cancelled import stops before its next batch of 1000 rows; the rows written stay.',
  },
  {
    method: 'post', path: '/v2/{account}/contacts/import/preview', id: 'previewContactImport', summary: 'What an import would do with the first rows',
    description: `The same body as an import; nothing is written. ${options}`,
    permissions: ['contacts:create'], body: importSchema, status: 200, errors: [404],
    response: '`data.options`: the options an import would use; `data.columns`: `[{index, header, field, fieldName, interests}]`; `data.contacts`: the first '
      + '10 rows as contacts, each with its `row`, the `action` the import would take (`create`, `update`, `ignore` or `error`) and its `problems`',
  },
]);
