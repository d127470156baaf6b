// The soak's verdict: a short table on stderr for a person, and one JSON object as the last line
// of stdout for a script. `ok` is false, and the exit code 1, on any loss or unclear answer.

/** The fields the issue names, beside the counts the soak checked. */
export interface SoakVerdict {
  lost: number;
  server_errors: number;
  duplicates_over_bound: number;
  kills: number;
  disk_full_survived: boolean | null;
  campaigns_unfinished: number;
  webhook_events_lost: number;
}

export type SoakReport = SoakVerdict & { ok: boolean; [more: string]: unknown };

export function failuresOf(report: SoakVerdict, extra: Record<string, number>): string[] {
  const failures: string[] = [];
  if (report.lost > 0) failures.push(`${report.lost} accepted message(s) neither delivered nor recorded as failed`);
  if (report.server_errors > 0) failures.push(`${report.server_errors} answer(s) were 5xx other than 503`);
  if (report.duplicates_over_bound > 0) failures.push(`${report.duplicates_over_bound} fault(s) followed by more copies than were in flight`);
  if (report.disk_full_survived === false) failures.push('the disk-full episode was not refused cleanly or not recovered from');
  if (report.campaigns_unfinished > 0) failures.push(`${report.campaigns_unfinished} campaign(s) neither SENT nor CANCELLED, or with counts not matching the sink`);
  if (report.webhook_events_lost > 0) failures.push(`${report.webhook_events_lost} webhook event(s) neither delivered nor discarded`);
  for (const [what, count] of Object.entries(extra)) if (count > 0) failures.push(`${count} ${what}`);
  return failures;
}

export function printTable(rows: Array<[string, unknown]>): void {
  const width = Math.max(...rows.map(([name]) => name.length));
  process.stderr.write(`\n${rows.map(([name, value]) => `  ${name.padEnd(width)}  ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`).join('\n')}\n\n`);
}
