// What a migration did, per kind of element: read from the source, created, updated, unchanged
// (a re-run finding what it wrote before) and skipped with the reason (an invalid email, a field
// format Herald has no equivalent for). The task's result and the CLI's output.

export interface KindReport {
  read: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Skipped elements by reason. */
  skipped: Record<string, number>;
  /** How long the step took. */
  seconds?: number;
}

export interface MigrationReport {
  source: { url: string; account: string };
  account: string;
  started: string;
  finished: string | null;
  kinds: Record<string, KindReport>;
  /** Where the id mapping of this source downloads as CSV (GET, account API credentials). */
  mapping: string;
}

export function emptyKind(): KindReport {
  return { read: 0, created: 0, updated: 0, unchanged: 0, skipped: {} };
}

export function skip(kind: KindReport, reason: string, count = 1): void {
  kind.skipped[reason] = (kind.skipped[reason] ?? 0) + count;
}

/** Counts what bringOver (./mapping.ts) did. */
export function count(kind: KindReport, outcome: 'created' | 'updated' | 'unchanged' | { left: string }): void {
  if (typeof outcome === 'string') kind[outcome] += 1;
  else skip(kind, outcome.left);
}
