// The buffer of the Temporal SDK's log lines of one test file, on the file's global object: the
// file's runtime (test/support/temporal-logs.ts) fills it, the test environment
// (test/support/test-environment.ts) empties it. No Temporal import here: the environment loads it.
const BUFFER = '__heraldTemporalLogs';
type WithBuffer = { [BUFFER]?: string[] };

export function keepTemporalLog(global: object, line: string): void {
  ((global as WithBuffer)[BUFFER] ??= []).push(line);
}

/** The lines kept since the last call (the buffer is emptied). */
export function takeTemporalLogs(global: object): string[] {
  const holder = global as WithBuffer;
  const lines = holder[BUFFER] ?? [];
  holder[BUFFER] = [];
  return lines;
}

/** The lines kept so far, the buffer left as it is (a test watching for a line). */
export function peekTemporalLogs(global: object): readonly string[] {
  return (global as WithBuffer)[BUFFER] ?? [];
}
