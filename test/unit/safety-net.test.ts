// Jest's timeouts are safety nets stretched by HERALD_TEST_TIMEOUT_FACTOR (test/support/safety-net.ts,
// applied by test/support/test-environment.ts): a test that outlasts its own timeout but not the
// stretched one passes.
import { SAFETY_FACTOR, safetyNet } from '../support/safety-net';

const OWN_TIMEOUT_MS = 200;

// A hook runs again before every test: stretched from its written timeout each time, not from the
// last stretched one (which grew past setTimeout's limit, where Node fires at once).
beforeEach(async () => {
  await new Promise((resolve) => setTimeout(resolve, 1));
}, OWN_TIMEOUT_MS);

for (let round = 1; round <= 25; round += 1) {
  (SAFETY_FACTOR >= 2 ? test : test.skip)(`a test longer than its own timeout, within the stretched one, passes (after ${round} hook run(s))`, async () => {
    await new Promise((resolve) => setTimeout(resolve, OWN_TIMEOUT_MS * 1.5));
  }, OWN_TIMEOUT_MS);
}

test('a safety net is the time given, stretched by the factor', () => {
  expect(SAFETY_FACTOR).toBeGreaterThanOrEqual(1);
  expect(safetyNet(1000)).toBe(Math.round(1000 * SAFETY_FACTOR));
});
