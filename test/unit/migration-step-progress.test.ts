// A migration's progress line: the step under way and its own ETA, from that step's rate since its
// first counted batch (not the time the step waited on the source's export before it).
import { StepClock, stepMessage } from '../../core/migration/step-progress';

test('the ETA of a step comes from its own rate since its first counted batch', () => {
  const clock = new StepClock();
  expect(clock.eta(3, 0, undefined, 0)).toBe(-1); // waiting on the source's export
  expect(clock.eta(3, 1000, 100_000, 8_000)).toBe(-1); // the first batch: no rate yet
  expect(clock.eta(3, 11_000, 100_000, 10_000)).toBe(18); // 10,000 in 2 s: 89,000 left
  expect(clock.eta(3, 100_000, 100_000, 28_000)).toBe(0);
  expect(clock.eta(4, 500, 1000, 28_100)).toBe(-1); // a new step starts its own clock
  expect(clock.eta(4, 750, 1000, 28_600)).toBe(1);
});

test('the message names the step, how far it got and what is left', () => {
  expect(stepMessage('contacts', 3, 0, undefined, -1)).toBe('Step 4 of 8, contacts: reading the source');
  expect(stepMessage('contacts', 3, 11_000, 100_000, 18)).toBe('Step 4 of 8, contacts: 11,000 of 100,000, about 18 s left');
  expect(stepMessage('contacts', 3, 11_000, 100_000, 150)).toBe('Step 4 of 8, contacts: 11,000 of 100,000, about 3 min left');
  expect(stepMessage('fields', 0, 6, 6, 0)).toBe('Step 1 of 8, fields: 6 of 6');
});
