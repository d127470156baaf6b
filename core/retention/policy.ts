// How long an account's message history is kept: a number of days per account (its settings'
// `retentionDays`), 45 by default as Postmark keeps it. A message is history once it was sent
// that many days ago: its events (the ledger row among them) go together, so no message is left
// half counted, and its request once none of its messages is left. Pure: no I/O.

export const DEFAULT_RETENTION_DAYS = 45;
/**
 * A week at least (Postmark's minimum too): an MTA retries a deferred message for up to 5 days
 * before its final bounce report, and a report about a message already pruned finds no ledger
 * row: it records nothing, not even the hard bounce's suppression (a signed return path is
 * answered "try again", core/bounces/intake.ts).
 */
export const MIN_RETENTION_DAYS = 7;
/** Ten years: as far back as the activity API's relative filter reaches. */
export const MAX_RETENTION_DAYS = 3650;

const DAY_MS = 86_400_000;

/** Whether `days` is a valid setting: a whole number of days from 7 to 3650. */
export function isRetentionDays(days: unknown): days is number {
  return Number.isInteger(days) && (days as number) >= MIN_RETENTION_DAYS && (days as number) <= MAX_RETENTION_DAYS;
}

/** The instant from which messages are kept: those sent before it are history, removed by the next pruning. */
export function retainedSince(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}
