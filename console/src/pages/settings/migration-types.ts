// A migration as the console reads it: the ACCOUNT_MIGRATION task's parameters and its result,
// the report (core/migration/report.ts; api/account/migrations.ts).
export interface KindReport {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: Record<string, number>;
  seconds?: number;
}

export interface MigrationReport {
  source: { url: string; account: string };
  account: string;
  started: string;
  finished: string | null;
  kinds: Record<string, KindReport>;
  /** The id mapping's CSV: a path under /v2/{account}. */
  mapping: string;
}

/** What POST /migrations keeps as the task's parameters (the key is never among them). */
export interface MigrationParameters { from: string; sourceAccount: string; merge: boolean; rate: number }

/** Herald names its migration tasks so: the history lists them by it (GET /tasks?q=). */
export const MIGRATION_TASK_NAMES = 'Migration from *';

