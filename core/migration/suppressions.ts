// The source's suppression list (`GET /{account}/suppressions`, Herald's own listing: a source
// without one answers 404 and the step says so): every address stays suppressed here, with its
// reason, recorded as coming from the migration. Idempotent: an address already on the list
// keeps its first reason and date.
import { SourceApiError } from '../../adapters/http/account-api-client';
import type { SuppressionDoc } from '../../adapters/store/store';
import { suppressMany } from '../sending/suppressions';
import { isEmailAddress } from '../shared/email-address';
import type { StepContext } from './definitions';
import { emptyKind, skip, type KindReport } from './report';

const REASONS: ReadonlySet<string> = new Set<SuppressionDoc['reason']>(['unsubscribed', 'bounced', 'complained', 'manual']);

export async function migrateSuppressions(context: StepContext): Promise<KindReport> {
  const report = emptyKind();
  try {
    for await (const page of context.client.pages<{ email?: string; reason?: string }>('suppressions', { pageSize: 1000, sortby: 'created' })) {
      const entries: Array<{ account: string; email: string; reason: SuppressionDoc['reason'] }> = [];
      for (const item of page.items) {
        report.read += 1;
        const email = String(item.email ?? '').trim();
        if (!isEmailAddress(email)) {
          skip(report, 'invalid email');
          continue;
        }
        const reason = REASONS.has(String(item.reason)) ? item.reason as SuppressionDoc['reason'] : 'manual';
        entries.push({ account: context.account, email, reason });
      }
      const created = await suppressMany(context.store, entries, 'migration');
      report.created += created;
      report.unchanged += entries.length - created;
      await context.progress(report.read, page.total);
    }
  } catch (error) {
    if (error instanceof SourceApiError && error.failure === 'not_found') skip(report, 'the source has no suppression list');
    else throw error;
  }
  return report;
}
