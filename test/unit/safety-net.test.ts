// Jest's timeouts are safety nets stretched by HERALD_TEST_TIMEOUT_FACTOR (test/support/safety-net.ts,
// applied by test/support/test-environment.ts): a test that outlasts its own timeout but not the
// stretched one passes.
import { SAFETY_FACTOR, safetyNet } from '../support/safety-net';

const OWN_TIMEOUT_MS = 2000;
const HOOK_RUNS = 25; // stretched again and again from its last value, 2 s would pass setTimeout's limit (about 24.8 days) by the 13th run

// A hook runs again before every test: stretched from its written timeout each time, not from the
// last stretched one (which grew past setTimeout's limit, where Node fires at once).
beforeEach(async () => {
  await new Promise((resolve) => setTimeout(resolve, 1));
}, OWN_TIMEOUT_MS);

// The first and the last test outlast their own timeout by a quarter; the stretched one leaves
// them seconds more, so a busy machine's late timers do not fail them. The tests between only run the hook.
for (let round = 1; round <= HOOK_RUNS; round += 1) {
  const sleepMs = round === 1 || round === HOOK_RUNS ? OWN_TIMEOUT_MS * 1.25 : 0;
  (SAFETY_FACTOR >= 2 ? test : test.skip)(`a test ${sleepMs ? 'longer than its own timeout, within the stretched one, passes' : 'runs'} (after ${round} hook run(s))`, async () => {
    await new Promise((resolve) => setTimeout(resolve, sleepMs));
  }, OWN_TIMEOUT_MS);
}

test('a safety net is the time given, stretched by the factor', () => {
  expect(SAFETY_FACTOR).toBeGreaterThanOrEqual(1);
  expect(safetyNet(1000)).toBe(Math.round(1000 * SAFETY_FACTOR));
});
