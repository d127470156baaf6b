// Timeouts in the tests are safety nets, never measures: they only bound how long a test that
// hangs takes to fail. Jest's per-test and per-hook timeouts, Playwright's waits and the default
// wait of waitUntil are all stretched by one factor, so a suite sharing its machine (a second
// suite beside it: three times slower seen) passes as a quiet one does.
// HERALD_TEST_TIMEOUT_FACTOR sets it (3 by default; 1 gives the timeouts as written).

const DEFAULT_FACTOR = 3;

function factorFromEnvironment(): number {
  const value = Number(process.env.HERALD_TEST_TIMEOUT_FACTOR ?? DEFAULT_FACTOR);
  return Number.isFinite(value) && value >= 1 ? value : DEFAULT_FACTOR;
}

export const SAFETY_FACTOR = factorFromEnvironment();

/** A safety net of `ms` on a quiet machine, stretched for a busy one. */
export function safetyNet(ms: number): number {
  return Math.round(ms * SAFETY_FACTOR);
}
