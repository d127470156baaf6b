import { Readable } from 'node:stream';
import type Router from '@koa/router';
import { errors, fieldError } from '../../core/shared/errors';
import { checkWebhookUrl } from '../../core/webhooks/url-policy';
import { mappingCsv } from '../../core/migration/mapping';
import type { TaskDeps } from '../../core/tasks/tasks';
import { accountResource } from '../openapi/operation';
import { validator } from '../validation';
import { requirePermission } from './auth';
import { replyWithNewTask } from './task-launch';

/** A migration writes every kind it copies: its user may create each of them. */
export const MIGRATION_PERMISSIONS = ['fields:create', 'interests:create', 'lists:create', 'contacts:create', 'templates:create', 'campaigns:create', 'webhooks:create'];

const migrationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'account', 'key'],
  properties: {
    from: { type: 'string', minLength: 1, maxLength: 2000, description: 'The source server\'s base URL, with or without /v2' },
    account: { type: 'string', minLength: 1, maxLength: 100, description: 'The account at the source' },
    key: { type: 'string', minLength: 1, maxLength: 500, description: 'A user\'s API key at the source (kept apart from the task, deleted when it ends)' },
    merge: { type: 'boolean', description: 'Write into this account though it holds data that did not come from this source' },
    rate: { type: 'number', exclusiveMinimum: 0, maximum: 1000, description: 'Requests per second to the source at most (10 by default)' },
  },
} as const;
const validateMigration = validator<{ from: string; account: string; key: string; merge?: boolean; rate?: number }>(migrationSchema);

/**
 * `POST /migrations`: an ACCOUNT_MIGRATION task copying an account from a server that speaks the
 * original's API into this one (docs/migrating.md). The source URL follows the webhooks' address
 * policy: the worker fetches it, so a private address is refused unless HERALD_WEBHOOK_ALLOW_PRIVATE.
 */
export function migrationRoutes(router: Router, deps: TaskDeps & { webhookAllowPrivate: boolean }): void {
  // What each migration brought over: the source's id and Herald's, per kind (optionally of one source, as the report names it).
  router.get('/migrations/mapping', requirePermission('contacts:list'), async (ctx) => {
    const source = typeof ctx.query.source === 'string' && ctx.query.source !== '' ? ctx.query.source : undefined;
    ctx.set('Content-Type', 'text/csv; charset=utf-8');
    ctx.set('Content-Disposition', 'attachment; filename="migration-mapping.csv"');
    ctx.body = Readable.from(mappingCsv(deps.store, ctx.params.account as string, source));
  });

  router.post('/migrations', ...MIGRATION_PERMISSIONS.map(requirePermission), async (ctx) => {
    const body = validateMigration(ctx.request.body ?? {});
    const checked = await checkWebhookUrl(body.from, deps.webhookAllowPrivate);
    if ('problem' in checked) throw errors.validation({ from: fieldError('invalid_value', checked.problem) });
    let keyId = '';
    await replyWithNewTask(ctx, deps, {
      type: 'ACCOUNT_MIGRATION',
      name: `Migration from ${body.account} at ${new URL(checked.url).host}`,
      parameters: { from: checked.url, sourceAccount: body.account, merge: body.merge ?? false, rate: body.rate ?? 10 },
      beforeStart: async (task) => {
        keyId = task._id;
        await deps.store.migrationKeys.replaceOne({ _id: task._id, account: task.account }, { account: task.account, key: body.key }, { upsert: true });
      },
    }).catch(async (error: unknown) => {
      if (keyId) await deps.store.migrationKeys.deleteOne({ _id: keyId, account: ctx.params.account as string });
      throw error;
    });
  });
}

export const migrationOperations = accountResource('Migrations', [
  {
    method: 'post', path: '/v2/{account}/migrations', id: 'startMigration', summary: 'Copy an account from a server speaking the original\'s API',
    description: 'Fields, interests, lists, contacts, the suppression list, templates, campaigns (as drafts) and webhooks (disabled). '
      + 'Resumable and re-runnable: see docs/migrating.md. The task\'s `result` when FINISHED is the report (per kind: read, created, updated, unchanged, skipped by reason).',
    permissions: MIGRATION_PERMISSIONS, body: migrationSchema, status: 201,
    response: 'An `ACCOUNT_MIGRATION` task (QUEUED); its progress and `eta` at GET /tasks/{id}',
  },
  {
    method: 'get', path: '/v2/{account}/migrations/mapping', id: 'downloadMigrationMapping', summary: 'The id mapping of the account\'s migrations, as CSV',
    description: 'One row per element brought over: `source` (the source\'s API root and account, as the report\'s `mapping` link gives it), `kind`, `source_id`, `herald_id`. `?source=` keeps one source\'s.',
    permissions: ['contacts:list'], status: 200, response: 'The CSV file', responseSchema: { type: 'string', contentMediaType: 'text/csv' },
  },
]);
