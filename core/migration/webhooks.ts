// The source's webhook endpoints (`GET /{account}/webhooks`, Herald's own listing: a source without
// one answers 404 and the step says so): each URL with its event types, created DISABLED, since
// the source's signing secret cannot be read back. The operator turns each on once its receiver
// knows the new secret (`POST …/webhooks/{id}/rotate-secret` shows one; the console too). A URL Herald
// refuses (a private address without HERALD_WEBHOOK_ALLOW_PRIVATE) is skipped with the reason.
import { nextId } from '../../adapters/store/counters';
import { SourceApiError } from '../../adapters/http/account-api-client';
import { AppError } from '../shared/errors';
import { createEndpoint, findEndpoint, updateEndpoint } from '../webhooks/endpoints';
import type { StepContext } from './definitions';
import { digestOf } from './mapping';
import { emptyKind, skip, type KindReport } from './report';

export async function migrateWebhooks(context: StepContext, allowPrivate: boolean): Promise<KindReport> {
  const { store, account, client, map } = context;
  const report = emptyKind();
  const mapped = await map.load('webhooks');
  try {
    for await (const page of client.pages<{ id: number; url: string; events?: string[] }>('webhooks', { pageSize: 1000 })) {
      for (const endpoint of page.items) {
        report.read += 1;
        const input = { url: String(endpoint.url), ...(Array.isArray(endpoint.events) ? { events: endpoint.events.map(String) } : {}) };
        const digest = digestOf(input);
        const before = mapped.get(String(endpoint.id));
        try {
          const id = typeof before?.targetId === 'number' ? before.targetId : await nextId(store, account, 'webhooks');
          if (!before) await map.put('webhooks', [{ sourceId: String(endpoint.id), targetId: id }]);
          const existing = await findEndpoint(store, account, id);
          if (existing && before?.digest === digest) {
            report.unchanged += 1;
            continue;
          }
          if (existing) {
            await updateEndpoint(store, existing, input, allowPrivate); // its enabled state is the operator's
            report.updated += 1;
          } else {
            await createEndpoint(store, account, { ...input, enabled: false }, allowPrivate, id);
            report.created += 1;
          }
          await map.put('webhooks', [{ sourceId: String(endpoint.id), targetId: id, digest }]);
        } catch (error) {
          if (error instanceof AppError) skip(report, error.message);
          else throw error;
        }
      }
      await context.progress(report.read, page.total);
    }
  } catch (error) {
    if (error instanceof SourceApiError && error.failure === 'not_found') skip(report, 'the source has no webhooks listing');
    else throw error;
  }
  return report;
}
