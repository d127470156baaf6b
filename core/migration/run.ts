// A migration of an account from any server that speaks the original's `/v2` API into a Herald
// account: checks first (the source answers, the key holds every permission the steps need, the
// target exists and holds nothing from elsewhere unless merging), then the steps in order, each
// recorded as done (`migrations`), so a run killed midway goes on where it stopped and the id
// mapping (./mapping.ts) keeps every element once. Run again later, it brings over what changed.
import { AccountApiClient, SourceApiError, type AccountApiClientOptions } from '../../adapters/http/account-api-client';
import type { MigrationDoc, Store } from '../../adapters/store/store';
import { migrateFields, migrateInterests, migrateLists, type StepContext } from './definitions';
import { migrateCampaigns } from './campaigns';
import { migrateContacts } from './contacts';
import { MigrationMap } from './mapping';
import type { KindReport, MigrationReport } from './report';
import { migrateSuppressions } from './suppressions';
import { migrateTemplates } from './templates';
import { migrateWebhooks } from './webhooks';

/** A migration that cannot start (or go on): nothing more is written, the message says why. */
export class MigrationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationRefused';
  }
}

interface Step { name: string; permissions: string[]; run(context: StepContext, input: MigrationInput): Promise<KindReport> }

/** The steps in order: definitions before what refers to them. */
export const MIGRATION_STEPS: readonly Step[] = [
  { name: 'fields', permissions: ['fields:list'], run: migrateFields },
  { name: 'interests', permissions: ['interests:list'], run: migrateInterests },
  { name: 'lists', permissions: ['lists:list'], run: migrateLists },
  // The contact export is a task at the source: started with contacts:list, watched with tasks:list.
  { name: 'contacts', permissions: ['contacts:list', 'tasks:list'], run: migrateContacts },
  { name: 'suppressions', permissions: ['contacts:list'], run: migrateSuppressions },
  { name: 'templates', permissions: ['templates:list'], run: migrateTemplates },
  { name: 'campaigns', permissions: ['campaigns:list'], run: migrateCampaigns },
  { name: 'webhooks', permissions: ['webhooks:list'], run: (context, input) => migrateWebhooks(context, input.allowPrivateWebhooks ?? false) },
];

export interface MigrationInput {
  store: Store;
  /** The source: its base URL, account and API key; its rate (requests per second). */
  source: Pick<AccountApiClientOptions, 'baseUrl' | 'account' | 'apiKey' | 'requestsPerSecond' | 'backoffMs'>;
  /** The Herald account written to. */
  account: string;
  /** Write into an account holding data that did not come from this source. */
  merge?: boolean;
  /** Webhook URLs on private addresses are allowed (HERALD_WEBHOOK_ALLOW_PRIVATE). */
  allowPrivateWebhooks?: boolean;
  /** Progress of the step under way: its name, its index among the steps, elements done, the source's total. */
  onProgress?(step: string, index: number, done: number, total: number | undefined): void | Promise<void>;
  /** The source slowed the migration down (a 429 or 5xx answered with a retry). */
  onRetry?(info: { path: string; status?: number; delayMs: number }): void;
}

export async function runMigration(input: MigrationInput): Promise<MigrationReport> {
  const { store, account } = input;
  const client = refusedOnSourceError(() => new AccountApiClient({ ...input.source, onRetry: input.onRetry }));
  const source = `${client.root}|${input.source.account}`;
  const map = new MigrationMap(store, account, source);
  await checkBeforeWriting(store, client, input, map);

  const key = { _id: map.recordId, account };
  const previous = await store.migrations.findOne(key);
  // A finished migration run again starts over (bringing over what changed); an unfinished one goes on.
  // The marks of earlier full reads stay: they tell a re-run what it need not read again.
  const state: MigrationDoc = previous && previous.finished === null
    ? previous
    : { ...key, source, started: new Date(), finished: null, done: [], reports: {}, ...(previous?.marks ? { marks: previous.marks } : {}) };
  await store.migrations.replaceOne(key, state, { upsert: true });

  const report: MigrationReport = {
    source: { url: client.root, account: input.source.account }, account, started: state.started.toISOString(), finished: null, kinds: {},
    mapping: `/v2/${account}/migrations/mapping?source=${encodeURIComponent(source)}`,
  };
  const kept = (state.reports ?? {}) as Record<string, KindReport>;
  for (const [index, step] of MIGRATION_STEPS.entries()) {
    if (state.done.includes(step.name) && kept[step.name]) {
      report.kinds[step.name] = kept[step.name];
      continue;
    }
    const context: StepContext = {
      store, account, client, map,
      progress: async (done, total) => { await input.onProgress?.(step.name, index, done, total); },
    };
    await input.onProgress?.(step.name, index, 0, undefined);
    try {
      const started = Date.now();
      report.kinds[step.name] = await step.run(context, input);
      report.kinds[step.name].seconds = (Date.now() - started) / 1000;
    } catch (error) {
      if (error instanceof SourceApiError) throw new MigrationRefused(`${step.name}: ${error.message}`);
      throw error;
    }
    state.done.push(step.name);
    kept[step.name] = report.kinds[step.name];
    await store.migrations.updateOne(key, { $set: { done: state.done, reports: kept } });
  }
  const finished = new Date();
  await store.migrations.updateOne(key, { $set: { finished } });
  report.finished = finished.toISOString();
  return report;
}

/** A source error (a base URL that is not one, say) as the migration's refusal: told, not thrown as a fault. */
function refusedOnSourceError<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof SourceApiError) throw new MigrationRefused(error.message);
    throw error;
  }
}

/**
 * Before anything is written: the source answers and knows the key; the key holds every
 * permission the steps need (named when missing); the target account exists and holds nothing
 * that came from elsewhere (unless merging; what an earlier run from this source wrote is fine).
 */
async function checkBeforeWriting(store: Store, client: AccountApiClient, input: MigrationInput, map: MigrationMap): Promise<void> {
  if (!(await store.accounts.findOne({ _id: input.account }, { projection: { _id: 1 } }))) {
    throw new MigrationRefused(`No Herald account "${input.account}": create it first (herald account create ${input.account})`);
  }
  let granted: string[] | undefined;
  try {
    granted = await client.permissions();
  } catch (error) {
    if (error instanceof SourceApiError) throw new MigrationRefused(error.message);
    throw error;
  }
  if (granted) {
    const missing = [...new Set(MIGRATION_STEPS.flatMap((step) => step.permissions))].filter((permission) => !granted!.includes(permission));
    if (missing.length > 0) throw new MigrationRefused(`The key lacks the permission${missing.length > 1 ? 's' : ''} ${missing.join(', ')} at the source`);
  }
  if (input.merge) return;
  const started = await map.startedFrom();
  if (started.otherSources) throw new MigrationRefused(`Account "${input.account}" holds data migrated from another source: give --merge to write into it anyway`);
  if (started.thisSource) return; // an earlier run from this source: the normal re-run
  const holds = await Promise.all([store.fields, store.interests, store.lists, store.contacts, store.suppressions, store.templates, store.campaigns]
    .map((collection) => (collection as typeof store.lists).countDocuments({ account: input.account }, { limit: 1 })));
  if (holds.some((count) => count > 0)) {
    throw new MigrationRefused(`Account "${input.account}" already holds data that did not come from this source: give --merge to write into it anyway`);
  }
}
