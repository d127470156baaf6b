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
import { bringOver, digestOf } from './mapping';
import { count, emptyKind, skip, type KindReport } from './report';

export async function migrateWebhooks(context: StepContext, allowPrivate: boolean): Promise<KindReport> {
  const { store, account, client, map } = context;
  const report = emptyKind();
  try {
    for await (const page of client.pages<{ id: number; url: string; events?: string[] }>('webhooks', { pageSize: 1000 })) {
      const mapped = await map.lookup('webhooks', page.items.map((endpoint) => String(endpoint.id)));
      for (const endpoint of page.items) {
        report.read += 1;
        const input = { url: String(endpoint.url), ...(Array.isArray(endpoint.events) ? { events: endpoint.events.map(String) } : {}) };
        try {
          count(report, await bringOver(map, mapped, 'webhooks', String(endpoint.id), digestOf(input), {
            reserveId: () => nextId(store, account, 'webhooks'),
            find: (id) => findEndpoint(store, account, id),
            create: (id) => createEndpoint(store, account, { ...input, enabled: false }, allowPrivate, id),
            update: async (existing) => { await updateEndpoint(store, existing, input, allowPrivate); }, // its enabled state is the operator's
          }));
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
